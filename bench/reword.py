"""Reword's computer benchmark, run on demand: ``.venv/bin/python bench/reword.py``.

Takes every position of the golden Reword game (tests/engine/data/reword_golden.json: the
board before each turn and the rack of the player to move: its 19 positions after the
opening, to the endgame) and measures, per position:

- the full one-take search (``takegen.take_plays(max_takes=1)``, no deadline): every legal
  swap and steal and every take-play on each, which is what Easy and Normal look for;
- Hard's two-take search with no deadline, capped at ``--cap`` seconds (how long the budget
  would have to be for Hard to finish it);
- a whole choice at Hard with the default budget (``computer.TAKE_BUDGET``).

Writes the "## Reword's computer" section of docs/PERFORMANCE.md (the default budget is
chosen from these figures: long enough for the one-take search everywhere, the rest of it
going to two-take moves).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import machine, percentile, table, write_section  # noqa: E402
from engine import Game, move_from_dict, word_graph  # noqa: E402
from engine.computer import HARD, TAKE_BUDGET, choose_move  # noqa: E402
from engine.selfplay import seat_position  # noqa: E402
from engine.takegen import legal_takes, take_plays  # noqa: E402
from lexicon.lexicon import get_lexicon  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cap", type=float, default=20.0, help="two-take search cap (s)")
    args = parser.parse_args()
    lexicon = get_lexicon("enable", max_len=15)
    word_graph(lexicon)  # built once, outside the timings
    games = [game for game in positions() if not game.board.is_empty]
    one, two, hard, takes, plays, capped = [], [], [], [], [], 0
    for game in games:
        rack = game.racks[game.to_move]
        started = time.perf_counter()
        found = take_plays(game.board, rack, ruleset="reword", lexicon=lexicon, max_takes=1)
        one.append(time.perf_counter() - started)
        takes.append(len(legal_takes(game.board, rack, lexicon=lexicon)))
        plays.append(len(found))
        started = time.perf_counter()
        take_plays(
            game.board,
            rack,
            ruleset="reword",
            lexicon=lexicon,
            max_takes=2,
            deadline=time.monotonic() + args.cap,
        )
        spent = time.perf_counter() - started
        capped += spent >= args.cap
        two.append(spent)
        started = time.perf_counter()
        choose_move(seat_position(game), lexicon=lexicon, level=HARD, rng=random.Random(1))
        hard.append(time.perf_counter() - started)

    def row(name: str, values: list[float]) -> list[str]:
        return [
            name,
            ms(statistics.median(values)),
            ms(percentile(values, 0.95)),
            ms(max(values)),
        ]

    within = sum(seconds <= TAKE_BUDGET for seconds in one)
    text = f"""## Reword's computer

`bench/reword.py`, {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}; {machine()}.

**Looking for swaps and steals** in the {len(games)} positions of the golden Reword game
(`tests/engine/data/reword_golden.json`: the board before each turn after the first, the rack
of the player to move; ENABLE): legal single takes per position median
{statistics.median(takes):.0f} (max {max(takes)}), one-take moves median
{statistics.median(plays):,.0f} (max {max(plays):,}).

{
        table(
            ["", "median", "p95", "max"],
            [
                row("every one-take move (`take_plays(max_takes=1)`)", one),
                row(f"every two-take move (stopped at {args.cap:.0f} s)", two),
                row(f"a whole choice at Hard (budget {TAKE_BUDGET:.0f} s)", hard),
            ],
        )
    }

The two-take search hit the {args.cap:.0f} s cap in {capped} of {len(games)} positions.

**The budget** (`engine.computer.TAKE_BUDGET`, the `take_budget` keyword of `choose_move`):
{TAKE_BUDGET:.0f} s. The one-take search ends within it in {within} of {len(games)} positions
(a blank on the rack multiplies the swaps and the plays: the slow tail). Where it ends, Hard
spends the rest on two-take moves; where it does not, every level chooses among the takes it
searched, tried from the most valuable tile taken first (a swap giving a blank away last), so
what a cut search misses is mostly the cheap takes. A choice at Hard lasts about the budget
plus the plain plays' listing. Where the budget cuts the search, the move depends on the
machine's speed: the same position and seed give the same move only when the search ends
within the budget (the tests that check what it chooses give it a budget that never cuts).
"""
    write_section("## Reword's computer", text)
    print(text)


if __name__ == "__main__":
    main()
