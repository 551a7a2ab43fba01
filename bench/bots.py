"""The ladder, measured: each computer level against a fixed greedy reference, and against
the level below it.

    .venv/bin/python bench/bots.py --games 1000            # the issue's size
    .venv/bin/python bench/bots.py --games 40 --no-write   # a quick look
    nice .venv/bin/python bench/bots.py --games 1000 --workers 2 --minutes 50   # in parts

Every game is kept as it is played (``bench/results/bots/``), so a run stopped by
``--minutes`` (or killed) goes on where it stopped when the same command runs again; the
report and the ratings are written only once every series has its games.

For each ruleset: N games of each level (Easy, Normal, Hard with leave) against Greedy (the
highest score, no leave: the fixed reference), and N games of each level against the one
below it (Normal against Easy, Hard against Normal), head to head. Games come in pairs:
each deal played twice, the level taking First, then Second, so the luck of the draw and of
the seat cancel in pairs. The deals are the same for every series (common seeds), so the
levels differ by their play alone. (Greedy against itself is not played: with the same deal
from both seats its pairs are the same game twice, 50 % by construction.)

Reported per series: the level's average score, its win rate (a draw counts half) with a
Wilson 95 % interval, the average spread (its score less the opponent's) with a normal 95 %
interval, and for the games against the reference a rating on the club's Glicko-2 scale:
the reference anchored at 1500, the level starting where a member starts
(``ratings.policy.START``) and rated by the club's ``ratings.glicko2.rate`` in periods of
``PERIOD`` games (τ = ``ratings.policy.TAU``); its interval is ±1.96 deviations. The games
are counted as independent; as each deal is played from both seats, the luck of the draw
partly cancels in pairs, so the intervals are if anything wide.

Writes the "### The ladder" part of docs/PERFORMANCE.md's "## Computer player" section and
the ratings the pages show (``engine/data/ladder.json``, read by :mod:`engine.ladder`).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, zip_longest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import REPORT, machine, table  # noqa: E402
from engine import get_ruleset  # noqa: E402
from engine.computer import EASY, GREEDY, HARD, NORMAL, Level  # noqa: E402
from engine.ladder import (  # noqa: E402
    ALL_RULESETS,
    LADDER_PATH,
    REFERENCE_RATING,
    Ladder,
    LevelRating,
)
from engine.leave import leave_table  # noqa: E402
from engine.selfplay import Seat, play_game  # noqa: E402
from ratings.glicko2 import Glicko2, Outcome, rate  # noqa: E402
from ratings.policy import START, TAU  # noqa: E402

RULESETS = ("word-duel", "classic", "outspell")
#: The levels a member may choose, weakest first; each plays the reference.
LEVELS: tuple[Level, ...] = (EASY, NORMAL, HARD)
#: Every level by its name (the reference too), for the workers.
BY_NAME: dict[str, Level] = {level.name: level for level in (GREEDY, EASY, NORMAL, HARD)}
#: Each level against the one below it, head to head.
STEPS: tuple[tuple[Level, Level], ...] = ((NORMAL, EASY), (HARD, NORMAL))
#: A level is clearly above the one below when it wins more than this share against it.
STEP_GOAL = 0.60
#: The reference's fixed rating: the anchor of the scale (its deviation small, not zero).
REFERENCE = Glicko2(rating=REFERENCE_RATING, deviation=30.0, volatility=0.06)
#: The issue's size: games per series and ruleset.
ISSUE_GAMES = 1000
#: Games in one rating period (the club rates a period's games together).
PERIOD = 25
Z95 = 1.959964
SECTION = "## Computer player"
SUBSECTION = "### The ladder"


@dataclass(frozen=True, slots=True)
class Series:
    """One level's games against one opponent in one ruleset."""

    ruleset: str
    level: str
    opponent: str
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
        return wilson(self.results)

    def mean_interval(self, values: Sequence[int]) -> tuple[float, float]:
        """The mean of ``values`` and the half-width of its normal 95 % interval."""
        return mean_interval(values)

    def rating(self) -> Glicko2:
        """The level's Glicko-2 rating after its games against the reference."""
        if self.opponent != GREEDY.name:
            raise ValueError(f"{self.level} played {self.opponent}, not the reference")
        return rate_games(self.results)


def wilson(results: Sequence[float]) -> tuple[float, float]:
    """Wilson's 95 % interval for the mean of ``results`` (each 0, 0.5 or 1)."""
    n, p = len(results), statistics.fmean(results)
    centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its normal 95 % interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, Z95 * statistics.stdev(values) / math.sqrt(len(values))


def rate_games(results: Iterable[float]) -> Glicko2:
    """A player starting at ``START`` after ``results`` against the reference, rated in
    periods of ``PERIOD`` games as the club rates."""
    player = START
    games = list(results)
    for start in range(0, len(games), PERIOD):
        period = [Outcome(REFERENCE, result) for result in games[start : start + PERIOD]]
        player = rate(player, period, tau=TAU)
    return player


@dataclass(frozen=True, slots=True)
class Deal:
    """One deal of a series: the game's seed and the players' random seed. Game ``i`` of a
    series is deal ``i // 2`` with the level in seat ``i % 2``."""

    game_seed: bytes
    rng_seed: int


def deals(*, ruleset: str, seed: int, games: int) -> list[Deal]:
    """The deals of ``games`` games: they depend on ``seed`` and ``ruleset`` only, so every
    series of a run meets the same deals, and game ``i`` is the same however it is reached."""
    master = random.Random(f"{seed}:{ruleset}")
    return [Deal(master.randbytes(32), master.randrange(2**31)) for _ in range((games + 1) // 2)]


@dataclass(frozen=True, slots=True)
class Played:
    """One game's outcome for the level: its score, its spread, and 1/0.5/0 for the result."""

    index: int
    score: int
    spread: int
    result: float

    def line(self) -> str:
        return f"{self.index},{self.score},{self.spread},{self.result}\n"

    @classmethod
    def parse(cls, line: str) -> Played:
        index, score, spread, result = line.strip().split(",")
        return cls(int(index), int(score), int(spread), float(result))


def play_one(
    *, ruleset: str, level: Level, against: Level, deal: Deal, index: int, lexicon: Collection[str]
) -> Played:
    """Game ``index`` of a series: ``deal`` with the level in seat ``index % 2``."""
    mine = index % 2
    seats = [Seat.of(against), Seat.of(against)]
    seats[mine] = Seat.of(level)
    game = play_game(
        ruleset=ruleset,
        seed=deal.game_seed,
        seats=(seats[0], seats[1]),
        lexicon=lexicon,
        rng_seed=deal.rng_seed,
    )
    result = 0.5 if game.is_draw else float(game.winner == mine)
    return Played(index, game.scores[mine], game.scores[mine] - game.scores[1 - mine], result)


def play_series(
    *,
    ruleset: str,
    level: Level,
    against: Level = GREEDY,
    games: int,
    seed: int,
    lexicon: Collection[str],
) -> Series:
    """``games`` games of ``level`` against ``against``, each deal twice with the seats
    swapped (an odd ``games`` plays the last deal once)."""
    dealt = deals(ruleset=ruleset, seed=seed, games=games)
    played = [
        play_one(
            ruleset=ruleset,
            level=level,
            against=against,
            deal=dealt[i // 2],
            index=i,
            lexicon=lexicon,
        )
        for i in range(games)
    ]
    return series_of(ruleset, level.name, against.name, played)


def series_of(ruleset: str, level: str, against: str, played: Sequence[Played]) -> Series:
    """The series from its games, in game order."""
    ordered = sorted(played, key=lambda game: game.index)
    return Series(
        ruleset,
        level,
        against,
        len(ordered),
        tuple(game.score for game in ordered),
        tuple(game.spread for game in ordered),
        tuple(game.result for game in ordered),
    )


# ---------------------------------------------------------------- the kept games

#: Each series' games as they are played, one line a game (``index,score,spread,result``):
#: a run stopped (``--minutes``, or killed) goes on where it stopped when run again, so the
#: issue's size can be reached over several runs on a machine with other work.
KEPT = ROOT / "bench" / "results" / "bots"


def kept_path(*, seed: int, ruleset: str, level: str, against: str) -> Path:
    return KEPT / f"seed{seed}-{ruleset}-{level}-v-{against}.csv"


def kept_games(path: Path) -> dict[int, Played]:
    """The games a series has kept (a last line cut short by a kill is left out)."""
    if not path.exists():
        return {}
    found = {}
    for line in path.read_text().splitlines():
        try:
            game = Played.parse(line)
        except ValueError:
            continue
        found[game.index] = game
    return found


_WORKER_LEXICONS: dict[str, Collection[str]] = {}


def _play_kept(task: tuple[str, str, str, Deal, int]) -> Played:
    """A worker's game (levels by name; each worker reads each ruleset's lexicon once)."""
    from lexicon.lexicon import get_lexicon

    ruleset, level, against, deal, index = task
    if ruleset not in _WORKER_LEXICONS:
        _WORKER_LEXICONS[ruleset] = get_lexicon(
            "enable", max_len=get_ruleset(ruleset).lexicon_max_len
        )
    return play_one(
        ruleset=ruleset,
        level=BY_NAME[level],
        against=BY_NAME[against],
        deal=deal,
        index=index,
        lexicon=_WORKER_LEXICONS[ruleset],
    )


class Unfinished(Exception):
    """The run's time ran out before every series had its games (they are kept)."""


def run(
    *,
    games: int,
    seed: int,
    rulesets: Sequence[str],
    workers: int = 1,
    minutes: float | None = None,
) -> list[Series]:
    """Every series of the ladder: each level against the reference, then each step. Games
    already kept are not played again; each new one is kept as it finishes. ``Unfinished``
    when ``minutes`` pass first."""
    from concurrent.futures import ProcessPoolExecutor

    deadline = None if minutes is None else time.monotonic() + minutes * 60
    pairs = [(level, GREEDY) for level in LEVELS] + list(STEPS)
    found = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for name in rulesets:
            dealt = deals(ruleset=name, seed=seed, games=games)
            for level, against in pairs:
                path = kept_path(seed=seed, ruleset=name, level=level.name, against=against.name)
                kept = kept_games(path)
                missing = [i for i in range(games) if i not in kept]
                started = time.perf_counter()
                path.parent.mkdir(parents=True, exist_ok=True)
                for start in range(0, len(missing), workers * 4):
                    if deadline is not None and time.monotonic() > deadline:
                        raise Unfinished(f"{name} {level.name} v {against.name}")
                    chunk = missing[start : start + workers * 4]
                    tasks = [(name, level.name, against.name, dealt[i // 2], i) for i in chunk]
                    with path.open("a+", encoding="utf-8") as out:
                        if out.tell() and (out.seek(out.tell() - 1), out.read(1))[1] != "\n":
                            out.write("\n")  # after a line a kill cut short
                        for game in pool.map(_play_kept, tasks):
                            out.write(game.line())
                            out.flush()
                            kept[game.index] = game
                print(
                    f"{name} {level.name} v {against.name}: {len(missing)} played in "
                    f"{time.perf_counter() - started:.0f} s, {games} in all",
                    file=sys.stderr,
                    flush=True,
                )
                found.append(
                    series_of(name, level.name, against.name, [kept[i] for i in range(games)])
                )
    return found


def against_reference(series: Iterable[Series]) -> list[Series]:
    return [s for s in series if s.opponent == GREEDY.name]


def steps(series: Iterable[Series]) -> list[Series]:
    return [s for s in series if s.opponent != GREEDY.name]


def pooled(series: Sequence[Series], *, level: str) -> Series:
    """A level's games against the reference in every ruleset, as one series (the rulesets'
    games interleaved, so no ruleset's games come all last in the rating)."""
    mine = [s for s in against_reference(series) if s.level == level]
    if not mine:
        raise ValueError(f"no games of {level} against the reference")

    def interleaved(values: Iterable[tuple[float, ...]]) -> tuple[float, ...]:
        return tuple(
            value for value in chain.from_iterable(zip_longest(*values)) if value is not None
        )

    return Series(
        ALL_RULESETS,
        level,
        GREEDY.name,
        sum(s.games for s in mine),
        tuple(int(v) for v in interleaved(s.scores for s in mine)),
        tuple(int(v) for v in interleaved(s.spreads for s in mine)),
        interleaved(s.results for s in mine),
    )


def ladder_data(series: Sequence[Series], *, games: int, seed: int, command: str) -> Ladder:
    """What the pages show: each level's rating per ruleset and over all of them."""
    rated: dict[tuple[str, str], LevelRating] = {}
    reference = against_reference(series)
    everything = list(reference)
    everything += [pooled(series, level=name) for name in dict.fromkeys(s.level for s in reference)]
    for s in everything:
        rating = s.rating()
        rated[(s.ruleset, s.level)] = LevelRating(
            level=s.level,
            ruleset=s.ruleset,
            rating=rating.rating,
            deviation=rating.deviation,
            games=s.games,
            win_rate=s.win_rate,
            average_score=s.average,
        )
    return Ladder(
        command=command,
        seed=seed,
        games=games,
        measured=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        ratings=rated,
    )


def _series_row(s: Series, *, rated: bool) -> list[str]:
    low, high = s.win_interval()
    spread, spread_half = s.mean_interval(s.spreads)
    average, average_half = s.mean_interval(s.scores)
    row = [
        s.ruleset,
        s.level if rated else f"{s.level} v {s.opponent}",
        f"{average:.1f} ± {average_half:.1f}",
        f"{s.win_rate:.1%} ({low:.1%}–{high:.1%})",
        f"{spread:+.1f} ± {spread_half:.1f}",
    ]
    if rated:
        rating = s.rating()
        row.append(f"{rating.rating:.0f} ± {Z95 * rating.deviation:.0f}")
    else:
        row.append("yes" if low > STEP_GOAL else "point only" if s.win_rate > STEP_GOAL else "no")
    return row


def report(
    series: Sequence[Series],
    *,
    games: int,
    seed: int,
    command: str,
    seconds: float | None = None,
) -> str:
    reference = against_reference(series)
    levels = list(dict.fromkeys(s.level for s in reference))
    pools = [pooled(series, level=name) for name in levels]
    rated_rows = [_series_row(s, rated=True) for s in [*reference, *pools]]
    step_rows = [_series_row(s, rated=False) for s in steps(series)]
    per_ruleset = len({s.ruleset for s in series})
    parts = [
        SUBSECTION,
        "",
        (
            f"`{command}` (seed {seed}), {games} games per series and ruleset "
            f"({games * len({(s.level, s.opponent) for s in series})} games per ruleset, "
            f"{per_ruleset} ruleset{'s' if per_ruleset != 1 else ''}), "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {machine()}."
        ),
        "",
        (
            "Hard weighs each move by score plus rack leave, from the shipped tables "
            "(`engine/data/leaves-<ruleset>.json`): "
            + "; ".join(leave_note(name) for name in sorted({s.ruleset for s in series}))
            + ". Each is remade, byte for byte, by `.venv/bin/python -m "
            "engine.leave_train --ruleset <ruleset> --seed <seed> --games <games>`."
        ),
        "",
        levels_line(),
        "",
        size_line(games=games, seconds=seconds),
        "",
        margin_line(series),
        "",
        (
            "**Against the greedy reference** (Greedy anchored at 1500; `all` pools the "
            f"rulesets; ratings by the club's Glicko-2 in periods of {PERIOD} games, ± 1.96 "
            "deviations):"
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
            rated_rows,
        ),
        "",
        (
            f"**Each level against the one below**, head to head (goal: over {STEP_GOAL:.0%}; "
            "`yes` when the interval's lower end is above it):"
        ),
        "",
        table(
            [
                "ruleset",
                "series",
                "average score",
                "win rate (95 %)",
                "spread",
                f"above {STEP_GOAL:.0%}",
            ],
            step_rows,
        ),
        "",
    ]
    return "\n".join(parts)


def size_line(*, games: int, seconds: float | None) -> str:
    """The issue's size against this run's, and what it would cost at this run's pace."""
    line = f"The issue's size is `.venv/bin/python bench/bots.py --games {ISSUE_GAMES}`"
    if games >= ISSUE_GAMES:
        return line + ": this run is at that size."
    if seconds is None:
        return line + "."
    pace = seconds / games
    return (
        f"{line}; this run ({games} games a series) took {seconds / 60:.0f} minutes on one "
        f"core, so that size would take about {pace * ISSUE_GAMES / 60:.0f} minutes at its pace."
    )


def levels_line() -> str:
    """How each level picks, from its definition in engine/computer.py."""

    def how(level: Level) -> str:
        if level.leave:
            return f"{level.name.capitalize()} by score plus rack leave, with endgame care"
        if level.pool == 1:
            return f"{level.name.capitalize()} the highest score"
        return (
            f"{level.name.capitalize()} uniformly among the {level.pool} best plays worth at "
            f"least {level.floor:.0%} of the best"
        )

    return "The levels: " + "; ".join(how(level) for level in (*LEVELS, GREEDY)) + "."


def margin_line(series: Sequence[Series]) -> str:
    """Hard's margin over the reference, over every ruleset's games together."""
    hard = [s for s in against_reference(series) if s.level == HARD.name]
    if not hard:
        return "Hard was not measured in this run."
    together = pooled(series, level=HARD.name)
    low, high = together.win_interval()
    spread, half = together.mean_interval(together.spreads)
    line = (
        f"**Hard with leave against greedy**, all rulesets' {together.games} games: wins "
        f"{together.win_rate:.1%} ({low:.1%}–{high:.1%}), by {spread:+.1f} ± {half:.1f} "
        "points a game on average."
    )
    level = [s.ruleset for s in hard if s.win_interval()[0] <= 0.5]
    if level:
        line += (
            f" Not in every ruleset: in {', '.join(level)} Hard's interval reaches 50%, so there"
            " it is not measurably better than greedy (its table below)."
        )
    return line


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
    parser.add_argument("--games", type=int, default=ISSUE_GAMES, help="per series and ruleset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ruleset", action="append", choices=RULESETS, help="default: all")
    parser.add_argument(
        "--no-write", action="store_true", help="print; write neither the doc nor the ratings"
    )
    parser.add_argument("--workers", type=int, default=1, help="processes playing games")
    parser.add_argument(
        "--minutes",
        type=float,
        default=None,
        help="stop after this long (the games played are kept; run again to go on)",
    )
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error("--games must be at least 2 (a deal from both seats)")
    rulesets = args.ruleset or list(RULESETS)
    # The pace means something only for a whole run in one process.
    whole = args.workers == 1 and not any(KEPT.glob(f"seed{args.seed}-*"))
    started = time.perf_counter()
    try:
        series = run(
            games=args.games,
            seed=args.seed,
            rulesets=rulesets,
            workers=args.workers,
            minutes=args.minutes,
        )
    except Unfinished as stopped:
        print(
            f"Time is up at {stopped}: the games played are kept in {KEPT}; run the same "
            "command again to go on.",
            file=sys.stderr,
        )
        sys.exit(3)
    seconds = time.perf_counter() - started if whole else None
    command = "bench/bots.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = report(
        series, games=args.games, seed=args.seed, command=command.strip(), seconds=seconds
    )
    print(text)
    if args.no_write:
        return
    write_subsection(text)
    if set(rulesets) == set(RULESETS):
        data = ladder_data(series, games=args.games, seed=args.seed, command=command.strip())
        LADDER_PATH.write_text(data.dumps(), encoding="utf-8")
    else:
        print(f"{LADDER_PATH} kept: only a full run (every ruleset) rewrites it", file=sys.stderr)


if __name__ == "__main__":
    main()
