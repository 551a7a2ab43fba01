"""An organiser's control of a fixture once it is scheduled: reschedule, cancel, adjudicate,
substitute a player, postpone a tournament round, withdraw a player from all their fixtures.

Each is one function: it locks the match row (and its seats), applies any deadline that has
passed (so a kick-off that came first stands), checks, writes the change and its
:class:`OrganiserAction` (the audit trail: who, what, when, why) in one transaction, records
the players' notices (events the notifications app hears, keyed by the action) and
publishes its news after commit. A ruling on a result ends the match through
``finish_match``, so a rated adjudication moves the ratings and the players are told; a
voided or cancelled match has no result and is rated by nobody.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from accounts.models import Member
from common.errors import ServiceError
from common.events import KickoffMoved, SeatFacts, SeatSubstituted, emit
from matches import visibility
from matches.models import Match, OrganiserAction, Seat
from matches.news import Event, PublicEvent, publish_on_commit
from matches.services.common import locked_match, locked_seats, require_organiser, seat_facts
from matches.services.common import now as _now
from matches.services.errors import (
    FixtureUnchangeable,
    InvalidFixture,
    OwnMatch,
    RoundsOutOfOrder,
)
from matches.services.lifecycle import apply_deadlines, finish_match
from matches.visibility.access import is_club_member
from tournaments.services.fixtures import NOT_A_MEMBER

#: The longest reason kept with an organiser's action.
MAX_REASON_LENGTH = 500
NEEDS_A_REASON = "Give a reason: it is kept with the fixture's record."
REASON_TOO_LONG = f"A reason can be at most {MAX_REASON_LENGTH} characters."
ALREADY_KICKED_OFF = "This fixture has kicked off, so its kick-off can no longer be changed."
KICKOFF_NOT_AHEAD = "The new kick-off must be in the future."
CANCEL_TOO_LATE = "Only a fixture that has not kicked off can be cancelled."
NOT_LIVE = "Only a live match can be adjudicated or voided."
NO_SUCH_RULING = "A ruling is a win for First, a win for Second, a draw, or void."

NO_SUCH_SEAT = "A seat is First or Second."
SUBSTITUTE_OVER = "This match is over, so its players can no longer be replaced."
SUBSTITUTE_TOO_LATE = (
    "This match has kicked off, so its players can no longer be replaced: adjudicate it, or "
    "withdraw the player, instead."
)
EMPTY_SEAT = "This seat is empty: there is nobody to replace."
ALREADY_IN_THIS_SEAT = "That member already holds this seat."
BOTH_SIDES = "A member cannot sit on both sides of a fixture."
#: The longest a round can be put back at once.
MAX_POSTPONE_DAYS = 90
POSTPONE_NOT_LATER = "A round can only be postponed by a positive interval."
POSTPONE_TOO_LONG = f"A round can be postponed by at most {MAX_POSTPONE_DAYS} days at once."
NO_SUCH_ROUND = "This tournament has no such round."
ROUND_UNDER_WAY = "Every fixture of this round has kicked off: there is nothing to postpone."

#: What an adjudication may award: a result, or "void" (no result, unrated).
RULINGS = ("first", "second", "draw", "void")


def _reason(reason: str) -> str:
    """The reason, trimmed, or the refusal of a missing or overlong one."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise InvalidFixture(NEEDS_A_REASON)
    if len(reason) > MAX_REASON_LENGTH:
        raise InvalidFixture(REASON_TOO_LONG)
    return reason


def _not_a_player(organiser: Any, seats: list[Seat]) -> None:
    """Refuse an organiser's ruling on a match they hold a seat in: another organiser
    decides it (their own result, kick-off or opponent is not theirs to rule on)."""
    if any(seat.member_id == organiser.pk for seat in seats):
        raise OwnMatch(OwnMatch.RULING)


def _record(
    match: Match, organiser: Any, kind: str, reason: str, now: datetime, **details: Any
) -> OrganiserAction:
    return OrganiserAction.objects.create(
        match=match,
        organiser=organiser,
        kind=kind,
        reason=reason,
        details=details,
        created_at=now,
    )


@dataclass
class _Change:
    """A fixture locked for an organiser's change: its row, its seats, the moment, and the
    events to publish once the change (or only the deadlines it applied) has committed."""

    match: Match
    seats: list[Seat]
    now: datetime
    events: list[Event]


@contextmanager
def _locked_for_change(match_id: int, *, now: datetime | None) -> Iterator[_Change]:
    """Lock the match row and its seats and apply any deadline that has passed, then yield.

    A refusal (a ``ServiceError``) raised in the block undoes only the block's own writes
    (a savepoint): the deadlines applied first stand, are committed and announced, and the
    refusal is raised after the commit. Events are published only after commit.
    """
    refusal: ServiceError | None = None
    with transaction.atomic():
        match = locked_match(match_id)
        seats = locked_seats(match)
        change = _Change(match, seats, now or _now(), [])
        change.events += apply_deadlines(match, seats, now=change.now)
        try:
            with transaction.atomic():
                yield change
        except ServiceError as error:
            refusal = error
        publish_on_commit(change.events)
    if refusal is not None:
        raise refusal


def fixture_reschedule(
    *,
    organiser: Any,
    match_id: int,
    kickoff_at: datetime,
    reason: str,
    now: datetime | None = None,
) -> Match:
    """Move a fixture's kick-off (and its no-show deadline with it) before it has passed.

    Locks the match row. Refused once the kick-off has come (a kick-off passed is applied
    first and stands), when the new time is not ahead, and to an organiser who plays in it.
    Watchers get ``fixture_changed``; each seated player is told the old and new kick-off.
    """
    require_organiser(organiser)
    reason = _reason(reason)
    with _locked_for_change(match_id, now=now) as change:
        match, now = change.match, change.now
        _not_a_player(organiser, change.seats)
        if match.status != Match.Status.SCHEDULED or (
            match.kickoff_at is not None and match.kickoff_at <= now
        ):
            raise FixtureUnchangeable(ALREADY_KICKED_OFF)
        if kickoff_at <= now:
            raise InvalidFixture(KICKOFF_NOT_AHEAD)
        before = match.kickoff_at
        match.kickoff_at = kickoff_at
        match.no_show_at = kickoff_at + match.no_show_window
        match.save(update_fields=["kickoff_at", "no_show_at"])
        action = _record(
            match,
            organiser,
            OrganiserAction.Kind.RESCHEDULE,
            reason,
            now,
            kickoff_before=before.isoformat() if before else None,
            kickoff_after=kickoff_at.isoformat(),
        )
        emit(KickoffMoved(match_id=match.id, action_id=action.pk, seats=seat_facts(change.seats)))
        change.events.append(PublicEvent(match.id, "fixture_changed", visibility.no_news()))
    return change.match


def fixture_cancel(
    *, organiser: Any, match_id: int, reason: str, now: datetime | None = None
) -> Match:
    """Cancel a fixture before its kick-off: it ends with no result (``cancelled``).

    Locks the match and its seats. Refused once the match has kicked off or is over, and to
    an organiser who plays in it.
    """
    require_organiser(organiser)
    reason = _reason(reason)
    with _locked_for_change(match_id, now=now) as change:
        _not_a_player(organiser, change.seats)
        if change.match.status != Match.Status.SCHEDULED:
            raise FixtureUnchangeable(CANCEL_TOO_LATE)
        change.events += finish_match(
            change.match,
            change.seats,
            result=Match.Result.NONE,
            reason=Match.EndReason.CANCELLED,
            now=change.now,
            status=Match.Status.ABANDONED,
        )
        _record(change.match, organiser, OrganiserAction.Kind.CANCEL, reason, change.now)
    return change.match


def match_adjudicate(
    *, organiser: Any, match_id: int, ruling: str, reason: str, now: datetime | None = None
) -> Match:
    """End a live (or stalled) match by an organiser's ruling: a win for either seat, a
    draw, or ``void`` (no result, unrated). The reason is shown on the match page.

    Locks the match and its seats. The scores stay as they stood; an awarded result goes
    through ``finish_match`` like any other (a rated one moves both ratings). Refused to an
    organiser who plays in the match.
    """
    require_organiser(organiser)
    reason = _reason(reason)
    if ruling not in RULINGS:
        raise InvalidFixture(NO_SUCH_RULING)
    with _locked_for_change(match_id, now=now) as change:
        match, seats, now = change.match, change.seats, change.now
        _not_a_player(organiser, seats)
        if match.status != Match.Status.LIVE:
            raise FixtureUnchangeable(NOT_LIVE)
        if ruling == "void":
            change.events += finish_match(
                match,
                seats,
                result=Match.Result.NONE,
                reason=Match.EndReason.VOIDED,
                now=now,
                status=Match.Status.ABANDONED,
            )
            _record(match, organiser, OrganiserAction.Kind.VOID, reason, now)
        else:
            change.events += finish_match(
                match, seats, result=ruling, reason=Match.EndReason.ADJUDICATED, now=now
            )
            _record(match, organiser, OrganiserAction.Kind.ADJUDICATE, reason, now, result=ruling)
    return change.match


def fixture_substitute(
    *,
    organiser: Any,
    match_id: int,
    position: int,
    member_id: int,
    reason: str,
    now: datetime | None = None,
) -> Match:
    """Put another member in a seat before the fixture kicks off (a player who cannot
    play). No rack has been dealt yet, so nothing hidden changes hands: once a match is live
    its seats are never handed over (a live seat is resigned, adjudicated or forfeited), so
    nobody can take a seat to read its rack and give it back.

    Locks the match and its seats. Refused once the match has kicked off, for an empty seat,
    for a newcomer who is not an approved member or already sits in the other seat, and to
    an organiser who plays in the fixture or names themself. In a tournament the newcomer
    joins its players (the standings' list); the player replaced stays in it, with any
    other fixtures they have. The newcomer is told of the fixture, the player replaced and
    the opponent of the change; the substitution is on the match page for its watchers.
    """
    require_organiser(organiser)
    reason = _reason(reason)
    if position not in (Seat.Position.FIRST, Seat.Position.SECOND):
        raise InvalidFixture(NO_SUCH_SEAT)
    with _locked_for_change(match_id, now=now) as change:
        match, now = change.match, change.now
        seat, other = change.seats[position], change.seats[1 - position]
        incoming = Member.objects.filter(pk=member_id).first()
        _not_a_player(organiser, change.seats)
        if match.is_over:
            raise FixtureUnchangeable(SUBSTITUTE_OVER)
        if match.status != Match.Status.SCHEDULED:
            raise FixtureUnchangeable(SUBSTITUTE_TOO_LATE)
        if seat.member_id is None:
            raise InvalidFixture(EMPTY_SEAT)
        if member_id == organiser.pk:
            raise OwnMatch(OwnMatch.SEATING)
        if incoming is None or not is_club_member(incoming):
            raise InvalidFixture(NOT_A_MEMBER)
        if incoming.pk == seat.member_id:
            raise InvalidFixture(ALREADY_IN_THIS_SEAT)
        if incoming.pk == other.member_id:
            raise InvalidFixture(BOTH_SIDES)
        _hand_seat_over(change, seat, incoming, organiser, reason)
    return change.match


def _hand_seat_over(
    change: _Change, seat: Seat, incoming: Member, organiser: Any, reason: str
) -> None:
    """Seat ``incoming`` where ``seat``'s player sat (checked by the caller), with its audit
    entry, the three players' notices and the watchers' news."""
    match, now = change.match, change.now
    outgoing = seat.member
    assert outgoing is not None
    seat.member = incoming
    seat.seated_at = now
    seat.save(update_fields=["member", "seated_at"])
    if match.tournament_id is not None:
        match.tournament.players.add(incoming)  # type: ignore[union-attr]
    action = _record(
        match,
        organiser,
        OrganiserAction.Kind.SUBSTITUTE,
        reason,
        now,
        position=seat.position,
        member_before=str(outgoing),
        member_after=str(incoming),
        member_before_id=outgoing.pk,
        member_after_id=incoming.pk,
    )
    emit(
        SeatSubstituted(
            match_id=match.id,
            action_id=action.pk,
            position=seat.position,
            outgoing=SeatFacts(
                position=seat.position, member_id=outgoing.pk, told=outgoing.is_active
            ),
            seats=seat_facts(change.seats),
        )
    )
    change.events.append(PublicEvent(match.id, "fixture_changed", visibility.no_news()))


def round_postpone(
    *,
    organiser: Any,
    tournament_id: int,
    round_number: int,
    by: timedelta,
    reason: str,
    carry_later: bool = False,
    now: datetime | None = None,
) -> list[Match]:
    """Move every fixture of a tournament round that has not kicked off later by ``by``
    (each no-show deadline with it), with an audit entry per fixture and a notice to each
    of its players.

    A round must not end up kicking off after a later round: that is refused
    (:class:`RoundsOutOfOrder`) unless ``carry_later``, which moves every later round's
    fixtures still to kick off by the same interval, so the rounds keep their order and
    their spacing. Fixtures already under way (live or over), and one without a kick-off
    time (it starts when both seats are filled), are left as they are.

    Locks the match rows of the round and of every later round in id order, applying passed
    deadlines to each first. Refused when no fixture of the round is still to kick off, and
    to an organiser who plays in a fixture it would move. Returns the fixtures moved, the
    round's first.
    """
    require_organiser(organiser)
    reason = _reason(reason)
    if by <= timedelta(0):
        raise InvalidFixture(POSTPONE_NOT_LATER)
    if by > timedelta(days=MAX_POSTPONE_DAYS):
        raise InvalidFixture(POSTPONE_TOO_LONG)
    refusal: ServiceError | None = None
    moved: list[Match] = []
    with transaction.atomic():
        ids = list(
            Match.objects.filter(tournament_id=tournament_id, round_number__gte=round_number)
            .order_by("id")
            .values_list("id", flat=True)
        )
        now = now or _now()
        events: list[Event] = []
        locked: list[tuple[Match, list[Seat]]] = []
        for match_id in ids:
            match = locked_match(match_id)
            seats = locked_seats(match)
            events += apply_deadlines(match, seats, now=now)
            locked.append((match, seats))
        this_round = [(m, s) for m, s in locked if m.round_number == round_number]
        later = [(m, s) for m, s in locked if m.round_number != round_number]
        due = [(m, s) for m, s in this_round if _still_to_kick_off(m)]
        if not this_round:
            refusal = InvalidFixture(NO_SUCH_ROUND)
        elif not due:
            refusal = FixtureUnchangeable(ROUND_UNDER_WAY)
        else:
            overtaken = _first_round_overtaken(due, later, by)
            carried = [(m, s) for m, s in later if _still_to_kick_off(m)] if carry_later else []
            if overtaken is not None and not carry_later:
                refusal = RoundsOutOfOrder(
                    f"Round {round_number} would then kick off after round {overtaken}: "
                    "postpone the later rounds with it, or by less."
                )
            elif any(seat.member_id == organiser.pk for _, s in [*due, *carried] for seat in s):
                refusal = OwnMatch(OwnMatch.RULING)
            else:
                for match, seats in [*due, *carried]:
                    carried_with = round_number if match.round_number != round_number else None
                    events += _postpone_one(match, seats, organiser, reason, now, by=by,
                                            carried_with=carried_with)  # fmt: skip
                    moved.append(match)
        publish_on_commit(events)
    if refusal is not None:
        raise refusal
    return moved


def _still_to_kick_off(match: Match) -> bool:
    return match.status == Match.Status.SCHEDULED and match.kickoff_at is not None


def _first_round_overtaken(
    due: list[tuple[Match, list[Seat]]], later: list[tuple[Match, list[Seat]]], by: timedelta
) -> int | None:
    """The first later round that would kick off before the postponed round's last fixture
    (a fixture under way counts from when it kicked off), or None."""
    latest = max(_start(match) for match, _ in due) + by
    overtaken = sorted(
        match.round_number
        for match, _ in later
        if match.round_number is not None
        and (match.kickoff_at or match.opened_at) is not None
        and _start(match) < latest
    )
    return overtaken[0] if overtaken else None


def _start(match: Match) -> datetime:
    """When a fixture kicks off, or did (one without a kick-off time: when it opened)."""
    start = match.kickoff_at or match.opened_at
    assert start is not None
    return start


def _postpone_one(
    match: Match,
    seats: list[Seat],
    organiser: Any,
    reason: str,
    now: datetime,
    *,
    by: timedelta,
    carried_with: int | None,
) -> list[Event]:
    """One fixture of a postponement: its kick-off and no-show deadline later by ``by``, its
    audit entry (its round, and the earlier round postponed that carried it), its players
    told."""
    before = match.kickoff_at
    assert before is not None
    match.kickoff_at = before + by
    match.no_show_at = match.kickoff_at + match.no_show_window
    match.save(update_fields=["kickoff_at", "no_show_at"])
    action = _record(
        match,
        organiser,
        OrganiserAction.Kind.POSTPONE,
        reason,
        now,
        round_number=match.round_number,
        postponed_by_seconds=int(by.total_seconds()),
        **({"carried_with_round": carried_with} if carried_with is not None else {}),
        kickoff_before=before.isoformat(),
        kickoff_after=match.kickoff_at.isoformat(),
    )
    emit(KickoffMoved(match_id=match.id, action_id=action.pk, seats=seat_facts(seats)))
    return [PublicEvent(match.id, "fixture_changed", visibility.no_news())]


# ---------------------------------------------------------------- a player withdrawn


SUBSTITUTE_IS_THE_PLAYER = "Choose another member to take their seats."


@dataclass(frozen=True)
class Settled:
    """What became of one fixture of a withdrawn player."""

    match_id: int
    #: ``substituted``, ``cancelled`` (not kicked off) or ``lost`` (a live match).
    outcome: str


def member_withdraw(
    *,
    organiser: Any,
    member_id: int,
    reason: str,
    substitute_id: int | None = None,
    now: datetime | None = None,
) -> list[Settled]:
    """Take a member out of every fixture of theirs that is not over (they leave the club,
    or cannot play on), as RULES.md section 3 says:

    - with a ``substitute``, that member takes their seat in each fixture not yet kicked
      off (as :func:`fixture_substitute`; not where the substitute holds the other seat);
    - any other fixture not yet kicked off is cancelled: no result, counts for nobody;
    - every live match ends at once as a win for the opponent (``withdrawn``): a live seat
      is never handed over.

    Refused, before anything is settled, to an organiser who plays in one of these
    fixtures or names themself as the substitute. Each fixture is settled under its own
    match lock, in id order, with its audit entry (a substitution, or ``withdraw``) and its
    players' notices; called inside a larger transaction (a removal from the club),
    everything commits or nothing does. Returns what became of each fixture.
    """
    require_organiser(organiser)
    reason = _reason(reason)
    substitute = None
    if substitute_id is not None:
        substitute = Member.objects.filter(pk=substitute_id).first()
        if substitute is None or not is_club_member(substitute):
            raise InvalidFixture(NOT_A_MEMBER)
        if substitute.pk == member_id:
            raise InvalidFixture(SUBSTITUTE_IS_THE_PLAYER)
        if substitute.pk == organiser.pk:
            raise OwnMatch(OwnMatch.SEATING)
    held = list(
        Seat.objects.filter(
            member_id=member_id, match__status__in=[Match.Status.SCHEDULED, Match.Status.LIVE]
        )
        .order_by("match_id")
        .values_list("match_id", flat=True)
    )
    if Seat.objects.filter(match_id__in=held, member_id=organiser.pk).exists():
        raise OwnMatch(OwnMatch.RULING)
    settled = []
    for match_id in held:
        outcome = _withdraw_from(match_id, member_id, organiser, reason, substitute, now=now)
        if outcome is not None:
            settled.append(Settled(match_id, outcome))
    return settled


def _withdraw_from(
    match_id: int,
    member_id: int,
    organiser: Any,
    reason: str,
    substitute: Member | None,
    *,
    now: datetime | None,
) -> str | None:
    with _locked_for_change(match_id, now=now) as change:
        match, seats = change.match, change.seats
        seat = next((s for s in seats if s.member_id == member_id), None)
        if seat is None or match.is_over:
            return None  # ended meanwhile (a deadline applied first), or not theirs now
        _not_a_player(organiser, seats)
        other = seats[1 - seat.position]
        scheduled = match.status == Match.Status.SCHEDULED
        if substitute is not None and scheduled and other.member_id != substitute.pk:
            _hand_seat_over(change, seat, substitute, organiser, reason)
            return "substituted"
        player = str(seat.member)
        if scheduled:
            change.events += finish_match(
                match,
                seats,
                result=Match.Result.NONE,
                reason=Match.EndReason.CANCELLED,
                now=change.now,
                status=Match.Status.ABANDONED,
            )
            outcome = "cancelled"
        else:
            winner = Match.Result.FIRST if seat.position == 1 else Match.Result.SECOND
            change.events += finish_match(
                match, seats, result=winner, reason=Match.EndReason.WITHDRAWN, now=change.now
            )
            outcome = "lost"
        _record(
            match,
            organiser,
            OrganiserAction.Kind.WITHDRAW,
            reason,
            change.now,
            position=seat.position,
            member=player,
            outcome=outcome,
        )
        return outcome
    return None  # (a refusal is raised by the block; nothing else gets here)
