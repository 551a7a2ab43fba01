"""Move-generation benchmark, run on demand: ``.venv/bin/python bench/movegen.py``.

Lists every legal move (``legal_moves``: plays, swaps, pass) in each real position of the 43
GCG records in tests/fixtures/gcg/ (the board before each play and the rack the record shows,
blanks included; classic ruleset, ENABLE), and measures the word graph (build time, memory).
As a peer baseline it times the ``scrabble`` PyPI package's own best-move search on a sample
of the same positions. Writes the "## Move generation" section of docs/PERFORMANCE.md,
leaving the other sections alone.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import REPORT, machine, percentile, table, write_section  # noqa: E402
from engine import (  # noqa: E402
    BLANK,
    Board,
    Game,
    Play,
    WordGraph,
    get_ruleset,
    legal_moves,
    parse_gcg,
    play_from_gcg,
    word_graph,
)
from engine.gcg import PLAY, WITHDRAWN  # noqa: E402
from lexicon.lexicon import Lexicon, get_lexicon  # noqa: E402

RECORDS = ROOT / "tests" / "fixtures" / "gcg"
SECTION = "## Move generation"
GOAL_MEDIAN_MS = 25.0
GOAL_P95_MS = 250.0


@dataclass(frozen=True)
class Position:
    """A record's board before a play, and the rack the record shows for that play."""

    label: str
    board: Board
    rack: tuple[str, ...]


def record_positions() -> list[Position]:
    """Every play of every record that shows its rack."""
    found: list[Position] = []
    for path in sorted(RECORDS.glob("*.gcg")):
        board = Board.empty(15)
        last: dict[str, Play] = {}
        for event in parse_gcg(path.read_text()).events:
            if event.kind == WITHDRAWN and event.nick in last:
                board = board.remove((t.row, t.col) for t in last.pop(event.nick).tiles)
            elif event.kind == PLAY:
                if event.rack:
                    rack = tuple(sorted(BLANK if c == "?" else c.upper() for c in event.rack))
                    found.append(Position(f"{path.stem}:{event.line}", board, rack))
                play = play_from_gcg(board, event.position or "", event.word or "")
                board = board.place(play.tiles)
                last[event.nick] = play
    return found


def game_at(position: Position, base: Game) -> Game:
    """A classic game in this position: the rack to move, the unseen tiles split between the
    opponent's rack and the bag (so swaps are listed when the bag allows them)."""
    unseen = Counter(base.ruleset.full_bag)
    unseen.subtract(position.board.tiles())
    unseen.subtract(position.rack)
    tiles = sorted(unseen.elements())
    return replace(
        base,
        board=position.board,
        racks=(position.rack, tuple(tiles[:7])),
        bag=tuple(tiles[7:]),
        to_move=0,
    )


def bench_generation(
    positions: list[Position], lexicon: Lexicon, repeat: int
) -> tuple[list[float], list[int]]:
    """Milliseconds to list every move in each position (the fastest of ``repeat`` runs, so a
    moment when the CPU was busy elsewhere does not count) and the number of moves."""
    base = Game.new(ruleset="classic", seed=bytes(32))
    times: list[float] = []
    counts: list[int] = []
    for position in positions:
        game = game_at(position, base)
        best = float("inf")
        for _ in range(repeat):
            started = time.perf_counter()
            moves = legal_moves(game, lexicon=lexicon)
            best = min(best, time.perf_counter() - started)
        times.append(best * 1000)
        counts.append(len(moves))
    return times, counts


def _rss_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * 4096


def bench_graph(lexicon: Lexicon) -> dict[str, float]:
    """Memory (RSS growth over the process's first build, then tracemalloc's retained and
    peak) and build time (median of 3)."""
    gc.collect()
    rss_before = _rss_bytes()
    graph = WordGraph.build(lexicon, name="enable")
    gc.collect()
    rss_after = _rss_bytes()
    del graph
    tracemalloc.start()
    graph = WordGraph.build(lexicon, name="enable")
    retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    builds = []
    for _ in range(3):
        started = time.perf_counter()
        WordGraph.build(lexicon, name="enable")
        builds.append(time.perf_counter() - started)
    stats = graph.stats()
    return {
        "words": stats.words,
        "nodes": stats.nodes,
        "edges": stats.edges,
        "build_s": statistics.median(builds),
        "approx_mb": stats.approx_bytes / 2**20,
        "retained_mb": retained / 2**20,
        "peak_mb": peak / 2**20,
        "rss_mb": (rss_after - rss_before) / 2**20,
    }


def bench_peer(positions: list[Position], samples: int, words: int) -> dict[str, float]:
    """The ``scrabble`` package's best-move search on a sample of the same positions.

    Its ``ScrabbleGame.get_best_move`` tries every permutation of 1-7 rack tiles (13,699 for
    seven different letters), both ways, at each of the 225 squares, copying the whole game
    for every try, spread over ``multiprocessing.Pool(8)`` (which it never closes). Run in
    full it takes hours a position here, so this times its per-square search
    (``get_location_best_move``, what the pool maps over the squares) in this process, for
    an even sample of about ``words`` of the permutations at one square next to the tiles of
    each sampled position (seven tiles, no blank: its blank ``*`` never spells a word), and
    scales by permutations and squares.
    """
    import scrabble.main as peer  # only here: a baseline, not a dependency of the engine

    plain = [
        p for p in positions if BLANK not in p.rack and len(p.rack) == 7 and not p.board.is_empty
    ]
    chosen = [plain[i * len(plain) // samples] for i in range(samples)]
    per_square: list[float] = []
    full: list[float] = []
    for position in chosen:
        game = peer.ScrabbleGame(2)
        for row, col, tile in position.board.occupied():
            game.board[(chr(ord("a") + col), row + 1)] = peer.ScrabbleTile(tile.upper())
        game.move_number = 1
        game.player_rack_list[1] = [peer.ScrabbleTile(tile) for tile in position.rack]
        perms = [
            "".join(p) for size in range(1, 8) for p in itertools.permutations(position.rack, size)
        ]
        square = _square_next_to_tiles(position.board)
        sample = perms[:: max(1, len(perms) // words)]  # short and long words alike
        started = time.perf_counter()
        peer.get_location_best_move(game, square, sample)
        seconds = (time.perf_counter() - started) * len(perms) / len(sample)
        per_square.append(seconds)
        full.append(seconds * 225)
    return {
        "samples": len(chosen),
        "words": words,
        "per_square_s": statistics.median(per_square),
        "full_s": statistics.median(full),
    }


def _square_next_to_tiles(board: Board) -> tuple[str, int]:
    """The first empty square (reading order) beside a tile, in the peer's (column, row)."""
    n = board.size
    for row in range(n):
        for col in range(n):
            if board.get(row, col) is None and any(
                0 <= r < n and 0 <= c < n and board.get(r, c) is not None
                for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            ):
                return (chr(ord("a") + col), row + 1)
    return ("h", 8)


def section(
    positions: list[Position],
    times: list[float],
    counts: list[int],
    graph: dict[str, float],
    peer: dict[str, float] | None,
    repeat: int,
) -> str:
    """The Markdown section with the figures."""
    median = statistics.median(times)
    p95 = percentile(times, 0.95)
    rate = sum(counts) / (sum(times) / 1000)
    blanks = [t for t, p in zip(times, positions, strict=True) if BLANK in p.rack]
    plain = [t for t, p in zip(times, positions, strict=True) if BLANK not in p.rack]
    verdict = "met" if median <= GOAL_MEDIAN_MS and p95 <= GOAL_P95_MS else "NOT met"
    rows = [
        [
            "`legal_moves` (this engine)",
            f"{median:.1f} ms",
            f"{p95:.1f} ms",
            f"{max(times):.0f} ms",
            f"{rate:,.0f}",
        ],
        [
            "  racks without a blank",
            f"{statistics.median(plain):.1f} ms",
            f"{percentile(plain, 0.95):.1f} ms",
            f"{max(plain):.0f} ms",
            "",
        ],
        [
            "  racks with a blank",
            f"{statistics.median(blanks):.1f} ms",
            f"{percentile(blanks, 0.95):.1f} ms",
            f"{max(blanks):.0f} ms",
            "",
        ],
    ]
    if peer is not None:
        rows.append(
            [
                "`scrabble==1.3` `get_best_move` (peer, estimated, one core)",
                f"{peer['full_s']:,.0f} s",
                "",
                "",
                "",
            ]
        )
    text = table(["", "median", "p95", "max", "moves/s"], rows)
    peer_text = ""
    if peer is not None:
        peer_text = f"""
**Peer baseline**: the `scrabble==1.3` package (PyPI) finds its best move by brute force:
every permutation of 1-7 rack tiles (13,699 for seven different letters) tried both ways at
each of the 225 squares, copying the whole game for each try, mapped over
`multiprocessing.Pool(8)`. Run in full that is hours a position here, so the bench timed its
per-square search (`get_location_best_move`, what the pool maps) in one process on
{peer["samples"]:.0f} record positions with seven tiles and no blank, for an even sample of
about {peer["words"]:.0f} permutations at one square beside the tiles, and scaled by
permutations and squares: median
{peer["per_square_s"]:.1f} s a square, about {peer["full_s"]:,.0f} s a position on one core
(at best half that over this machine's two). It also finds less: its new tiles always sit
side by side (never on both sides of a tile already on the board), and a blank never plays.
"""
    return f"""{SECTION}

Measured by `bench/movegen.py` on {time.strftime("%Y-%m-%d")}; machine: {machine()}.
Re-run with `.venv/bin/python bench/movegen.py` (it rewrites this section only).

**Listing every legal move** (`legal_moves(game, lexicon=...)`: every play with its score and
words, every swap, the pass) in each of the {len(positions):,} positions of the 43 GCG records
in `tests/fixtures/gcg/` (the board before each play, the rack the record shows, blanks
included: {len(blanks)} racks hold one or two; classic ruleset, ENABLE; per position the fastest
of {repeat} runs). Moves listed per position: median {statistics.median(counts):.0f}, p95
{percentile([float(c) for c in counts], 0.95):.0f}, max {max(counts):,}.

{text}

Goals: median ≤ {GOAL_MEDIAN_MS:.0f} ms and p95 ≤ {GOAL_P95_MS:.0f} ms: **{verdict}**. A blank
multiplies the plays (each is tried as every letter), so the slow tail is the blank racks.

**Word graph** (`WordGraph.build`, a minimal DAWG of ENABLE, built once per lexicon and kept by
`word_graph`): {graph["words"]:,.0f} words in {graph["nodes"]:,.0f} nodes and
{graph["edges"]:,.0f} edges; build {graph["build_s"]:.2f} s (median of 3); memory
{graph["retained_mb"]:.1f} MiB retained (tracemalloc; peak while building
{graph["peak_mb"]:.1f} MiB), {graph["approx_mb"]:.1f} MiB by `WordGraph.stats()`'s
`sys.getsizeof` count; the process's RSS grew {graph["rss_mb"]:.1f} MiB over the first build
(which includes memory the allocator keeps after the build's garbage is freed).
{peer_text}"""


def main() -> None:
    """Run everything, print the section, write it unless --no-write."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs per position")
    parser.add_argument("--peer-samples", type=int, default=5, help="positions for the peer")
    parser.add_argument("--peer-words", type=int, default=400, help="permutations timed")
    parser.add_argument("--no-peer", action="store_true", help="skip the peer baseline")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    lexicon = get_lexicon("enable", max_len=get_ruleset("classic").lexicon_max_len)
    graph = bench_graph(lexicon)
    word_graph(lexicon)  # built once, outside the timings, as a server process would
    positions = record_positions()
    times, counts = bench_generation(positions, lexicon, args.repeat)
    peer = None if args.no_peer else bench_peer(positions, args.peer_samples, args.peer_words)
    text = section(positions, times, counts, graph, peer, args.repeat)
    print(text)
    if not args.no_write:
        write_section(SECTION, text)
        print(f"written to {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
