"""The ladder, measured: each computer level against a fixed greedy reference.

    .venv/bin/python bench/bots.py --games 1000            # the issue's size (hours)
    .venv/bin/python bench/bots.py --games 40 --no-write   # a quick look

For each ruleset and each level (Easy, Normal, Hard with leave, and Greedy itself as the
control), N games against Greedy (the highest score, no leave), in pairs: each deal played
twice, the level taking First, then Second (so the luck of the draw and of the seat cancel
in pairs). The deals are the same for every level (common seeds), so the levels differ by
their play alone. Reported per level: its average score, its win rate (a draw counts half)
with a Wilson 95 % interval, the average spread (its score less the reference's) with a
normal 95 % interval, and a rating on the club's Glicko-2 scale: the reference anchored at
1500, the level starting where a member starts (``ratings.policy.START``) and rated game by
game as the club rates (a game is a rating period, τ = ``ratings.policy.TAU``); its
interval is ±1.96 deviations.

Writes the "### The ladder" part of docs/PERFORMANCE.md's "## Computer player" section.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import REPORT, machine, table  # noqa: E402
from engine import get_ruleset  # noqa: E402
from engine.computer import EASY, GREEDY, HARD, NORMAL, Level  # noqa: E402
from engine.leave import leave_table  # noqa: E402
from engine.selfplay import Seat, play_game  # noqa: E402
from ratings.glicko2 import Glicko2, Outcome, rate  # noqa: E402
from ratings.policy import START, TAU  # noqa: E402

RULESETS = ("word-duel", "classic", "outspell")
LEVELS: tuple[Level, ...] = (EASY, NORMAL, HARD, GREEDY)
#: The reference's fixed rating: the anchor of the scale (its deviation small, not zero).
REFERENCE = Glicko2(rating=1500.0, deviation=30.0, volatility=0.06)
Z95 = 1.959964
SECTION = "## Computer player"
SUBSECTION = "### The ladder"


@dataclass(frozen=True, slots=True)
class LevelResult:
    """One level's games against the reference in one ruleset."""

    ruleset: str
    level: str
    games: int
    scores: tuple[int, ...]
    spreads: tuple[int, ...]
    #: 1 a win, 0.5 a draw, 0 a loss, for the level, game by game.
    results: tuple[float, ...]

    @property
    def average(self) -> float:
        return statistics.fmean(self.scores)

    @property
    def win_rate(self) -> float:
        return statistics.fmean(self.results)

    def win_interval(self) -> tuple[float, float]:
        """Wilson's 95 % interval for the win rate."""
        n, p = self.games, self.win_rate
        centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
        half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def mean_interval(self, values: Sequence[int]) -> tuple[float, float]:
        """The mean of ``values`` and the half-width of its normal 95 % interval."""
        mean = statistics.fmean(values)
        if len(values) < 2:
            return mean, math.inf
        return mean, Z95 * statistics.stdev(values) / math.sqrt(len(values))

    def rating(self) -> Glicko2:
        """The level's Glicko-2 rating after its games, rated one game a period."""
        player = START
        for result in self.results:
            player = rate(player, [Outcome(REFERENCE, result)], tau=TAU)
        return player


def play_level(
    *, ruleset: str, level: Level, games: int, seed: int, lexicon: Collection[str]
) -> LevelResult:
    """``games`` games of ``level`` against the greedy reference, each deal twice with the
    seats swapped (an odd ``games`` plays the last deal once)."""
    master = random.Random(f"{seed}:{ruleset}")
    scores: list[int] = []
    spreads: list[int] = []
    results: list[float] = []
    for i in range(games):
        if i % 2 == 0:  # each deal twice, the level taking First then Second
            game_seed = master.randbytes(32)
            rng_seed = master.randrange(2**31)
        mine = i % 2
        seats = [Seat.of(GREEDY), Seat.of(GREEDY)]
        seats[mine] = Seat.of(level)
        game = play_game(
            ruleset=ruleset,
            seed=game_seed,
            seats=(seats[0], seats[1]),
            lexicon=lexicon,
            rng_seed=rng_seed,
        )
        scores.append(game.scores[mine])
        spreads.append(game.scores[mine] - game.scores[1 - mine])
        results.append(0.5 if game.is_draw else float(game.winner == mine))
    return LevelResult(ruleset, level.name, games, tuple(scores), tuple(spreads), tuple(results))


def run(*, games: int, seed: int, rulesets: Sequence[str]) -> list[LevelResult]:
    from lexicon.lexicon import get_lexicon

    found = []
    for name in rulesets:
        lexicon = get_lexicon("enable", max_len=get_ruleset(name).lexicon_max_len)
        for level in LEVELS:
            started = time.perf_counter()
            found.append(
                play_level(ruleset=name, level=level, games=games, seed=seed, lexicon=lexicon)
            )
            print(f"{name} {level.name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return found


def report(results: Sequence[LevelResult], *, games: int, seed: int, command: str) -> str:
    rows = []
    for r in results:
        low, high = r.win_interval()
        spread, spread_half = r.mean_interval(r.spreads)
        average, average_half = r.mean_interval(r.scores)
        rating = r.rating()
        rows.append(
            [
                r.ruleset,
                r.level,
                f"{average:.1f} ± {average_half:.1f}",
                f"{r.win_rate:.1%} ({low:.1%}–{high:.1%})",
                f"{spread:+.1f} ± {spread_half:.1f}",
                f"{rating.rating:.0f} ± {Z95 * rating.deviation:.0f}",
            ]
        )
    return "\n".join(
        [
            SUBSECTION,
            "",
            (
                f"`{command}` (seed {seed}), {games} games per level and ruleset against the "
                f"greedy reference, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
                f"{machine()}."
            ),
            "",
            (
                "Hard weighs each move by score plus rack leave, from the shipped tables "
                "(`engine/data/leaves-<ruleset>.json`): "
                + "; ".join(leave_note(name) for name in sorted({r.ruleset for r in results}))
                + ". Each is remade, byte for byte, by `.venv/bin/python -m "
                "engine.leave_train --ruleset <ruleset> --seed <seed> --games <games>`; "
                "more games give a sharper table (a game of self-play takes about 0.15 s "
                "(outspell) to 1.4 s (word-duel) on one core here)."
            ),
            "",
            (
                "The issue's size is `.venv/bin/python bench/bots.py --games 1000` (about 50 "
                "minutes on one core at this run's pace). Rated a game a period as the club "
                "rates, a rating's deviation settles near 117 whatever N is, so the win-rate and "
                "spread intervals are the sharper measures."
            ),
            "",
            table(
                [
                    "ruleset",
                    "level",
                    "average score",
                    "win rate (95 %)",
                    "spread",
                    "Glicko-2 (greedy = 1500)",
                ],
                rows,
            ),
            "",
        ]
    )


def leave_note(ruleset: str) -> str:
    """Where a ruleset's leave table came from: its seed, games and samples."""
    table_ = leave_table(ruleset)
    return (
        f"{ruleset}: seed {table_.seed}, {table_.games} self-play games, {table_.samples:,} samples"
    )


def write_subsection(text: str) -> None:
    """Replace (or add at the end of "## Computer player") the ladder's part of the report."""
    lines = REPORT.read_text().splitlines(keepends=True)
    section = next(i for i, line in enumerate(lines) if line.strip() == SECTION)
    end = next(
        (i for i in range(section + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
    )
    start = next((i for i in range(section + 1, end) if lines[i].strip() == SUBSECTION), None)
    if start is None:
        start = stop = end
    else:
        stop = next((i for i in range(start + 1, end) if lines[i].startswith(("## ", "### "))), end)
    block = text.rstrip("\n") + "\n\n"
    REPORT.write_text("".join(lines[:start]) + block + "".join(lines[stop:]))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="per level and ruleset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ruleset", action="append", choices=RULESETS, help="default: all")
    parser.add_argument("--no-write", action="store_true", help="print, do not write the doc")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    results = run(games=args.games, seed=args.seed, rulesets=args.ruleset or RULESETS)
    command = "bench/bots.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = report(results, games=args.games, seed=args.seed, command=command.strip())
    print(text)
    if not args.no_write:
        write_subsection(text)


if __name__ == "__main__":
    main()
