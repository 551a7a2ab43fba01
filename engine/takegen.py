"""Reword's legal moves with swaps and steals: every take, and the take-plays built on them.

A take-play is a play made on the board its takes leave, from the rack they leave, that uses
every tile taken and puts nothing on a square stolen from. So the search reuses the play
generator (``movegen.legal_plays``): for each legal take it lists the plays of the board and
rack after it, told what every play must use (``must_play``: the tiles taken) and where none
may go (``blocked``), which it prunes while it walks the word graph rather than listing every
play and dropping most. Each play it lists is one ``reword.evaluate_take_play`` (what
``Game.apply`` runs) accepts, with the same words and score but for one thing the generator
cannot know, the bingo (the rules give it by the rack the turn began with; a steal adds a
tile), which is corrected here; so a listed move is exactly what the game would accept and
record, without checking it again. Takes that leave the same position (board, tiles held,
tiles to play, blocked squares: two takes on different squares made in either order, or
swaps of like tiles) share one search.

Every single take (``legal_takes``) is listed in full; deeper turns (two to four takes) grow
from the takes that took the most valuable tiles first, for as long as the caller's time
budget (``deadline``, a ``time.monotonic()`` value) lasts. One-take moves are listed in full
when no deadline is given; ``tests/engine/test_reword_takegen.py`` checks them against a brute
force, and ``tests/engine/test_takegen_equivalence.py`` checks the search lists exactly what
the one before it did (kept as ``tests/engine/reference_takegen.py``), for one and two takes.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import replace
from functools import cache

from .board import Board
from .errors import MoveError
from .movegen import LegalMove, legal_plays
from .moves import BLANK, MAX_TAKES, StealTake, SwapTake, Take, TakePlay
from .reword import AfterTakes, apply_takes, steal_squares
from .rulesets import Ruleset, get_ruleset
from .wordgraph import ALPHABET, WordGraph, word_graph


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
    # The plays of each position the takes left, once: takes on different squares made in
    # another order leave the same position (board, tiles held, tiles to play, blocked).
    searched: dict[_PositionKey, tuple[LegalMove, ...]] = {}
    frontier: list[AfterTakes | None] = [None]
    for _depth in range(max_takes):
        grown: list[AfterTakes] = []
        for after in frontier:
            for position in _by_value(legal_takes(board, rack, lexicon=lexicon, after=after)):
                if deadline is not None and time.monotonic() > deadline:
                    return tuple(found)
                found += _plays_after(rack, position, rules, graph, searched)
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


#: What the plays after a turn's takes depend on: the board they left, the tiles held and the
#: tiles taken (sorted: the order they came in changes no play), the squares stolen from.
_PositionKey = tuple[Board, tuple[str, ...], tuple[str, ...], frozenset[tuple[int, int]]]


def _plays_after(
    rack: tuple[str, ...],
    after: AfterTakes,
    rules: Ruleset,
    graph: WordGraph,
    searched: dict[_PositionKey, tuple[LegalMove, ...]],
) -> list[LegalMove]:
    """The take-plays that finish a turn whose takes left ``after``.

    The play generator lists only plays that place every taken tile and keep off the blocked
    squares (it prunes the rest while it walks the word graph), on the board the takes left,
    so each play is what ``reword.evaluate_take_play`` accepts and scores the same; but for
    the bingo, which the rules give by the rack the turn began with (a steal adds a tile)."""
    turn_rack = after.rack
    key = (after.board, tuple(sorted(turn_rack)), tuple(sorted(after.taken)), after.blocked)
    plays = searched.get(key)
    if plays is None:
        plays = searched[key] = legal_plays(
            after.board,
            turn_rack,
            ruleset=_wide(rules, len(turn_rack)),
            graph=graph,
            must_play=after.taken,
            blocked=after.blocked,
        )
    full_rack = len(rack) >= rules.bingo_tiles
    takes, taken = after.takes, after.taken
    moves = []
    for play in plays:
        if play.bingo and not full_rack:
            bingo, score = False, play.score - rules.bingo_bonus
        else:
            bingo, score = play.bingo, play.score
        moves.append(LegalMove(TakePlay(takes, play.tiles), score, play.words, bingo, taken))
    return moves
