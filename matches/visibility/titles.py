"""A match's title: its own label and the players seated now, written one way everywhere.

``Match.name`` holds only the fixture's own label (``Cup · Round 2``, ``Friday friendly``,
``Practice``, ``Challenge``): who plays is read from the seats each time a title is shown,
so a substitute's name replaces the player's at once, a display name changed shows
everywhere, and a deleted account's name leaves every title with the account
(``former-member-N``). Pages, lists, the API, the websocket's snapshot, the calendar feeds
and the emails all write the title with :func:`match_title`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matches.models import Match, Seat

#: How a title names a seat nobody holds.
FREE_SEAT = "(free seat)"


def players_of(seats: Sequence[Seat]) -> str:
    """``alice v bob`` from the seats in position order; empty when both are free."""
    names = [seat.member.label if seat.member is not None else None for seat in seats]
    if not any(names):
        return ""
    return " v ".join(name or FREE_SEAT for name in names)


def match_title(match: Match, seats: Sequence[Seat]) -> str:
    """``<label>: <First> v <Second>``, or the label alone while both seats are free.

    ``seats`` are the match's seats in position order, with their members (read by the
    caller, in the same moment as the match)."""
    players = players_of(sorted(seats, key=lambda seat: seat.position))
    return f"{match.name}: {players}" if players else match.name
