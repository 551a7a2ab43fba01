"""Every change to a match, one function each, one transaction each.

Each function locks the match row (``select_for_update``), applies any deadline that has
passed (time is data: see :func:`_apply_deadlines`), checks, writes, and publishes its events
with ``transaction.on_commit``. Consumers, views, admin actions and Celery tasks call these;
nothing else writes a match.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import Member
from lexicon.lexicon import get_lexicon
from matches import visibility
from matches.engine import (
    Game,
    MatchOver,
    MoveError,
    NotKickedOff,
    NotYourTurn,
    StaleTurn,
    get_ruleset,
    move_from_dict,
)
from matches.events import Event, PrivateEvent, PublicEvent, publish_on_commit
from matches.models import CommitReceipt, Match, Seat, Tournament, Turn

logger = logging.getLogger(__name__)

SWEEP_BATCH = 50


class ServiceError(Exception):
    """A request was refused; nothing changed. ``str()`` is the message for the user."""


class NotAllowed(ServiceError):
    """The requester may not do this."""


class SeatUnavailable(ServiceError):
    """The seat cannot be taken."""


# ---------------------------------------------------------------- helpers


def _now() -> datetime:
    return timezone.now()


def _locked(match_id: int) -> Match:
    return Match.objects.select_for_update().get(pk=match_id)


def _seats(match: Match) -> list[Seat]:
    """Both seats, locked, with their members (read by the events' payloads)."""
    locked = Seat.objects.select_for_update(of=("self",)).select_related("member")
    seats = list(locked.filter(match=match).order_by("position"))
    assert [seat.position for seat in seats] == [0, 1], "every match has exactly two seats"
    return seats


def _require_organiser(member: Member) -> None:
    if not (member.is_authenticated and member.is_organiser):
        raise NotAllowed("Only organisers can do that.")


def _game(match: Match) -> Game:
    return Game.from_json(match.game_state)


#: What a move that does not end the match changes on its row.
MOVE_FIELDS = [
    "game_state",
    "turn_number",
    "bag_count",
    "to_move",
    "turn_started_at",
    "turn_deadline_at",
]


def _store_game(match: Match, seats: list[Seat], game: Game) -> None:
    """Write the game value and its public mirrors (turn, bag, racks, scores)."""
    match.game_state = game.to_json()
    match.turn_number = game.turn_number
    match.bag_count = game.bag_count
    match.to_move = None if game.is_over else game.to_move
    for seat in seats:
        rack, score = "".join(game.racks[seat.position]), game.scores[seat.position]
        if (seat.rack, seat.score) != (rack, score):  # most moves leave one seat as it was
            seat.rack, seat.score = rack, score
            seat.save(update_fields=["rack", "score"])


def _salt(seats: list[Seat]) -> bytes:
    return b"".join(bytes.fromhex(seat.contribution) for seat in seats)


def _open(match: Match, seats: list[Seat], *, at: datetime, now: datetime) -> list[Event]:
    """Deal the racks and go live; the first move's deadline runs from ``at`` (kick-off)."""
    for seat in seats:
        if not seat.contribution:  # the server contributes for a seat that did not
            seat.contribution = secrets.token_hex(16)
            seat.save(update_fields=["contribution"])
    game = Game.new(ruleset=match.ruleset, seed=bytes.fromhex(match.bag_seed), salt=_salt(seats))
    _store_game(match, seats, game)
    match.status = Match.Status.LIVE
    match.opened_at = now
    match.turn_started_at = at
    match.turn_deadline_at = at + settings.FORFEIT_AFTER
    match.save()
    events: list[Event] = [
        PublicEvent(match.id, "opened", visibility.public_snapshot(match)),
    ]
    events += [
        PrivateEvent(match.id, seat.member_id, "rack", visibility.rack_payload(match, seat))
        for seat in seats
        if seat.member_id
    ]
    return events


def _finish(
    match: Match, *, result: str, reason: str, now: datetime, status: str = Match.Status.FINISHED
) -> list[Event]:
    match.status = status
    match.result = result
    match.end_reason = reason
    match.finished_at = now
    match.to_move = None
    match.turn_deadline_at = None
    match.save()
    return [PublicEvent(match.id, "ended", visibility.result_payload(match))]


def _apply_deadlines(match: Match, seats: list[Seat], *, now: datetime) -> list[Event]:
    """Make every deadline that has passed by ``now`` happen, from stored timestamps.

    Called under the match lock by every service and sweep, so the outcome never depends
    on when a sweep last ran. Kick-off opens a full match; an empty seat at the no-show
    deadline loses by default (both empty: abandoned); a turn past its deadline forfeits.
    """
    events: list[Event] = []
    if match.status == Match.Status.SCHEDULED and match.kickoff_at and match.kickoff_at <= now:
        filled = [seat for seat in seats if seat.member_id]
        if len(filled) == 2:
            events += _open(match, seats, at=match.kickoff_at, now=now)
        elif match.no_show_at and match.no_show_at <= now:
            if filled:
                winner = "first" if filled[0].position == 0 else "second"
                events += _finish(match, result=winner, reason=Match.EndReason.NO_SHOW, now=now)
            else:
                events += _finish(
                    match,
                    result=Match.Result.NONE,
                    reason=Match.EndReason.ABANDONED,
                    now=now,
                    status=Match.Status.ABANDONED,
                )
    if (
        match.status == Match.Status.LIVE
        and match.turn_deadline_at
        and match.turn_deadline_at <= now
    ):
        winner = "second" if match.to_move == 0 else "first"
        events += _finish(match, result=winner, reason=Match.EndReason.FORFEIT, now=now)
    return events


# ---------------------------------------------------------------- fixtures


def _new_match(
    *,
    name: str,
    organiser: Member | None,
    kickoff_at: datetime | None,
    ruleset: str,
    lexicon: str,
    visibility_: str,
    no_show_window: timedelta | None,
    tournament: Tournament | None = None,
    round_number: int | None = None,
) -> Match:
    get_ruleset(ruleset)  # raises for an unknown name
    window = no_show_window if no_show_window is not None else settings.NO_SHOW_WINDOW
    if window <= timedelta(0):
        raise ServiceError("The no-show window must be positive.")
    name = name.strip()
    if not name:
        raise ServiceError("A fixture needs a name.")
    match = Match.objects.create(
        name=name[:120],
        tournament=tournament,
        round_number=round_number,
        created_by=organiser,
        ruleset=ruleset,
        lexicon=lexicon,
        visibility=visibility_,
        kickoff_at=kickoff_at,
        no_show_window=window,
        no_show_at=kickoff_at + window if kickoff_at else None,
    )
    Seat.objects.bulk_create([Seat(match=match, position=0), Seat(match=match, position=1)])
    return match


def create_fixture(
    *,
    organiser: Member,
    name: str,
    kickoff_at: datetime | None = None,
    first: Member | None = None,
    second: Member | None = None,
    ruleset: str = "word-duel",
    lexicon: str = "enable",
    visibility_: str = Match.Visibility.PUBLIC,
    no_show_window: timedelta | None = None,
) -> Match:
    """Schedule a fixture, seating none, one or both players. Creates the match row."""
    _require_organiser(organiser)
    if first is not None and first == second:
        raise ServiceError("A member cannot sit on both sides of a fixture.")
    try:
        get_lexicon(lexicon)
    except LookupError as exc:
        raise ServiceError(f"There is no word list called {lexicon!r}.") from exc
    with transaction.atomic():
        match = _new_match(
            name=name,
            organiser=organiser,
            kickoff_at=kickoff_at,
            ruleset=ruleset,
            lexicon=lexicon,
            visibility_=visibility_,
            no_show_window=no_show_window,
        )
        now = _now()
        seats = _seats(match)
        for seat, member in zip(seats, (first, second), strict=True):
            if member is not None:
                seat.member = member
                seat.seated_at = now
                seat.save(update_fields=["member", "seated_at"])
        events = _after_seating(match, seats, now=now)
        publish_on_commit(events)
    return match


def round_robin_pairings(players: Sequence[Any], *, double: bool = False) -> list[list[tuple]]:
    """Rounds of (first, second) pairs by the circle method; a bye where the count is odd.

    Every pair meets once (twice with seats swapped when ``double``); seats alternate so each
    player sits First about as often as Second.
    """
    entrants: list[Any] = list(players)
    if len(entrants) % 2:
        entrants.append(None)  # the bye
    n = len(entrants)
    rounds: list[list[tuple]] = []
    for r in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = entrants[i], entrants[n - 1 - i]
            if a is None or b is None:
                continue
            pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(pairs)
        entrants = [entrants[0], entrants[-1], *entrants[1:-1]]
    if double:
        rounds += [[(b, a) for a, b in pairs] for pairs in rounds]
    return rounds


def create_round_robin(
    *,
    organiser: Member,
    name: str,
    players: Sequence[Member],
    first_kickoff: datetime,
    interval: timedelta,
    double: bool = False,
    ruleset: str = "word-duel",
    lexicon: str = "enable",
    visibility_: str = Match.Visibility.PUBLIC,
    no_show_window: timedelta | None = None,
) -> Tournament:
    """Create a tournament and all its fixtures, both seats filled, one round per interval."""
    _require_organiser(organiser)
    unique_players = list(dict.fromkeys(players))
    if len(unique_players) != len(players):
        raise ServiceError("Each player can be entered only once.")
    if len(unique_players) < 2:
        raise ServiceError("A round robin needs at least two players.")
    if interval < timedelta(0):
        raise ServiceError("The interval between rounds cannot be negative.")
    with transaction.atomic():
        tournament = Tournament.objects.create(name=name.strip()[:120], organiser=organiser)
        tournament.players.set(unique_players)
        for round_index, pairs in enumerate(round_robin_pairings(unique_players, double=double)):
            kickoff = first_kickoff + interval * round_index
            for first, second in pairs:
                match = _new_match(
                    name=f"{tournament.name} · Round {round_index + 1}: {first} v {second}",
                    organiser=organiser,
                    kickoff_at=kickoff,
                    ruleset=ruleset,
                    lexicon=lexicon,
                    visibility_=visibility_,
                    no_show_window=no_show_window,
                    tournament=tournament,
                    round_number=round_index + 1,
                )
                Seat.objects.filter(match=match, position=0).update(member=first, seated_at=_now())
                Seat.objects.filter(match=match, position=1).update(member=second, seated_at=_now())
    return tournament


def _after_seating(match: Match, seats: list[Seat], *, now: datetime) -> list[Event]:
    """Open a match whose seats are now full: at once after kick-off, or with no kick-off."""
    if match.status != Match.Status.SCHEDULED or not all(seat.member_id for seat in seats):
        return []
    if match.kickoff_at is None:
        return _open(match, seats, at=now, now=now)
    if match.kickoff_at <= now:
        return _open(match, seats, at=match.kickoff_at, now=now)
    return []


def _seat_refusal(
    match: Match, seats: list[Seat], member: Member, position: int | None, *, now: datetime
) -> str | None:
    if match.is_over:
        return "This match is over."
    if match.no_show_at and match.no_show_at <= now:
        return "The seats of this match can no longer be taken."
    if any(seat.member_id == member.pk for seat in seats):
        return "You already have a seat in this match."
    if position is not None and position not in (0, 1):
        return "There is no such seat."
    free = [s for s in seats if s.member_id is None and position in (None, s.position)]
    if not free:
        return "That seat is taken." if position is not None else "Both seats are taken."
    return None


def match_take_seat(*, match_id: int, member: Member, position: int | None = None) -> Seat:
    """Seat ``member`` in a free seat (the given one, or the first free). Locks the match.

    A deadline that has already passed is applied first and stands even when the seat is
    refused (a late arrival finds the no-show already decided).
    """
    if not member.is_authenticated:
        raise NotAllowed("Sign in to take a seat.")
    with transaction.atomic():
        match = _locked(match_id)
        now = _now()
        seats = _seats(match)
        events = _apply_deadlines(match, seats, now=now)
        refusal = _seat_refusal(match, seats, member, position, now=now)
        if refusal is None:
            seat = next(s for s in seats if s.member_id is None and position in (None, s.position))
            seat.member = member
            seat.seated_at = now
            seat.save(update_fields=["member", "seated_at"])
            events.append(
                PublicEvent(match.id, "seat_taken", visibility.seats_payload(match, seats))
            )
            events += _after_seating(match, seats, now=now)
        publish_on_commit(events)
    if refusal is not None:
        raise SeatUnavailable(refusal)
    return seat


def match_rotate_viewing_key(*, match_id: int, member: Member) -> str:
    """Give a match a new viewing key, cutting off the old link. Organisers only."""
    with transaction.atomic():
        match = _locked(match_id)
        if not (
            member.is_authenticated and (member.is_organiser or match.created_by_id == member.pk)
        ):
            raise NotAllowed("Only the organiser can change the viewing key.")
        match.viewing_key = secrets.token_urlsafe(32)
        match.save(update_fields=["viewing_key"])
        publish_on_commit([PublicEvent(match.id, "key_rotated", {})])
        return match.viewing_key


def _deadline_passed(match: Match, now: datetime) -> bool:
    """Whether :func:`_apply_deadlines` could change ``match`` at ``now``."""
    if match.status == Match.Status.SCHEDULED:
        return match.kickoff_at is not None and match.kickoff_at <= now
    return (
        match.status == Match.Status.LIVE
        and match.turn_deadline_at is not None
        and match.turn_deadline_at <= now
    )


def match_apply_deadlines(*, match_id: int, now: datetime | None = None) -> Match:
    """Apply any passed deadline (used by page loads and connects).

    Locks the match only when a deadline has passed: a plain read answers the usual case,
    so viewers arriving together (a thousand spectators of one match) do not queue on the
    row lock and a commit each. What was not due at the read is treated as a moment earlier.
    """
    now = now or _now()
    match = Match.objects.get(pk=match_id)
    if not _deadline_passed(match, now):
        return match
    with transaction.atomic():
        match = _locked(match_id)
        if match.is_over:
            return match
        seats = _seats(match)
        publish_on_commit(_apply_deadlines(match, seats, now=now))
        return match


# ---------------------------------------------------------------- play


@dataclass(frozen=True)
class CommitOutcome:
    """What the sender of a commit learns; ``ack`` holds their own rack and nothing else's."""

    accepted: bool
    code: str
    message: str
    ack: dict[str, Any] = field(default_factory=dict)
    replayed: bool = False


def _refusal(error: MoveError) -> CommitOutcome:
    return CommitOutcome(
        False, error.code, error.message, {"code": error.code, "message": error.message}
    )


def match_commit(
    *,
    match_id: int,
    member: Member,
    move: dict[str, Any],
    against_turn: int,
    client_id: str,
    now: datetime | None = None,
) -> CommitOutcome:
    """Apply a play, swap or pass made against turn ``against_turn``. Locks the match.

    The checks run in RULES.md's order; the first that fails is the answer and nothing
    changes (except a deadline that had already passed, which stands). A repeated
    ``client_id`` from the same member answers what it answered the first time.
    """
    with transaction.atomic():
        match = _locked(match_id)
        receipt = CommitReceipt.objects.filter(
            match=match, member=member, client_id=client_id
        ).first()
        if receipt is not None:
            return CommitOutcome(
                receipt.accepted,
                receipt.response.get("code", "accepted"),
                receipt.response.get("message", ""),
                receipt.response,
                replayed=True,
            )
        ruleset = get_ruleset(match.ruleset)
        now = now or _now()
        seats = _seats(match)
        events = _apply_deadlines(match, seats, now=now)
        seat = next((s for s in seats if s.member_id == member.pk), None)
        try:
            if match.status == Match.Status.SCHEDULED:
                raise NotKickedOff
            if match.is_over:
                raise MatchOver
            if seat is None or seat.position != match.to_move:
                raise NotYourTurn
            if against_turn != match.turn_number:
                raise StaleTurn
            parsed = move_from_dict(move, board_size=ruleset.board_size)  # rule 4 on
            lexicon = get_lexicon(match.lexicon, max_len=ruleset.lexicon_max_len)
            game = _game(match).apply(parsed, player=seat.position, lexicon=lexicon)
        except MoveError as error:
            outcome = _refusal(error)
            if seat is not None:
                CommitReceipt.objects.create(
                    match=match,
                    member=member,
                    client_id=client_id,
                    accepted=False,
                    response=outcome.ack,
                )
            publish_on_commit(events)
            return outcome
        turn, recorded = _record_turn(match, seats, game, client_id=client_id, now=now)
        events += recorded
        ack = visibility.commit_ack(match, seat, turn)
        CommitReceipt.objects.create(
            match=match, member=member, client_id=client_id, accepted=True, response=ack
        )
        publish_on_commit(events)
        return CommitOutcome(True, "accepted", "", ack)


def _record_turn(
    match: Match, seats: list[Seat], game: Game, *, client_id: str, now: datetime
) -> tuple[Turn, list[Event]]:
    """Write the turn just applied to ``game``, move the clock on, and say what happened."""
    record = game.turns[-1]
    _store_game(match, seats, game)
    move = record.move.to_dict()
    swapped = "".join(move["tiles"]) if record.kind == Turn.Kind.SWAP else ""
    turn = Turn.objects.create(
        match=match,
        number=game.turn_number,
        position=record.player,
        kind=record.kind,
        placement=move["tiles"] if record.kind == Turn.Kind.PLAY else [],
        swap_count=len(swapped),
        words=[
            {"word": word.word, "tiles": word.tiles, "position": word.position, "score": word.score}
            for word in record.words
        ],
        score=record.score,
        first_total=record.totals[0],
        second_total=record.totals[1],
        bag_count=game.bag_count,
        rack_before="".join(record.rack_before),
        swapped=swapped,
        drawn="".join(record.drawn),
        client_id=client_id,
        created_at=now,
    )
    # The payloads read the seats locked above, with their members: no query of their own.
    payload = visibility.turn_payload(match, turn, seats)
    events: list[Event] = [PublicEvent(match.id, "turn", payload)]
    mover = seats[record.player]
    events.append(
        PrivateEvent(match.id, mover.member_id, "rack", visibility.rack_payload(match, mover))
    )
    if game.is_over:
        result = {0: "first", 1: "second"}.get(game.winner, "draw")
        events += _finish(match, result=result, reason=game.end_reason, now=now)
    else:
        match.turn_started_at = now
        match.turn_deadline_at = now + settings.FORFEIT_AFTER
        match.save(update_fields=MOVE_FIELDS)  # not the ~30 columns a move leaves alone
    return turn, events


# ---------------------------------------------------------------- the clock sweeps


def due_batch(
    *, status: str, deadline: str, now: datetime, after: tuple[datetime, int] | None = None
) -> QuerySet[Match]:
    """The next batch of due rows after the cursor ``after``, locked, skipping locked ones."""
    due = Match.objects.select_for_update(skip_locked=True).filter(
        status=status, **{f"{deadline}__lte": now}
    )
    if after is not None:
        due = due.filter(
            Q(**{f"{deadline}__gt": after[0]}) | Q(**{deadline: after[0], "pk__gt": after[1]})
        )
    return due.order_by(deadline, "pk")[:SWEEP_BATCH]


def _sweep(*, status: str, deadline: str, now: datetime, limit: int) -> list[int]:
    """Apply deadlines to due matches, a batch per transaction; return the changed ids.

    Due rows come off the partial deadline index in deadline order, claimed with
    ``skip_locked`` so two sweeps running at once share the work instead of waiting on each
    other. The condition is re-checked under the lock, so a match changes once however many
    sweeps see it; a row that is due but cannot change yet (a kick-off with a seat still
    empty) is passed over by the (deadline, id) cursor.
    """
    changed: list[int] = []
    cursor: tuple[datetime, int] | None = None
    while len(changed) < limit:
        with transaction.atomic():
            batch = list(due_batch(status=status, deadline=deadline, now=now, after=cursor))
            if not batch:
                break
            cursor = (getattr(batch[-1], deadline), batch[-1].pk)
            events: list[Event] = []
            for match in batch:
                status_before = match.status
                events += _apply_deadlines(match, _seats(match), now=now)
                if match.status != status_before:
                    changed.append(match.pk)
            publish_on_commit(events)
    return changed


def open_due_matches(*, now: datetime | None = None, limit: int = 500) -> list[int]:
    """Open every scheduled, full match whose kick-off has come."""
    return _sweep(
        status=Match.Status.SCHEDULED, deadline="kickoff_at", now=now or _now(), limit=limit
    )


def default_no_shows(*, now: datetime | None = None, limit: int = 500) -> list[int]:
    """Settle every scheduled match whose no-show deadline passed with a seat empty."""
    return _sweep(
        status=Match.Status.SCHEDULED, deadline="no_show_at", now=now or _now(), limit=limit
    )


def forfeit_stalled_matches(*, now: datetime | None = None, limit: int = 500) -> list[int]:
    """Forfeit every live match whose player to move has let their turn deadline pass."""
    return _sweep(
        status=Match.Status.LIVE, deadline="turn_deadline_at", now=now or _now(), limit=limit
    )


def run_clock(*, now: datetime | None = None) -> dict[str, list[int]]:
    """All three sweeps, in the order the rules apply them."""
    now = now or _now()
    return {
        "opened": open_due_matches(now=now),
        "no_shows": default_no_shows(now=now),
        "forfeits": forfeit_stalled_matches(now=now),
    }


# ---------------------------------------------------------------- the verifiable bag

CONTRIBUTION_MIN_BYTES = 16
CONTRIBUTION_MAX_BYTES = 32
_HEX_DIGITS = frozenset("0123456789abcdef")


def _contribution_refusal(value_hex: object) -> str | None:
    """Why ``value_hex`` is not 16-32 bytes written as hex digits, or None when it is."""
    if not isinstance(value_hex, str):
        return "Send your random value as a string of hex digits."
    value = value_hex.strip().lower()
    low, high = CONTRIBUTION_MIN_BYTES, CONTRIBUTION_MAX_BYTES
    if not value or not set(value) <= _HEX_DIGITS or len(value) % 2:
        return f"The value must be {low} to {high} bytes written in hex (0-9, a-f)."
    if not low <= len(value) // 2 <= high:
        return f"The value must be {low} to {high} bytes ({2 * low} to {2 * high} hex digits)."
    return None


def match_contribute_entropy(*, match_id: int, member: Member, value_hex: str) -> Seat:
    """Add a seated player's own random value to the bag's stream, before the deal. Locks.

    The draws are keyed by the server's committed seed over both seats' values, so a player
    who contributes knows the server could not have picked the bag to suit itself after
    seeing theirs. Once per seat, only while the match is scheduled; a deadline that has
    passed is applied first and stands even when the value is refused.
    """
    if not getattr(member, "is_authenticated", False):
        raise NotAllowed("Sign in to add your randomness to the bag.")
    with transaction.atomic():
        try:
            match = _locked(match_id)
        except Match.DoesNotExist:
            raise ServiceError("There is no such match.") from None
        seats = _seats(match)
        events = _apply_deadlines(match, seats, now=_now())
        seat = next((s for s in seats if s.member_id == member.pk), None)
        refusal: ServiceError | None = None
        if seat is None:
            refusal = NotAllowed("Only a player seated in this match can add to its bag.")
        elif match.status == Match.Status.LIVE:
            refusal = ServiceError("The tiles have already been dealt.")
        elif match.status != Match.Status.SCHEDULED:
            refusal = ServiceError("This match is over.")
        elif seat.contribution:
            refusal = ServiceError("Your seat has already added its value to the bag.")
        elif (reason := _contribution_refusal(value_hex)) is not None:
            refusal = ServiceError(reason)
        else:
            seat.contribution = value_hex.strip().lower()
            seat.save(update_fields=["contribution"])
        publish_on_commit(events)
    if refusal is not None:
        raise refusal
    return seat
