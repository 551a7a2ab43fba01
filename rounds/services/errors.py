"""Refusals of the rounds services: one ServiceError subclass each, a stable ``code``.

A refused request changes nothing and raises one of these after its transaction;
``str(error)`` is the text for people (docs/RULES.md section 19 lists the engine's).
"""

from __future__ import annotations

from common.errors import NotAllowed, ServiceError
from engine import MoveError


class RoundsMatchMissing(ServiceError):
    """There is no such rounds match."""

    code = "not_found"
    status = 404
    MESSAGE = "There is no such match."


class RequestIdTaken(ServiceError):
    """A request id this member already used in the match for a request of another kind."""

    code = "id_taken"
    status = 409
    MESSAGE = "That request id was used for another request. Send a new one."


class InvalidRoundsMatch(ServiceError):
    """A rounds match that cannot be opened as asked (its settings)."""

    code = "invalid_rounds_match"


class JoinRefused(ServiceError):
    """A join the match cannot take: started, full, already in."""

    code = "join_refused"
    status = 409


class HostOnly(NotAllowed):
    """Only the host may start the game."""

    code = "host_only"
    MESSAGE = "Only the host can start the game."


class NotEnoughPlayers(ServiceError):
    """A start with fewer than two players."""

    code = "not_enough_players"
    status = 409
    MESSAGE = "At least two players must have joined before the game starts."


class NotOpen(ServiceError):
    """A start of a game already started (or over)."""

    code = "already_started"
    status = 409
    MESSAGE = "This game has already started."


class NotLive(ServiceError):
    """A round action in a game that has not started yet."""

    code = "not_started"
    status = 409
    MESSAGE = "This game has not started yet."


class StaleRound(ServiceError):
    """A request made against a round that is no longer the open one."""

    code = "stale_round"
    status = 409
    MESSAGE = "That round is not the open one: send sync for the round now open."


class RoundsMembersOnly(NotAllowed):
    """Only approved club members play."""

    code = "members_only"
    MESSAGE = "Only approved club members can play Word Skill."


class RoundRefused(ServiceError):
    """A start, play or pass refused by docs/RULES.md section 19; ``code`` is the engine's."""

    status = 409
    NOT_A_PLAYER = "You are not playing in this game."
    OVER = "This match is over."

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code  # type: ignore[misc]

    @classmethod
    def from_engine(cls, error: MoveError) -> RoundRefused:
        return cls(error.message, code=error.code)
