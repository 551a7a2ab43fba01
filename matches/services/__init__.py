"""Every change to a match, one function each, one transaction each (docs/DESIGN.md, "one way
in").

Each function locks what it changes (the match row with ``select_for_update``, then its
seats), applies any deadline that has passed (time is data), checks, writes, and publishes
its news with ``transaction.on_commit``. A refusal is a :class:`ServiceError` subclass with a
stable code, raised after the transaction. Consumers, views, the admin and Celery tasks call
these; nothing else writes a match.

- :mod:`.creation`: a new match and its empty seats;
- :mod:`.seating`: taking a seat, replacing the viewing link;
- :mod:`.play`: a play, swap or pass;
- :mod:`.resignation`: a player resigns;
- :mod:`.challenge`: a player challenges the last play;
- :mod:`.clock`: deadlines on a look, and the sweeps;
- :mod:`.bag`: a player's randomness for the bag.
"""

from common.errors import NotAllowed, ServiceError, SignInRequired
from matches.services.bag import match_contribute_entropy
from matches.services.challenge import ChallengeDecided, ChallengeWindowClosed, match_challenge
from matches.services.clock import (
    close_challenge_windows,
    default_no_shows,
    forfeit_stalled_matches,
    look_at_match,
    match_apply_deadlines,
    open_due_matches,
    run_clock,
)
from matches.services.creation import create_match
from matches.services.errors import (
    ContributionRefused,
    FixtureUnchangeable,
    InvalidFixture,
    MatchMissing,
    MembershipRequired,
    MoveRefused,
    RequestIdTaken,
    SeatUnavailable,
)
from matches.services.play import Committed, match_commit
from matches.services.resignation import Resigned, match_resign
from matches.services.seating import SeatTaken, match_rotate_viewing_key, match_take_seat

__all__ = [
    "ChallengeDecided",
    "ChallengeWindowClosed",
    "Committed",
    "ContributionRefused",
    "FixtureUnchangeable",
    "InvalidFixture",
    "MatchMissing",
    "MembershipRequired",
    "MoveRefused",
    "NotAllowed",
    "RequestIdTaken",
    "Resigned",
    "SeatTaken",
    "SeatUnavailable",
    "ServiceError",
    "SignInRequired",
    "close_challenge_windows",
    "create_match",
    "default_no_shows",
    "forfeit_stalled_matches",
    "look_at_match",
    "match_apply_deadlines",
    "match_challenge",
    "match_commit",
    "match_contribute_entropy",
    "match_resign",
    "match_rotate_viewing_key",
    "match_take_seat",
    "open_due_matches",
    "run_clock",
]
