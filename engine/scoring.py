"""Rules 4 (square taken) to 9 and the score of a play, from the board alone.

This is the board-only path: it needs no racks, so GCG records can be re-scored with it, and
``Game.apply`` calls it after the rack checks. The checks run in docs/RULES.md's order and the
first failure is raised.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass

from .board import Board, format_position
from .errors import (
    FirstWordTooShort,
    MissesStar,
    NotAWord,
    NotConnected,
    NotInLine,
    SquareTaken,
)
from .moves import PlacedTile, Play, check_move_shape
from .rulesets import Ruleset, get_ruleset


@dataclass(frozen=True, slots=True)
class WordScore:
    """A word the play formed, where it lies, and what it scored."""

    #: The word as the board spells it; a blank's letter in lower case.
    tiles: str
    row: int
    col: int
    across: bool
    score: int

    @property
    def word(self) -> str:
        """The word in capitals, as the dictionary check and messages use it."""
        return self.tiles.upper()

    @property
    def position(self) -> str:
        """GCG position of its first letter (``8H`` across, ``H8`` down)."""
        return format_position(self.row, self.col, across=self.across)

    def to_json(self) -> dict[str, object]:
        """Plain JSON types."""
        return {
            "tiles": self.tiles,
            "row": self.row,
            "col": self.col,
            "across": self.across,
            "score": self.score,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> WordScore:
        """Inverse of ``to_json``."""
        return cls(
            tiles=str(data["tiles"]),
            row=int(data["row"]),  # type: ignore[call-overload]
            col=int(data["col"]),  # type: ignore[call-overload]
            across=bool(data["across"]),
            score=int(data["score"]),  # type: ignore[call-overload]
        )


@dataclass(frozen=True, slots=True)
class PlayScore:
    """The outcome of a legal play: its words (main word first), bingo, total."""

    words: tuple[WordScore, ...]
    bingo: bool
    score: int

    @property
    def main_word(self) -> WordScore:
        """The word along the line of the play."""
        return self.words[0]


def _extent(
    cells: tuple[str | None, ...], new: dict[int, str], index: int, size: int, *, across: bool
) -> list[int]:
    """Squares of the run of tiles (old or new) through ``index`` in one direction."""
    if across:
        row_start = index - index % size
        lo, hi, step = row_start, row_start + size - 1, 1
    else:
        lo, hi, step = index % size, index % size + size * (size - 1), size
    start = index
    while start - step >= lo and (cells[start - step] is not None or (start - step) in new):
        start -= step
    end = index
    while end + step <= hi and (cells[end + step] is not None or (end + step) in new):
        end += step
    return list(range(start, end + 1, step))


def evaluate_play(
    board: Board,
    tiles: Sequence[PlacedTile],
    *,
    ruleset: Ruleset,
    lexicon: Container[str] | None = None,
    bingo: bool | None = None,
) -> PlayScore:
    """Check rules 4 (empty squares) to 9 for well-formed tiles and score the play.

    ``bingo`` says whether the bonus applies; None means "at least the ruleset's bingo_tiles placed"
    (what a GCG record implies). The caller has already checked the move's shape.
    """
    size = board.size
    cells = board.cells
    new: dict[int, str] = {}
    for tile in tiles:
        index = tile.row * size + tile.col
        if cells[index] is not None:
            raise SquareTaken
        new[index] = tile.letter.lower() if tile.blank else tile.letter

    # Rule 5: one line, no gaps.
    across: bool | None = None
    if len(new) > 1:
        rows = {tile.row for tile in tiles}
        cols = {tile.col for tile in tiles}
        if len(rows) == 1:
            across = True
        elif len(cols) == 1:
            across = False
        else:
            raise NotInLine
        ordered = sorted(new)
        step = 1 if across else size
        for index in range(ordered[0], ordered[-1] + 1, step):
            if cells[index] is None and index not in new:
                raise NotInLine

    # Rules 6-8: the first play covers the star with two or more tiles; later ones connect.
    if not any(cells):
        centre = (size // 2) * size + size // 2
        if centre not in new:
            raise MissesStar
        if len(new) < 2:
            raise FirstWordTooShort
    else:
        for index in new:
            col = index % size
            if (
                (col > 0 and cells[index - 1] is not None)
                or (col < size - 1 and cells[index + 1] is not None)
                or (index >= size and cells[index - size] is not None)
                or (index + size < size * size and cells[index + size] is not None)
            ):
                break
        else:
            raise NotConnected

    # The words: main word first, then cross-words in board order.
    first = min(new)
    if across is None:  # one tile: across when that makes a word, else down
        across_run = _extent(cells, new, first, size, across=True)
        across = len(across_run) >= 2
        main = across_run if across else _extent(cells, new, first, size, across=False)
    else:
        main = _extent(cells, new, first, size, across=across)
    runs = [(main, across)]
    for index in sorted(new):
        cross = _extent(cells, new, index, size, across=not across)
        if len(cross) >= 2:
            runs.append((cross, not across))

    spelled = ["".join(new.get(i) or cells[i] for i in run) for run, _ in runs]  # type: ignore[misc]
    if lexicon is not None:
        for text in spelled:
            word = text.upper()
            if word not in lexicon:
                raise NotAWord(word)

    # Score each word: letter premiums and word multipliers only under new tiles.
    values = ruleset.value_of
    letter_mult = ruleset.letter_mult
    word_mult = ruleset.word_mult
    words: list[WordScore] = []
    total = 0
    for (run, run_across), text in zip(runs, spelled, strict=True):
        points = 0
        multiplier = 1
        for index in run:
            char = new.get(index)
            if char is None:
                points += values.get(cells[index], 0)  # type: ignore[arg-type]
            else:
                points += values.get(char, 0) * letter_mult[index]
                multiplier *= word_mult[index]
        score = points * multiplier
        total += score
        words.append(WordScore(text, run[0] // size, run[0] % size, run_across, score))
    is_bingo = len(new) >= ruleset.bingo_tiles if bingo is None else bingo
    if is_bingo:
        total += ruleset.bingo_bonus
    return PlayScore(tuple(words), is_bingo, total)


def score_play(
    board: Board,
    tiles: Sequence[PlacedTile] | Play,
    *,
    ruleset: Ruleset | str = "word-duel",
    lexicon: Container[str] | None = None,
    bingo: bool | None = None,
) -> PlayScore:
    """Validate and score a play against a board alone (no racks): the public board-only path.

    Raises the same MoveError subclasses as ``Game.apply`` for rules 4-9 and MalformedMove for
    a badly shaped play.
    """
    rules = get_ruleset(ruleset)
    play = tiles if isinstance(tiles, Play) else Play(tuple(tiles))
    check_move_shape(play, board_size=board.size, max_tiles=rules.rack_size)
    return evaluate_play(board, play.tiles, ruleset=rules, lexicon=lexicon, bingo=bingo)
