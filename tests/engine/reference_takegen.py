"""The take search as it was before it was made faster (kept as the reference only).

``tests/engine/test_takegen_equivalence.py`` checks that ``engine.takegen`` lists exactly
what this lists, and ``bench/reword.py`` times the two in the same run. The original
docstring follows.

Reword's legal moves with swaps and steals: every take, and the take-plays built on them.

A take-play is a play made on the board its takes leave, from the rack they leave, that uses
every tile taken and puts nothing on a square stolen from. So the search reuses the play
generator (``movegen.legal_plays``): for each legal take it lists the plays of the board and
rack after it, keeps those that place every taken tile and avoid the blocked squares, and
scores each through ``reword.evaluate_take_play`` (what ``Game.apply`` runs), so a listed move
is exactly what the game would accept and record.

Every single take (``legal_takes``) is listed in full; deeper turns (two to four takes) grow
from the takes that took the most valuable tiles first, for as long as the caller's time
budget (``deadline``, a ``time.monotonic()`` value) lasts. One-take moves are listed in full
when no deadline is given; ``tests/engine/test_reword_takegen.py`` checks them against a brute
force.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Collection
from dataclasses import replace
from functools import cache

from engine.board import Board
from engine.errors import MoveError
from engine.movegen import LegalMove, legal_plays
from engine.moves import BLANK, MAX_TAKES, StealTake, SwapTake, Take, TakePlay
from engine.reword import AfterTakes, apply_takes, evaluate_take_play, steal_squares
from engine.rulesets import Ruleset, get_ruleset
from engine.wordgraph import ALPHABET, WordGraph, word_graph


def legal_takes(
    board: Board,
    rack: tuple[str, ...],
    *,
    lexicon: Collection[str],
    after: AfterTakes | None = None,
) -> tuple[AfterTakes, ...]:
    """Every take legal now, as the position it leaves (its last take is the take): steals in
    reading order, then swaps (square by square, each distinct rack tile; a blank as every
    letter). ``after`` continues a turn: the takes already made (board, rack, blocked)."""
    start = after.board if after is not None else board
    own = tuple(sorted(set(after.own if after is not None else rack)))
    found: list[AfterTakes] = []
    candidates: list[Take] = [StealTake(row, col) for row, col in steal_squares(start)]
    for row, col, _ in start.occupied():
        for tile in own:
            if tile == BLANK:
                candidates += [SwapTake(row, col, letter, blank=True) for letter in ALPHABET]
            else:
                candidates.append(SwapTake(row, col, tile))
    for take in candidates:
        try:
            found.append(_take_more(board, rack, after, take, lexicon))
        except MoveError:
            continue
    return tuple(found)


def _take_more(
    board: Board,
    rack: tuple[str, ...],
    after: AfterTakes | None,
    take: Take,
    lexicon: Collection[str],
) -> AfterTakes:
    """The position after one more take (checked as the whole turn would be)."""
    takes = (*_takes_of(after), take)
    return apply_takes(board, rack, takes, lexicon=lexicon)


def _takes_of(after: AfterTakes | None) -> tuple[Take, ...]:
    return () if after is None else after.takes


@cache
def _wide(rules: Ruleset, tiles: int) -> Ruleset:
    """The ruleset with room for a rack of ``tiles`` (so a play may use a steal's eighth)."""
    if tiles <= rules.rack_size:
        return rules
    return replace(rules, rack_size=tiles, bingo_min_tiles=rules.bingo_tiles)


def take_plays(
    board: Board,
    rack: tuple[str, ...],
    *,
    ruleset: Ruleset | str,
    lexicon: Collection[str],
    max_takes: int = 1,
    deadline: float | None = None,
    graph: WordGraph | None = None,
) -> tuple[LegalMove, ...]:
    """The take-plays of ``rack`` on ``board`` with 1 to ``max_takes`` takes, each scored as
    ``Game.apply`` would score it; the search stops at ``deadline`` (``time.monotonic()``)."""
    rules = get_ruleset(ruleset)
    if not rules.swap_and_steal or board.is_empty:
        return ()
    if graph is None:
        graph = word_graph(lexicon)
    max_takes = min(max_takes, MAX_TAKES)
    found: list[LegalMove] = []
    frontier: list[AfterTakes | None] = [None]
    for _depth in range(max_takes):
        grown: list[AfterTakes] = []
        for after in frontier:
            for position in _by_value(legal_takes(board, rack, lexicon=lexicon, after=after)):
                if deadline is not None and time.monotonic() > deadline:
                    return tuple(found)
                found += _plays_after(board, rack, position, rules, lexicon, graph)
                grown.append(position)
        frontier = list(grown)
    return tuple(found)


#: The order takes are tried in: the most valuable tile taken first, a blank last.
_TRY_ORDER = {letter: index for index, letter in enumerate("ZQXJKFHVWYBCMPDGLNRSTUAEIO?")}


def _by_value(takes: tuple[AfterTakes, ...]) -> list[AfterTakes]:
    """The takes that took the most valuable tiles first, and a swap that gives a blank away
    last of all (a budget is spent on the likeliest first; the order changes nothing else)."""

    def order(after: AfterTakes) -> tuple[bool, int]:
        last = after.takes[-1]
        gives_blank = isinstance(last, SwapTake) and last.blank
        return (gives_blank, _TRY_ORDER.get(after.taken[-1], 99))

    return sorted(takes, key=order)


def _plays_after(
    board: Board,
    rack: tuple[str, ...],
    after: AfterTakes,
    rules: Ruleset,
    lexicon: Collection[str],
    graph: WordGraph,
) -> list[LegalMove]:
    """The take-plays that finish a turn whose takes left ``after``."""
    turn_rack = after.rack
    needed = Counter(after.taken)
    moves = []
    wide = _wide(rules, len(turn_rack))
    for play in legal_plays(after.board, turn_rack, ruleset=wide, graph=graph):
        tiles = play.tiles
        if after.blocked and any((tile.row, tile.col) in after.blocked for tile in tiles):
            continue
        if needed - Counter(tile.rack_tile for tile in tiles):
            continue
        move = TakePlay(after.takes, tiles)
        outcome = evaluate_take_play(board, rack, move, ruleset=rules, lexicon=lexicon)
        score = outcome.score
        moves.append(LegalMove(move, score.score, score.words, score.bingo, after.taken))
    return moves
