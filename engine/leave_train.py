"""Fit a rack-leave table from the project's own self-play (see :mod:`engine.leave`).

    python -m engine.leave_train --ruleset classic --seed 1 --games 200 \\
        --out engine/data/leaves-classic.json

Both seats play a lightly exploring greedy level (uniformly among the three best plays
within 70 % of the best, so many leaves are seen); every move after which its player draws
gives one sample: the leave's features against the points that player scores on their next
turn, less the average. Ridge regression fits the weights, with the move's own points as one
more feature (``BOARD``, not shipped) so that an open board is not taken for a good leave.
The same seed and games give the same table, byte for byte: game seeds come from
``random.Random(seed)``, the fit is plain arithmetic in a fixed order, and weights are
rounded to 0.001.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Collection, Sequence
from pathlib import Path

from lexicon.lexicon import get_lexicon

from .computer import Choice, Level, SeatPosition, kept_tiles
from .game import Game
from .leave import LeaveTable, leave_features, table_path
from .rulesets import get_ruleset
from .selfplay import Seat, play_game

#: The training players: greedy with some exploration.
EXPLORER = Level("explore", pool=3, floor=0.7)
#: Ridge penalty: a feature seen in few samples stays near 0 points.
RIDGE = 10.0
#: A nuisance feature fitted with the leave's but not shipped: the points of the move that
#: left the tiles. An open board gives big scores turn after turn, and on it a player uses
#: many tiles and keeps few; without this, how open the board was would pass for what
#: keeping few tiles is worth.
BOARD = "~board"


class _Samples:
    """Collects (leave features, next-turn score) as the moves of one game go by."""

    def __init__(self, into: list[tuple[Counter[str], int]]) -> None:
        self.into = into
        self.pending: dict[int, Counter[str]] = {}

    def __call__(self, game: Game, position: SeatPosition, choice: Choice) -> None:
        move = choice.move
        earlier = self.pending.pop(position.seat, None)
        if earlier is not None:
            self.into.append((earlier, move.score))
        if move.kind != "pass" and position.bag_count > 0:
            features = leave_features(kept_tiles(position.rack, move))
            features[BOARD] = move.score
            self.pending[position.seat] = features


def self_play_samples(
    *, ruleset: str, seed: int, games: int, lexicon: Collection[str]
) -> list[tuple[Counter[str], int]]:
    """(leave features, the player's next-turn score) for every move that drew tiles."""
    master = random.Random(seed)
    samples: list[tuple[Counter[str], int]] = []
    seats = (Seat.of(EXPLORER), Seat.of(EXPLORER))
    for _ in range(games):
        game_seed = master.randbytes(32)
        play_game(
            ruleset=ruleset,
            seed=game_seed,
            seats=seats,
            lexicon=lexicon,
            rng_seed=master.randrange(2**31),
            on_move=_Samples(samples),
        )
    return samples


def fit(samples: Sequence[tuple[Counter[str], int]], *, ridge: float) -> dict[str, float]:
    """Ridge regression of the centred next-turn score on the leave features."""
    if not samples:
        raise ValueError("no samples to fit a leave table to")
    mean = sum(score for _, score in samples) / len(samples)
    names = sorted({name for features, _ in samples for name in features})
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    gram = [[0.0] * n for _ in range(n)]
    target = [0.0] * n
    for features, score in samples:
        items = [(index[name], float(count)) for name, count in sorted(features.items())]
        for i, x_i in items:
            target[i] += x_i * (score - mean)
            row = gram[i]
            for j, x_j in items:
                row[j] += x_i * x_j
    for i in range(n):
        gram[i][i] += ridge
    solution = _solve(gram, target)
    return {name: round(solution[index[name]], 3) for name in names}


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the matrix is symmetric positive
    definite, so it never meets a zero pivot)."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            if factor:
                row, top = a[r], a[col]
                for c in range(col, n + 1):
                    row[c] -= factor * top[c]
    solution = [0.0] * n
    for r in range(n - 1, -1, -1):
        total = a[r][n] - sum(a[r][c] * solution[c] for c in range(r + 1, n))
        solution[r] = total / a[r][r]
    return solution


def train(
    *, ruleset: str, seed: int, games: int, lexicon: Collection[str], lexicon_name: str
) -> LeaveTable:
    """A leave table for ``ruleset`` from ``games`` self-play games seeded by ``seed``."""
    rules = get_ruleset(ruleset)
    samples = self_play_samples(ruleset=rules.name, seed=seed, games=games, lexicon=lexicon)
    return LeaveTable(
        ruleset=rules.name,
        lexicon=lexicon_name,
        seed=seed,
        games=games,
        samples=len(samples),
        ridge=RIDGE,
        weights={
            name: weight for name, weight in fit(samples, ridge=RIDGE).items() if name != BOARD
        },
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", required=True, help="word-duel, classic or outspell")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--out", type=Path, help="default: the shipped table's path")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    rules = get_ruleset(args.ruleset)
    lexicon = get_lexicon("enable", max_len=rules.lexicon_max_len)
    started = time.perf_counter()
    table = train(
        ruleset=rules.name, seed=args.seed, games=args.games, lexicon=lexicon, lexicon_name="enable"
    )
    out = args.out or table_path(rules.name)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(table.dumps(), encoding="utf-8")
    sys.stderr.write(
        f"{out}: {table.samples} samples from {table.games} games "
        f"in {time.perf_counter() - started:.0f} s\n"
    )


if __name__ == "__main__":
    main()
