"""Reword's swap and steal: a turn's takes checked and applied, then its play checked and scored.

A take-play (``moves.TakePlay``) is one move: up to four takes in order, then a play. Each take
is checked on the board as the takes before it left it; the play on the board after the last
take. Nothing is kept from a refused turn: the functions here return values and never change
their inputs, so ``Game.apply`` applies the whole turn or none of it.

- **Swap**: a tile of the rack (as the turn began: a tile taken this turn can only be played)
  goes on a board tile's square; every word through that square must still be a word; the
  board tile goes to the rack.
- **Steal**: the first or last letter of a word of three or more letters goes to the rack; in
  every direction the tile is part of a word it must be that word's end (a steal never splits
  or erases a word), and what remains of each must be a word. The square stays empty and is
  blocked until the play is made.
- A blank taken from the board comes back unlettered (``?``) and is named again when played.
- **Scoring** is ``scoring.evaluate_play`` on the board after the takes: a taken tile is a new
  tile of the play (its face value, with the premium of the square it lands on); a tile put
  down by a swap is already on the board, so its square gives no premium; the words the takes
  left behind are not scored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container
from dataclasses import dataclass

from .board import Board, format_position
from .errors import (
    NotAnEndLetter,
    NoTileToTake,
    SquareBlocked,
    StealFromShortWord,
    TakeBreaksWord,
    TakenTileNotPlayed,
    TakenTwice,
    TilesNotOnRack,
)
from .moves import BLANK, StealTake, SwapTake, Take, TakePlay
from .rulesets import Ruleset
from .scoring import PlayScore, evaluate_play
from .tiles import remove_tiles


@dataclass(frozen=True, slots=True)
class AfterTakes:
    """The position between a turn's takes and its play."""

    board: Board
    #: The takes made, in order.
    takes: tuple[Take, ...]
    #: The tiles of the rack the turn began with that are still held (less those swapped down).
    own: tuple[str, ...]
    #: The tiles taken, as rack tiles (``?`` for a blank), in the order they were taken.
    taken: tuple[str, ...]
    #: The same tiles as the board held them (a blank's letter in lower case), for the record.
    taken_faces: tuple[str, ...]
    #: Squares stolen from this turn: empty, and no tile may be played on them.
    blocked: frozenset[tuple[int, int]]

    @property
    def rack(self) -> tuple[str, ...]:
        """What the player holds for the play: the rack's own tiles and the taken ones."""
        return (*self.own, *self.taken)


@dataclass(frozen=True, slots=True)
class TakePlayOutcome:
    """A legal take-play: the board after its takes, what it took, its play's score, and the
    tiles left on the rack before the draw."""

    after_takes: AfterTakes
    score: PlayScore
    remaining: tuple[str, ...]


def _runs_through(cells: list[str | None], size: int, index: int) -> list[list[int]]:
    """The words (runs of two or more tiles) through ``index``: across, then down."""
    runs = []
    row_start = index - index % size
    for step, lo, hi in ((1, row_start, row_start + size - 1), (size, index % size, size * size)):
        start = index
        while start - step >= lo and cells[start - step] is not None:
            start -= step
        end = index
        while end + step <= hi and end + step < size * size and cells[end + step] is not None:
            end += step
        if end > start:
            runs.append(list(range(start, end + 1, step)))
    return runs


def _spell(cells: list[str | None], run: list[int]) -> str:
    return "".join(cells[i] or "" for i in run).upper()


def _rack_tile(face: str) -> str:
    """A board tile as it goes back to a rack: a blank loses its letter."""
    return BLANK if face.islower() else face


def apply_takes(
    board: Board,
    rack: tuple[str, ...],
    takes: tuple[Take, ...],
    *,
    lexicon: Container[str] | None,
) -> AfterTakes:
    """The board and rack after ``takes``, each checked where the takes before it left the
    board (``lexicon=None`` skips the word checks). Raises the take's MoveError subclass."""
    size = board.size
    cells = list(board.cells)
    own = list(rack)
    taken: list[str] = []
    faces: list[str] = []
    touched: set[int] = set()
    blocked: set[tuple[int, int]] = set()
    for take in takes:
        index = take.row * size + take.col
        if index in touched:
            raise TakenTwice
        face = cells[index]
        if face is None:
            raise NoTileToTake
        if isinstance(take, SwapTake):
            placed = take.placed
            if placed.rack_tile not in own:
                raise TilesNotOnRack
            own.remove(placed.rack_tile)
            cells[index] = placed.board_char
            words = _runs_through(cells, size, index)
        else:
            words = _runs_through(cells, size, index)
            if not words:
                raise NotAnEndLetter
            if any(len(run) == 2 for run in words):
                raise StealFromShortWord
            if any(index not in (run[0], run[-1]) for run in words):
                raise NotAnEndLetter
            cells[index] = None
            words = [[i for i in run if i != index] for run in words]
            blocked.add((take.row, take.col))
        if lexicon is not None:
            for run in words:
                word = _spell(cells, run)
                if word not in lexicon:
                    raise TakeBreaksWord(word=word)
        touched.add(index)
        taken.append(_rack_tile(face))
        faces.append(face)
    return AfterTakes(
        board=Board(size, tuple(cells)),
        takes=takes,
        own=tuple(own),
        taken=tuple(taken),
        taken_faces=tuple(faces),
        blocked=frozenset(blocked),
    )


def evaluate_take_play(
    board: Board,
    rack: tuple[str, ...],
    move: TakePlay,
    *,
    ruleset: Ruleset,
    lexicon: Container[str] | None,
) -> TakePlayOutcome:
    """Check a whole take-play (its takes in order, then its play) and score it, or raise the
    first rule it breaks. The move's shape has been checked (``moves.check_move_shape``).

    The play's checks, after the takes: no tile on a square stolen from (``SquareBlocked``),
    the tiles on the rack (``TilesNotOnRack``), every taken tile played
    (``TakenTileNotPlayed``), then rules 4-9 and the score on the board the takes left. A
    bingo is a play of at least the ruleset's bingo tiles from a rack that began the turn full.
    """
    after = apply_takes(board, rack, move.takes, lexicon=lexicon)
    for tile in move.tiles:
        if (tile.row, tile.col) in after.blocked:
            raise SquareBlocked(square=format_position(tile.row, tile.col, across=True))
    used = [tile.rack_tile for tile in move.tiles]
    remaining = remove_tiles(after.rack, used)
    if remaining is None:
        raise TilesNotOnRack
    unplayed = Counter(after.taken) - Counter(used)
    if unplayed:
        raise TakenTileNotPlayed(tile=next(t for t in after.taken if t in unplayed))
    score = evaluate_play(
        after.board,
        move.tiles,
        ruleset=ruleset,
        lexicon=lexicon,
        bingo=len(move.tiles) >= ruleset.bingo_tiles and len(rack) >= ruleset.bingo_tiles,
    )
    return TakePlayOutcome(after, score, remaining)


def steal_squares(board: Board) -> tuple[tuple[int, int], ...]:
    """The squares a steal could take from by shape alone (an end letter of a word of three
    or more letters, in every direction it is part of a word), in reading order."""
    size = board.size
    cells = list(board.cells)
    found = []
    for index, face in enumerate(cells):
        if face is None:
            continue
        words = _runs_through(cells, size, index)
        if (
            words
            and all(len(run) >= 3 for run in words)
            and all(index in (run[0], run[-1]) for run in words)
        ):
            found.append((index // size, index % size))
    return tuple(found)


def take_text(take: Take) -> str:
    """A take in short: ``swap 8H Z`` (a named blank in lower case), ``steal 8K``."""
    square = format_position(take.row, take.col, across=True)
    if isinstance(take, StealTake):
        return f"steal {square}"
    return f"swap {square} {take.placed.board_char}"
