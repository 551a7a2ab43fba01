"""Every change to a rounds match, one function each, one transaction each (the manner of
``matches.services``): each locks the match row (``select_for_update``) and then its players,
applies a close that has come due, checks, writes, and publishes its news after the commit.
A refusal is a ``ServiceError`` subclass with a stable code, raised after the transaction.

- :mod:`.lifecycle`: open, join, start; a one-to-one game against Gramma Ana;
- :mod:`.play`: start a round, play or pass, Gramma Ana's move, the closes by the clock.
"""

from common.errors import NotAllowed, ServiceError, SignInRequired
from rounds.services.errors import (
    HostOnly,
    InvalidRoundsMatch,
    JoinRefused,
    NotEnoughPlayers,
    NotLive,
    NotOpen,
    RequestIdTaken,
    RoundRefused,
    RoundsMatchMissing,
    RoundsMembersOnly,
    StaleRound,
)
from rounds.services.lifecycle import (
    gramma_rating_for,
    rounds_join,
    rounds_open,
    rounds_play_gramma_ana,
    rounds_start,
)
from rounds.services.play import (
    RoundStarted,
    Submitted,
    close_due_rounds,
    gramma_ana_play,
    rounds_apply_due,
    rounds_start_round,
    rounds_submit,
)

__all__ = [
    "HostOnly",
    "InvalidRoundsMatch",
    "JoinRefused",
    "NotAllowed",
    "NotEnoughPlayers",
    "NotLive",
    "NotOpen",
    "RequestIdTaken",
    "RoundRefused",
    "RoundStarted",
    "RoundsMatchMissing",
    "RoundsMembersOnly",
    "ServiceError",
    "SignInRequired",
    "StaleRound",
    "Submitted",
    "close_due_rounds",
    "gramma_ana_play",
    "gramma_rating_for",
    "rounds_apply_due",
    "rounds_join",
    "rounds_open",
    "rounds_play_gramma_ana",
    "rounds_start",
    "rounds_start_round",
    "rounds_submit",
]
