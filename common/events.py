"""Domain events: the one seam between the core and the features that follow from it.

A service says what happened by emitting an event (:func:`emit`); the apps that care
subscribe in their ``AppConfig.ready()`` (:func:`subscribe`). The core never names a feature
app: notifications, ratings, practice and the rest learn of a move, a result or a removed
member here, so a new feature joins without touching the services.

Events carry facts (ids, positions, results), never model instances, so a subscriber cannot
read a hidden field by accident and the same event means the same thing after commit. Two
phases, chosen by the subscriber:

- ``Phase.IN_TRANSACTION``: called at once, inside the emitting service's transaction and
  under its locks, for what must commit or roll back with the change (a rating moved by a
  result, a notice recorded for a move). An exception here rolls the change back.
- ``Phase.AFTER_COMMIT`` (the default): called once the transaction has committed, for side
  effects that must not happen for a change that rolled back (queueing the computer's turn).
  A failing subscriber is logged and does not stop the others (``robust``).

Emitted outside a transaction, after-commit subscribers run at once (Django's ``on_commit``).
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, TypeVar

from django.db import transaction
from django.db.models import Model


class Phase(enum.Enum):
    """When a subscriber runs: with the change, or after it committed."""

    IN_TRANSACTION = "in_transaction"
    AFTER_COMMIT = "after_commit"


class RowSink(Protocol):
    """Rows a service writes together with its own change (one statement for a move)."""

    def insert(self, instance: Model, *, ignore_conflicts: bool = False) -> None: ...


@dataclass(frozen=True)
class SeatFacts:
    """Who sits in one seat, as every subscriber may know it."""

    position: int
    member_id: int | None
    #: The member hears of their matches (not an account that cannot sign in, such as the
    #: computer's in a practice match).
    told: bool


@dataclass(frozen=True)
class DomainEvent:
    """Something that happened; each kind below is a frozen dataclass of facts."""


@dataclass(frozen=True)
class MatchOpened(DomainEvent):
    """Kick-off: the racks are dealt and ``to_move`` is to play turn ``turn_number``."""

    match_id: int
    turn_number: int
    to_move: int
    seats: tuple[SeatFacts, ...]


@dataclass(frozen=True)
class TurnRecorded(DomainEvent):
    """A move was recorded. ``to_move`` plays next (None once the move ended the match);
    ``rows`` takes rows to write with the move's own, in the same statement (None when the
    move ended the match: its rows are written before the match is finished)."""

    match_id: int
    turn_number: int
    mover: int
    to_move: int | None
    seats: tuple[SeatFacts, ...]
    rows: RowSink | None


@dataclass(frozen=True)
class PlayChallenged(DomainEvent):
    """Seat ``by`` challenged the play of seat ``player`` made as turn ``turn_number``:
    ``withdrawn`` when it was a phony (taken back). ``to_move`` plays next (None once
    the match is over)."""

    match_id: int
    turn_number: int
    player: int
    by: int
    withdrawn: bool
    to_move: int | None
    seats: tuple[SeatFacts, ...]
    #: The match's turn number after the challenge, and whether the turn moved on to a new
    #: player (a lost turn taken, or a game that the play had ended resumed).
    turn_now: int = 0
    moved_on: bool = False


@dataclass(frozen=True)
class MatchFinished(DomainEvent):
    """A match ended (played out, resigned, forfeited, adjudicated, abandoned)."""

    match_id: int
    result: str
    reason: str
    rated: bool
    seats: tuple[SeatFacts, ...]


@dataclass(frozen=True)
class RoundDealt(DomainEvent):
    """Round ``number`` of Word Skill rounds match ``rounds_match_id`` (its ``name``) was
    dealt: each member in ``member_ids`` may start it now."""

    rounds_match_id: int
    name: str
    number: int
    member_ids: tuple[int, ...]


@dataclass(frozen=True)
class RoundsMatchEnded(DomainEvent):
    """A Word Skill rounds match ended: each member's place (1: won; level totals share)."""

    rounds_match_id: int
    rated: bool
    places: tuple[tuple[int, int], ...]
    #: Whether Gramma Ana played, and her place.
    gramma_place: int | None


@dataclass(frozen=True)
class FixtureScheduled(DomainEvent):
    """A match was scheduled with these members seated (a fixture, a challenge's match)."""

    match_id: int
    member_ids: tuple[int, ...]


@dataclass(frozen=True)
class PairedMatch:
    """One match of a newly paired round and who is seated in it."""

    match_id: int
    seats: tuple[SeatFacts, ...]


@dataclass(frozen=True)
class RoundPaired(DomainEvent):
    """Round ``round_number`` of a tournament was paired (a Swiss round, a knockout round):
    its new matches, each with its seated members. Emitted after each match's own
    ``FixtureScheduled``, in the same transaction."""

    tournament_id: int
    round_number: int
    matches: tuple[PairedMatch, ...]


@dataclass(frozen=True)
class KickoffMoved(DomainEvent):
    """An organiser moved a fixture's kick-off (``action_id``: the reschedule or the round's
    postponement, as recorded)."""

    match_id: int
    action_id: int
    seats: tuple[SeatFacts, ...]


@dataclass(frozen=True)
class SeatSubstituted(DomainEvent):
    """An organiser put ``incoming`` in ``outgoing``'s seat at ``position``."""

    match_id: int
    action_id: int
    position: int
    outgoing: SeatFacts
    seats: tuple[SeatFacts, ...]


@dataclass(frozen=True)
class ChallengePosted(DomainEvent):
    """A member posted a friendly challenge; ``opponent_id`` is the member it is addressed
    to (None: open to anyone)."""

    challenge_id: int
    opponent_id: int | None


@dataclass(frozen=True)
class RematchOffered(DomainEvent):
    """A player of finished ``match_id`` offered a rematch to the other, ``member_id``."""

    match_id: int
    member_id: int


@dataclass(frozen=True)
class MemberRemoved(DomainEvent):
    """An organiser took an approved member out of the club (``by_id``). Emitted in the
    removal's transaction: what they play is settled with it (``substitute_id`` takes their
    seats in fixtures not yet kicked off), and a refusal rolls the removal back."""

    member_id: int
    by_id: int
    reason: str
    substitute_id: int | None


@dataclass(frozen=True)
class MemberLeaving(DomainEvent):
    """A member is deleting their account: their unfinished matches are settled first, each
    under its own lock (so emitted outside a transaction). Subscribers that settle a match
    add its id to ``settled``, which the member is told the count of."""

    member_id: int
    settled: list[int]


@dataclass(frozen=True)
class MemberForgotten(DomainEvent):
    """A deleted member's account was anonymised: every row that is only about them (not a
    game shared with others) goes, in the same transaction."""

    member_id: int


@dataclass(frozen=True)
class GuestAdopted(DomainEvent):
    """A visitor who played as a guest signed up in the same browser: what the guest held
    becomes ``member_id``'s, in the adoption's transaction (``Phase.IN_TRANSACTION``), before
    the guest's account is retired."""

    guest_id: int
    member_id: int


@dataclass(frozen=True)
class SessionsEnded(DomainEvent):
    """A member's sessions ended (all of them, or the one ``session_key``: signed out,
    signed out elsewhere, a new password, removed, deleted): their open sockets close."""

    member_id: int
    session_key: str | None = None


E = TypeVar("E", bound=DomainEvent)
Handler = Callable[[Any], None]

_subscribers: dict[tuple[type[DomainEvent], Phase], list[Handler]] = defaultdict(list)


def subscribe(
    event_type: type[E], handler: Callable[[E], None], *, phase: Phase = Phase.AFTER_COMMIT
) -> None:
    """Call ``handler`` with every ``event_type`` emitted, in ``phase``. Subscribing the same
    handler again changes nothing (``ready()`` may run more than once in tests)."""
    handlers = _subscribers[(event_type, phase)]
    if handler not in handlers:
        handlers.append(handler)


def subscribers(event_type: type[DomainEvent], phase: Phase) -> tuple[Handler, ...]:
    """Who hears ``event_type`` in ``phase``, in the order they subscribed."""
    return tuple(_subscribers[(event_type, phase)])


def emit(event: DomainEvent) -> None:
    """Tell the subscribers: those of the transaction now, the others after commit."""
    kind = type(event)
    for handler in _subscribers[(kind, Phase.IN_TRANSACTION)]:
        handler(event)
    for handler in _subscribers[(kind, Phase.AFTER_COMMIT)]:
        transaction.on_commit(partial(handler, event), robust=True)
