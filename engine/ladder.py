"""The levels' measured strength: a Glicko-2 rating for each, shipped as data.

``bench/bots.py`` plays each level against the greedy reference (anchored at 1500 on the
club's Glicko-2 scale) and writes what it measured to ``engine/data/ladder.json``; this module
reads it, so a page can show each level's rating beside its name without playing a game. The
ratings are per ruleset, and for all rulesets together (``ALL_RULESETS``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

from .computer import Level, get_level
from .errors import LevelNotMeasured
from .leave import DATA_DIR

LADDER_PATH: Final[Path] = DATA_DIR / "ladder.json"
#: The key of the ratings from every ruleset's games together.
ALL_RULESETS: Final = "all"
#: The greedy reference's fixed rating: the scale's anchor.
REFERENCE_RATING: Final = 1500.0
Z95: Final = 1.959964


@dataclass(frozen=True, slots=True)
class LevelRating:
    """One level's rating from its games against the reference, in one ruleset (or all)."""

    level: str
    ruleset: str
    rating: float
    deviation: float
    games: int
    win_rate: float
    average_score: float

    @property
    def interval(self) -> tuple[float, float]:
        """The rating's 95 % interval (±1.96 deviations)."""
        half = Z95 * self.deviation
        return self.rating - half, self.rating + half

    @property
    def shown(self) -> str:
        """The rating as a page shows it: rounded to 10, as its interval is far wider than 1."""
        return f"{round(self.rating, -1):.0f}"

    def to_json(self) -> dict[str, Any]:
        return {
            "rating": round(self.rating, 1),
            "deviation": round(self.deviation, 1),
            "games": self.games,
            "win_rate": round(self.win_rate, 4),
            "average_score": round(self.average_score, 1),
        }


@dataclass(frozen=True, slots=True)
class Ladder:
    """What one run of the ladder bench measured, and how it was run."""

    command: str
    seed: int
    games: int
    measured: str
    ratings: Mapping[tuple[str, str], LevelRating] = field(default_factory=dict)

    def rating(self, level: Level | str, *, ruleset: str = ALL_RULESETS) -> LevelRating:
        """``level``'s rating in ``ruleset`` (default: all rulesets), or LevelNotMeasured."""
        name = get_level(level).name
        try:
            return self.ratings[(ruleset, name)]
        except KeyError:
            raise LevelNotMeasured(
                f"the ladder bench measured no rating for {name} in {ruleset}"
            ) from None

    def to_json(self) -> dict[str, Any]:
        rulesets: dict[str, dict[str, Any]] = {}
        for (ruleset, level), rated in sorted(self.ratings.items()):
            rulesets.setdefault(ruleset, {})[level] = rated.to_json()
        return {
            "command": self.command,
            "seed": self.seed,
            "games": self.games,
            "measured": self.measured,
            "reference": {"level": "greedy", "rating": REFERENCE_RATING},
            "rulesets": rulesets,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Ladder:
        ratings = {
            (str(ruleset), str(level)): LevelRating(
                level=str(level),
                ruleset=str(ruleset),
                rating=float(values["rating"]),
                deviation=float(values["deviation"]),
                games=int(values["games"]),
                win_rate=float(values["win_rate"]),
                average_score=float(values["average_score"]),
            )
            for ruleset, levels in data["rulesets"].items()
            for level, values in levels.items()
        }
        return cls(
            command=str(data["command"]),
            seed=int(data["seed"]),
            games=int(data["games"]),
            measured=str(data["measured"]),
            ratings=ratings,
        )


@cache
def ladder() -> Ladder:
    """The shipped measurements (read once); FileNotFoundError names the command."""
    if not LADDER_PATH.exists():
        raise FileNotFoundError(
            f"no ladder at {LADDER_PATH}: measure it with .venv/bin/python bench/bots.py"
        )
    return Ladder.from_json(json.loads(LADDER_PATH.read_text(encoding="utf-8")))


def level_rating(level: Level | str, *, ruleset: str = ALL_RULESETS) -> LevelRating:
    """The shipped rating of ``level`` (``easy``, ``normal``, ``hard``) in ``ruleset``."""
    return ladder().rating(level, ruleset=ruleset)


def with_rating(label: str, level: Level | str, *, ruleset: str = ALL_RULESETS) -> str:
    """``label`` with the level's measured rating beside it (``Hard · 1560``), as a level
    list on a page shows it; the label alone where the ladder has not measured the level."""
    try:
        rated = level_rating(level, ruleset=ruleset)
    except (LevelNotMeasured, FileNotFoundError):
        return label
    return f"{label} · {rated.shown}"
