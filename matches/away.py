"""Players' declared time away, as the core sees it: one hook that a feature app registers.

The core imports no feature app. The vacations app registers its reader and its turn
deadline in its ``AppConfig.ready()`` (:func:`register`): the clock asks :func:`turn_deadline`
whenever it applies a deadline, and :func:`read` is asked inside the snapshot that
``matches.visibility.access_match`` reads (and in a service's transaction, for the news it
builds), so the answer travels with the rows as a frozen value and building a frame from them
needs no query: a socket builds its frames on the event loop, where none may run. With no
reader registered nobody is away, and every stored deadline stands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from matches.models import Match, Seat


@dataclass(frozen=True)
class AwaySpell:
    """One seated player's declared days away that have not ended (a vacation is public)."""

    position: int
    first_day: date
    last_day: date
    #: The days have begun: the player is away now.
    away_now: bool


@dataclass(frozen=True)
class TimeAway:
    """What the players' time away means for one match at one moment."""

    #: Each seated player's spells away that have not ended, by seat.
    spells: tuple[AwaySpell, ...]
    #: The deadline of the turn now to play as the clock applies it: the stored one, later
    #: by the mover's days away within the turn.
    turn_deadline_at: datetime | None


#: ``reader(match, seats, now)``: the match's time away at ``now``, read from the database.
Reader = Callable[[Match, Sequence[Seat], datetime], TimeAway]

#: ``deadline(match, seats)``: the deadline of the turn now to play, later by the mover's
#: days away within the turn (``seats`` may be None: the reader then queries them).
TurnDeadline = Callable[[Match, Sequence[Seat] | None], datetime | None]

_readers: list[Reader] = []
_deadlines: list[TurnDeadline] = []


def register(reader: Reader, *, deadline: TurnDeadline | None = None) -> None:
    """Make ``reader`` (and ``deadline``) the one source of time away (registering the same
    reader again changes nothing)."""
    if _readers and _readers[0] is not reader:
        raise RuntimeError("A reader of time away is registered already: there is only one.")
    _readers[:] = [reader]
    if deadline is not None:
        _deadlines[:] = [deadline]


def turn_deadline(match: Match, seats: Sequence[Seat] | None = None) -> datetime | None:
    """The deadline the clock applies to the turn now to play: the stored one, or later by
    the mover's days away (the registered hook; may query: never on the event loop)."""
    if not _deadlines:
        return match.turn_deadline_at
    return _deadlines[0](match, seats)


def nobody_away(match: Match) -> TimeAway:
    """The answer without a reader: nobody away, the stored deadline."""
    return TimeAway(spells=(), turn_deadline_at=match.turn_deadline_at)


def read(match: Match, seats: Sequence[Seat], *, now: datetime) -> TimeAway:
    """The time away in ``match`` at ``now``. May query the database: call it where a
    query may run (a worker thread, a service's transaction), never on the event loop."""
    if not _readers:
        return nobody_away(match)
    return _readers[0](match, seats, now)
