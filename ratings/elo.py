"""Word Skill's Elo (seed 002), for games against Gramma Ana: kept apart from Glicko-2.

Everyone starts at 1,200; a rating stays within 800-2,000. K is 32, so a game against an
equal moves a rating by 16: a win +16, a loss −16, a tie nothing. Gramma Ana's vocabulary is
set by the player's own rating (``engine.gramma_ana.cap_for_rating``), so she counts as an
equal: every game against her is exactly ±16 or 0 (then clamped). Pure: no models here.
"""

from __future__ import annotations

import math
from typing import Final, Literal

START: Final = 1200
FLOOR: Final = 800
CEILING: Final = 2000
#: The most a single game can move a rating (a win against an equal moves it K/2).
K: Final = 32

Outcome = Literal["win", "loss", "tie"]
#: What each outcome scores.
SCORE: Final[dict[str, float]] = {"win": 1.0, "tie": 0.5, "loss": 0.0}


def clamp(rating: float) -> int:
    """A rating rounded to a whole number (halves up) and kept within 800-2,000."""
    return min(CEILING, max(FLOOR, math.floor(rating + 0.5)))


def expected_score(rating: float, opponent: float) -> float:
    """The score a player of ``rating`` is expected to take from ``opponent`` (0 to 1)."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def rate(rating: int, opponent: int, outcome: Outcome) -> int:
    """The player's rating after a game against ``opponent`` ended in ``outcome``."""
    if outcome not in SCORE:
        raise ValueError(f"an outcome is a win, a loss or a tie, not {outcome!r}")
    change = K * (SCORE[outcome] - expected_score(rating, opponent))
    return clamp(rating + change)


def rate_against_gramma_ana(rating: int, outcome: Outcome) -> int:
    """The player's rating after a game against Gramma Ana, who counts as an equal."""
    return rate(rating, rating, outcome)
