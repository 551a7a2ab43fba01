"""What every rounds service does: the clock, the row locks, the game in and out, the news.

The match row is locked first (``select_for_update``), then its players, in position order;
every service that changes a match holds both until it commits. The game is the engine's
``RoundsGame`` at the stored position (``RoundsMatch.game_state``), its log
``RoundsMatch.actions``; each closed round becomes a ``ClosedRound`` row.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone

from common.events import RoundDealt, RoundsMatchEnded, emit
from engine import get_ruleset
from engine.gramma_ana import cap_for_rating
from engine.rounds import RoundAction, RoundsGame, action_to_json
from lexicon.lexicon import Lexicon, get_lexicon
from matches.visibility.rounds import bag_seed_for, progress, public_record
from rounds.models import ClosedRound, RoundsMatch, RoundsPlayer
from rounds.news import RoundsNewsItem, public_item
from rounds.payloads import round_progress, round_ready, round_result, rounds_ended
from rounds.schemas import RoundClosedFrame, RoundProgressFrame, RoundReadyFrame, RoundsEndedFrame
from rounds.services.errors import RoundsMatchMissing


def now() -> datetime:
    return timezone.now()


def ms(at: datetime) -> int:
    """A moment on the game's clock: whole milliseconds since the epoch."""
    return int(at.timestamp() * 1000)


def lexicon_of(match: RoundsMatch) -> Lexicon:
    return get_lexicon(match.lexicon, max_len=get_ruleset(match.ruleset).lexicon_max_len)


def locked_match(match_id: int) -> RoundsMatch:
    """The match row, locked until the transaction ends."""
    match = RoundsMatch.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise RoundsMatchMissing(RoundsMatchMissing.MESSAGE)
    return match


def locked_players(match: RoundsMatch) -> list[RoundsPlayer]:
    """Every player of the match, locked, in position order, with their members."""
    return list(
        RoundsPlayer.objects.select_for_update(of=("self",))
        .select_related("member")
        .filter(match_id=match.pk)
        .order_by("position")
    )


def game_of(match: RoundsMatch) -> RoundsGame:
    """The game at the stored position (a started match only)."""
    assert match.game_state is not None, "a started rounds match has a position"
    return RoundsGame.from_json(match.game_state)


def gramma_cap(match: RoundsMatch) -> int | None:
    """The cap Gramma Ana plays within in this match (None: she is not playing)."""
    return None if match.gramma_rating is None else cap_for_rating(match.gramma_rating)


def closes_at(
    match: RoundsMatch, players: list[RoundsPlayer], game: RoundsGame, *, at: datetime
) -> datetime | None:
    """When the open round is due to close by the clock: its deadline; sooner once every
    member has started it (the last of their own timers); at once once every member has
    finished (Gramma Ana then plays, if she has not yet, and the round closes)."""
    current = game.current
    if current is None:
        return None
    deadline = match.round_deadline_at
    assert deadline is not None
    members = [p.position for p in players if not p.is_gramma_ana]
    submitted = {s.player for s in current.submissions}
    if all(p in submitted for p in members):
        return min(deadline, at)
    starts = [current.started[p] for p in members if p not in submitted]
    if any(start is None for start in starts):
        return deadline
    turn_ms = int(match.turn_time.total_seconds() * 1000)
    # A submission at the very end of one's own time stands (the engine refuses only after
    # it): the round closes a millisecond later.
    last = max(start for start in starts if start is not None) + turn_ms + 1
    return min(deadline, datetime.fromtimestamp(last / 1000, tz=UTC))


def store(
    match: RoundsMatch,
    players: list[RoundsPlayer],
    before: RoundsGame | None,
    game: RoundsGame,
    actions: list[RoundAction],
    *,
    at: datetime,
) -> list[RoundsNewsItem]:
    """Write ``game`` (reached from ``before`` by ``actions``): the position, the log, the
    closed rounds, the totals and the clock; return the public news of the change (progress,
    each round closed, the next round dealt, the end) and emit the domain events. The match
    row is saved here; the caller holds its lock."""
    items: list[RoundsNewsItem] = []
    match.actions = [*match.actions, *(action_to_json(action) for action in actions)]
    match.game_state = game.position_json()
    match.bag_count = game.bag_count
    closed = game.rounds
    for record in closed:
        ClosedRound.objects.create(
            match=match, number=record.number, record=record.to_json(), closed_at=at
        )
    for player in players:
        if player.total != game.scores[player.position]:
            player.total = game.scores[player.position]
            player.save(update_fields=["total"])
    new_round = game.current is not None and (
        before is None or before.current is None or before.current.number != game.current.number
    )
    if game.is_over:
        _finish(match, players, game, at=at)
    if new_round:
        match.round_number = game.round_number
        match.round_opened_at = at
        match.round_deadline_at = at + match.round_time
    match.closes_at = closes_at(match, players, game, at=at)
    match.save()
    over = game.is_over
    for record in closed:
        items.append(
            public_item(
                RoundClosedFrame(
                    match_id=match.pk,
                    data=round_result(public_record(record, over=over), drawn_public=over),
                )
            )
        )
    if game.current is not None and not new_round:
        started, submitted = progress(game.current)
        items.append(
            public_item(
                RoundProgressFrame(
                    match_id=match.pk, data=round_progress(game.current.number, started, submitted)
                )
            )
        )
    if new_round:
        items.append(public_item(RoundReadyFrame(match_id=match.pk, data=round_ready(match))))
        emit(
            RoundDealt(
                rounds_match_id=match.pk,
                name=match.name,
                number=match.round_number,
                member_ids=tuple(p.member_id for p in players if p.member_id is not None),
            )
        )
    seed = bag_seed_for(over=over, bag_seed=match.bag_seed)
    if seed is not None:
        items.append(
            public_item(
                RoundsEndedFrame(
                    match_id=match.pk, data=rounds_ended(match, players, bag_seed=seed)
                )
            )
        )
    return items


def _finish(
    match: RoundsMatch, players: list[RoundsPlayer], game: RoundsGame, *, at: datetime
) -> None:
    """The game ended: places (level totals share), the status, and ``RoundsMatchEnded``."""
    match.status = RoundsMatch.Status.FINISHED
    match.end_reason = game.end_reason or ""
    match.finished_at = at
    match.round_deadline_at = None
    for player in players:
        player.place = 1 + sum(1 for other in game.scores if other > game.scores[player.position])
        player.save(update_fields=["place"])
    gramma = next((p for p in players if p.is_gramma_ana), None)
    emit(
        RoundsMatchEnded(
            rounds_match_id=match.pk,
            rated=match.rated,
            places=tuple((p.member_id, p.place or 0) for p in players if p.member_id is not None),
            gramma_place=None if gramma is None else gramma.place,
        )
    )
