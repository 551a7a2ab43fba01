"""Refusals: one ServiceError subclass each, with a stable ``code`` and an HTTP ``status``.

A service that refuses changes nothing (except a deadline that had already passed, which
stands) and raises one of these after its transaction; ``str(error)`` is the message for
people. Pages, the API and the socket each map them in one place. docs/RULES.md lists every
code and every text (section 13), and a test keeps it so.
"""

from __future__ import annotations

from typing import Any

from common.errors import NotAllowed, ServiceError
from engine import MatchOver, MoveError, NotKickedOff, NotYourTurn, StaleTurn

#: Refusals that mean the client's picture of the match was out of date (RULES.md checks 1-3):
#: the answer carries a fresh snapshot so the client can redraw at once.
RESYNC_ERRORS: tuple[type[MoveError], ...] = (NotKickedOff, MatchOver, NotYourTurn, StaleTurn)
RESYNC_CODES = frozenset(error.code for error in RESYNC_ERRORS)


class MembershipRequired(NotAllowed):
    """Only approved club members may do this (a pending or removed account may not)."""

    code = "members_only"
    MESSAGE = "Only approved club members can take a seat."


class RequestIdTaken(ServiceError):
    """A request id already used for a request of another kind (a seat, a move)."""

    code = "id_taken"
    status = 409
    MESSAGE = "That request id was used for another request. Send a new one."


class MatchMissing(ServiceError):
    """There is no such match."""

    code = "not_found"
    status = 404


class SeatUnavailable(ServiceError):
    """The seat cannot be taken (taken, over, too late, already seated)."""

    code = "seat_unavailable"
    status = 409


class InvalidFixture(ServiceError):
    """A fixture or tournament that cannot be scheduled as asked."""

    code = "invalid_fixture"


class FixtureUnchangeable(ServiceError):
    """An organiser's change that the fixture's state no longer allows (kicked off, over)."""

    code = "fixture_unchangeable"
    status = 409


class OwnMatch(NotAllowed):
    """An organiser's ruling on a match they play in (or seating themselves in one): another
    organiser must decide it."""

    code = "own_match"
    RULING = "An organiser cannot rule on a match they play in: ask another organiser."
    SEATING = "An organiser cannot seat themselves as a substitute: ask another organiser."


class RoundsOutOfOrder(ServiceError):
    """A round postponed past a later round's kick-off, without carrying the later rounds."""

    code = "rounds_out_of_order"
    status = 409


class ContributionRefused(ServiceError):
    """A random value for the bag that cannot be taken (a bad value, too late, twice)."""


class MoveRefused(ServiceError):
    """A play, swap or pass refused by RULES.md; ``code`` is the engine error's own.

    ``replayed`` when this is the stored answer to a repeated client id.
    """

    status = 409

    def __init__(self, code: str, message: str, *, replayed: bool = False) -> None:
        super().__init__(message, replayed=replayed)
        self.code = code  # type: ignore[misc]

    @classmethod
    def replay(cls, refusal: dict[str, Any]) -> MoveRefused:
        return cls(refusal["code"], refusal["message"], replayed=True)

    @classmethod
    def from_engine(cls, error: MoveError) -> MoveRefused:
        return cls(error.code, error.message)

    @property
    def needs_resync(self) -> bool:
        """The client's board was out of date: its answer should carry a fresh one."""
        return self.code in RESYNC_CODES
