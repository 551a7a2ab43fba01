"""Rack leave: what the tiles kept after a move are worth to the next turn, in points.

Strong programs (Quackle, Macondo) choose by score plus the value of the leave. The value
here is a small linear model, robust at a small sample: a weight per tile kept (its first
copy), a weight per extra copy of a tile (duplicates clog a rack), a weight per balance of
vowels and consonants kept, and a Q-with-U synergy. The weights are fitted by ridge
regression to the project's own self-play (``engine.leave_train``): for each move
with tiles still to draw, the features of the leave against the points the same player
scored on their next turn, less the average, the move's own points fitted alongside (how
open the board is) and left out of the table. A table is plain data, shipped as JSON in
``engine/data/leaves-<ruleset>.json``; features without data weigh nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

from .moves import BLANK

DATA_DIR: Final = Path(__file__).resolve().parent / "data"
VOWELS: Final = frozenset("AEIOU")


def leave_features(leave: Iterable[str]) -> Counter[str]:
    """The model's features of a leave (a multiset of tiles, ``?`` a blank), as counts."""
    counts = Counter(leave)
    features: Counter[str] = Counter()
    vowels = consonants = 0
    for tile, count in counts.items():
        features[f"tile:{tile}"] += 1
        if count > 1:
            features[f"dup:{tile}"] += count - 1
        if tile in VOWELS:
            vowels += count
        elif tile != BLANK:
            consonants += count
    features[f"vc:{vowels},{consonants}"] += 1
    if counts["Q"] and counts["U"]:
        features["qu"] += 1
    return features


@dataclass(frozen=True, slots=True)
class LeaveTable:
    """A fitted leave model for one ruleset and lexicon, with how it was made."""

    ruleset: str
    lexicon: str
    seed: int
    games: int
    samples: int
    ridge: float
    weights: Mapping[str, float] = field(default_factory=dict)

    def value(self, leave: Iterable[str]) -> float:
        """The leave's worth in points (0 for features the table has no weight for)."""
        weights = self.weights
        return sum(weights.get(name, 0.0) * count for name, count in leave_features(leave).items())

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "lexicon": self.lexicon,
            "seed": self.seed,
            "games": self.games,
            "samples": self.samples,
            "ridge": self.ridge,
            "weights": dict(sorted(self.weights.items())),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LeaveTable:
        weights = {str(name): float(value) for name, value in data["weights"].items()}
        return cls(
            ruleset=str(data["ruleset"]),
            lexicon=str(data["lexicon"]),
            seed=int(data["seed"]),
            games=int(data["games"]),
            samples=int(data["samples"]),
            ridge=float(data["ridge"]),
            weights=weights,
        )

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, sort_keys=False) + "\n"


#: Variants that play from another ruleset's tiles and rack and so share its table.
SHARED_TABLES = {"reword": "word-duel"}


def table_path(ruleset: str) -> Path:
    """Where the shipped table for ``ruleset`` lives (a variant's: its parent's)."""
    return DATA_DIR / f"leaves-{SHARED_TABLES.get(ruleset, ruleset)}.json"


@cache
def leave_table(ruleset: str) -> LeaveTable:
    """The shipped table for ``ruleset`` (read once); FileNotFoundError names the command
    that makes it."""
    path = table_path(ruleset)
    if not path.exists():
        raise FileNotFoundError(
            f"no leave table at {path}: make it with "
            f"python -m engine.leave_train --ruleset {ruleset} --out {path}"
        )
    return LeaveTable.from_json(json.loads(path.read_text(encoding="utf-8")))
