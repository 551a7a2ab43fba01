"""How a declared vacation moves a turn deadline: the one computation the clock uses.

``matches.services.lifecycle`` asks :func:`effective_turn_deadline` both when a service or
page applies deadlines lazily and when a sweep does, so the two cannot disagree. The stored
``Match.turn_deadline_at`` stays the deadline without vacation (what the sweeps' index
selects by); the effective one is never earlier, so every match a sweep must forfeit is
still among those it selects.

The decision is stable whenever it is made: a vacation can be declared only from tomorrow
and cancelled only before it starts, so a change can move only a deadline still ahead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from matches.models import Match, Seat
from vacations.models import Vacation

Span = tuple[datetime, datetime]


def paused_deadline(
    *, deadline: datetime, turn_started_at: datetime, away: Iterable[Span]
) -> datetime:
    """``deadline`` moved later by every moment of ``away`` that falls inside the turn.

    The clock stops from ``max(start, turn_started_at)`` to the span's end for each span that
    starts before the (so far extended) deadline; spans do not overlap (the service refuses
    overlaps), so taking them in order extends the deadline exactly by the paused time.
    """
    for start, end in sorted(away):
        if end <= turn_started_at:
            continue
        if start >= deadline:
            break
        deadline += end - max(start, turn_started_at)
    return deadline


def away_spans(*, member_id: int, tournament_id: int, after: datetime) -> list[Span]:
    """The member's active vacations charged to the tournament, ending after ``after``."""
    rows = Vacation.objects.filter(
        member_id=member_id,
        tournaments__id=tournament_id,
        cancelled_at__isnull=True,
        ends_at__gt=after,
    ).values_list("starts_at", "ends_at")
    return list(rows)


def can_pause(match: Match) -> bool:
    """Whether a vacation can move the deadline of the turn now to play: only a live
    tournament match's mover's (the allowance is the tournament's), in a turn with one."""
    return (
        match.turn_deadline_at is not None
        and match.turn_started_at is not None
        and match.status == Match.Status.LIVE
        and match.tournament_id is not None
        and match.to_move is not None
    )


def turn_deadline_paused(match: Match, mover_away: Iterable[Span]) -> datetime | None:
    """The deadline of the turn now to play, later by ``mover_away`` (the mover's vacations
    charged to the match's tournament that end after the turn began)."""
    deadline, started = match.turn_deadline_at, match.turn_started_at
    if not can_pause(match) or deadline is None or started is None:
        return deadline
    return paused_deadline(deadline=deadline, turn_started_at=started, away=mover_away)


def effective_turn_deadline(match: Match, seats: Sequence[Seat] | None = None) -> datetime | None:
    """The deadline of the turn now to play, later by the mover's vacation within the turn.

    ``seats`` saves a query when the caller holds them.
    """
    started, tournament_id, to_move = match.turn_started_at, match.tournament_id, match.to_move
    if not can_pause(match) or started is None or tournament_id is None or to_move is None:
        return match.turn_deadline_at
    if seats is not None:
        mover_id = next((s.member_id for s in seats if s.position == to_move), None)
    else:
        mover_id = (
            Seat.objects.filter(match_id=match.pk, position=to_move)
            .values_list("member_id", flat=True)
            .first()
        )
    if mover_id is None:
        return match.turn_deadline_at
    away = away_spans(member_id=mover_id, tournament_id=tournament_id, after=started)
    return turn_deadline_paused(match, away)
