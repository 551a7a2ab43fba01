"""Reword's computer benchmark, run on demand: ``.venv/bin/python bench/reword.py``.

Takes every position of the golden Reword game (tests/engine/data/reword_golden.json: the
board before each turn and the rack of the player to move: its 19 positions after the
opening, to the endgame; ``--positions N`` keeps the first N) and measures, per position, the
take search (``engine.takegen``) against the search it replaced
(``tests/engine/reference_takegen.py``, the baseline), both in the same run:

- the full one-take search (``take_plays(max_takes=1)``, no deadline): every legal swap and
  steal and every take-play on each, which is what Easy and Normal look for; the two lists
  must be the same set (the bench stops if not);
- Hard's two-take search with no deadline, capped at ``--cap`` seconds (new search only);
- a whole choice at Hard with the default budget (``computer.TAKE_BUDGET``), with each search:
  how long it took, how many take-plays the budget reached, and the chosen move's score.

Writes the "## Reword's computer" section of docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import machine, percentile, table, write_section  # noqa: E402
from engine import (  # noqa: E402
    Game,
    computer,
    move_from_dict,
    word_graph,
)
from engine.computer import HARD, TAKE_BUDGET, choose_move  # noqa: E402
from engine.movegen import LegalMove  # noqa: E402
from engine.selfplay import seat_position  # noqa: E402
from engine.takegen import legal_takes, take_plays  # noqa: E402
from lexicon.lexicon import get_lexicon  # noqa: E402
from tests.engine import reference_takegen  # noqa: E402

T = TypeVar("T")

GOLDEN = ROOT / "tests" / "engine" / "data" / "reword_golden.json"


def positions() -> list[Game]:
    """The game before each of the golden game's turns."""
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    lexicon = get_lexicon("enable", max_len=15)
    game = Game.new(ruleset="reword", seed=bytes.fromhex(data["seed"]))
    found = []
    for action in data["actions"]:
        found.append(game)
        game = game.apply(move_from_dict(action), player=game.to_move, lexicon=lexicon)
    return found


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


@contextmanager
def searching_with(search: Callable[..., tuple[LegalMove, ...]]) -> Iterator[list[int]]:
    """``choose_move`` with ``search`` as its take search; yields a list that gets how many
    take-plays each search listed."""
    counts: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> tuple[LegalMove, ...]:
        found = search(*args, **kwargs)
        counts.append(len(found))
        return found

    # The bench's own swap of the name choose_move calls (it takes no search of its own).
    saved = computer.take_plays  # type: ignore[attr-defined]
    computer.take_plays = counted  # type: ignore[attr-defined]
    try:
        yield counts
    finally:
        computer.take_plays = saved  # type: ignore[attr-defined]


def timed(call: Callable[[], T]) -> tuple[float, T]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cap", type=float, default=6.0, help="two-take search cap (s)")
    parser.add_argument("--positions", type=int, default=0, help="the first N positions only")
    args = parser.parse_args()
    lexicon = get_lexicon("enable", max_len=15)
    _ = word_graph(lexicon).below  # built once, outside the timings
    games = [game for game in positions() if not game.board.is_empty]
    if args.positions:
        games = games[: args.positions]
    searches = {"before": reference_takegen.take_plays, "now": take_plays}
    one: dict[str, list[float]] = {name: [] for name in searches}
    hard: dict[str, list[float]] = {name: [] for name in searches}
    reached: dict[str, list[int]] = {name: [] for name in searches}
    chosen: dict[str, list[int]] = {name: [] for name in searches}
    two, takes, plays, capped, blanks = [], [], [], 0, 0
    for game in games:
        rack = game.racks[game.to_move]
        blanks += "?" in rack
        found = {}
        for name, search in searches.items():
            spent, found[name] = timed(
                partial(search, game.board, rack, ruleset="reword", lexicon=lexicon, max_takes=1)
            )
            one[name].append(spent)
        if set(found["now"]) != set(found["before"]):
            raise SystemExit(f"the searches differ on rack {''.join(rack)}")
        takes.append(len(legal_takes(game.board, rack, lexicon=lexicon)))
        plays.append(len(found["now"]))
        spent, _ = timed(
            partial(
                take_plays,
                game.board,
                rack,
                ruleset="reword",
                lexicon=lexicon,
                max_takes=2,
                deadline=time.monotonic() + args.cap,
            )
        )
        capped += spent >= args.cap
        two.append(spent)
        for name, search in searches.items():
            with searching_with(search) as counts:
                spent, choice = timed(
                    partial(
                        choose_move,
                        seat_position(game),
                        lexicon=lexicon,
                        level=HARD,
                        rng=random.Random(1),
                    )
                )
            hard[name].append(spent)
            reached[name].append(sum(counts))
            chosen[name].append(choice.move.score)

    def row(name: str, values: dict[str, list[float]]) -> list[str]:
        before, now = values["before"], values["now"]
        return [
            name,
            f"{ms(statistics.median(before))} / {ms(statistics.median(now))}",
            f"{ms(percentile(before, 0.95))} / {ms(percentile(now, 0.95))}",
            f"{ms(max(before))} / {ms(max(now))}",
            f"{statistics.median(before) / statistics.median(now):.1f}x",
            f"{percentile(before, 0.95) / percentile(now, 0.95):.1f}x",
        ]

    ratios = [b / n for b, n in zip(one["before"], one["now"], strict=True)]
    better = sum(n > b for b, n in zip(chosen["before"], chosen["now"], strict=True))
    worse = sum(n < b for b, n in zip(chosen["before"], chosen["now"], strict=True))
    within = {name: sum(seconds <= TAKE_BUDGET for seconds in one[name]) for name in searches}
    count = len(games)
    text = f"""## Reword's computer

`bench/reword.py{f" --positions {args.positions}" if args.positions else ""}`, \
{time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}; {machine()}.

**Looking for swaps and steals** in the {count} positions of the golden Reword game
(`tests/engine/data/reword_golden.json`: the board before each turn after the first, the rack
of the player to move, {blanks} of them holding a blank; ENABLE): legal single takes per
position median {statistics.median(takes):.0f} (max {max(takes)}), one-take moves median
{statistics.median(plays):,.0f} (max {max(plays):,}). Each figure is "before / now": the
search this one replaced (`tests/engine/reference_takegen.py`, the baseline) and
`engine.takegen`, timed one after the other on each position in the same run; the ratio is
before over now. Both listed the same moves in every position (the bench checks it).

{
        table(
            ["", "median", "p95", "max", "median ratio", "p95 ratio"],
            [
                row("every one-take move (`take_plays(max_takes=1)`)", one),
                row(f"a whole choice at Hard (budget {TAKE_BUDGET:.0f} s)", hard),
            ],
        )
    }

A choice at Hard lasts about the budget with either search (the take search runs to the
deadline, then every play found is weighed): the ratio on that row is not a speed-up; what
the faster search buys there is more take-plays searched within it (below).

Per position the full one-take search got {statistics.median(ratios):.1f}x faster (median;
{min(ratios):.1f}x to {max(ratios):.1f}x). The new search's two-take search (no deadline,
stopped at {args.cap:.0f} s): median {ms(statistics.median(two))}, hitting the cap in
{capped} of {count} positions.

**Hard at its budget** (`engine.computer.TAKE_BUDGET`, the `take_budget` keyword of
`choose_move`: {TAKE_BUDGET:.0f} s). The one-take search ends within it in
{within["now"]} of {count} positions now, {within["before"]} before. Take-plays the budget
reached per choice: median {statistics.median(reached["before"]):,.0f} before,
{statistics.median(reached["now"]):,.0f} now (total {sum(reached["before"]):,} /
{sum(reached["now"]):,}). The chosen move's score: total {sum(chosen["before"]):,} before,
{sum(chosen["now"]):,} now; higher now in {better} positions, lower in {worse}. Where the
search ends within the budget the choice does not depend on the machine's speed; where the
budget cuts it, what it misses is mostly the cheap takes (takes are tried from the most
valuable tile taken first, a swap giving a blank away last).

**What made it faster** (`engine/takegen.py`, `engine/movegen.py`): the play generator is
told which tiles every play must use (those taken) and which squares it may not use (those
stolen from), and drops a branch of the word graph that no longer holds a letter still to
place (`WordGraph.below`), has too few tiles left for them, or has no empty square left in its
line that could take one, instead of listing every play of the position and filtering (plain
plays keep the search as it was); a listed play is no longer re-checked through
`reword.evaluate_take_play` (the generator's score is the game's, less a bingo the turn's
starting rack was too short for); and takes that leave the same position (the same board,
tiles held, tiles to play and blocked squares, e.g. two takes made in either order) share one
search.
"""
    write_section("## Reword's computer", text)
    print(text)


if __name__ == "__main__":
    main()
