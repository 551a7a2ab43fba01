"""The computer's position from its seat's view (``MatchView``) alone, and its move there.

The view is what ``visibility.match_view`` builds for a seated viewer: the public facts
and that seat's own rack. The engine position is made from its fields only, so whatever the
opponent holds and however the bag lies, two views that are equal give the same position,
and with the same seed the same move.
"""

from __future__ import annotations

import random

from engine import get_ruleset
from engine.computer import Choice, Level, SeatPosition, choose_move
from lexicon.difficulty import HARDEST, check_cap, word_difficulty
from lexicon.lexicon import get_lexicon
from matches.schemas import MatchView


class NotComputersTurn(ValueError):
    """The view is not of a seat that is to move in a live match."""


def position_from_view(view: MatchView) -> SeatPosition:
    """The engine position of the seat ``view`` was built for, which must be to move."""
    seat = view.your_seat
    if view.status != "live" or seat is None or view.rack is None or view.to_move != seat:
        raise NotComputersTurn("The view is not of a seat to move in a live match.")
    seats = sorted(view.seats, key=lambda entry: entry.position)
    streak = 0
    for move in reversed(view.moves):
        if move.kind == "play" and not (move.challenge and move.challenge.withdrawn):
            break
        streak += 1
    return SeatPosition.build(
        ruleset=view.ruleset,
        board_rows=view.board,
        seat=seat,
        rack=view.rack,
        scores=tuple(entry.score for entry in seats),
        bag_count=view.bag_count,
        rack_counts=tuple(entry.rack_count for entry in seats),
        scoreless_streak=streak,
    )


def computer_move(
    view: MatchView,
    *,
    level: Level | str,
    rng: random.Random,
    vocabulary_cap: int = HARDEST,
) -> Choice:
    """The move the computer in ``view``'s seat makes, under the match's own lexicon (the one
    the board checks with) and, below 100, a cap on its words' difficulty."""
    cap = check_cap(vocabulary_cap)
    position = position_from_view(view)
    lexicon = get_lexicon(view.lexicon, max_len=get_ruleset(view.ruleset).lexicon_max_len)
    vocabulary = None if cap == HARDEST else word_difficulty(lexicon).at_most(cap)
    return choose_move(position, lexicon=lexicon, level=level, rng=rng, vocabulary=vocabulary)
