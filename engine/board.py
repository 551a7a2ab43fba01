"""The board as a value, and GCG-style coordinates.

Squares are (row, col), 0-based, top-left first. A square holds nothing (``None``), a capital
letter (a letter tile) or a lower-case letter (a blank standing for that letter). Premium
squares belong to the ruleset's layout, not to the board: a premium counts only for a tile
newly placed on it, which the scorer knows and the board need not remember.

Positions are written as in GCG: ``8H`` is row 8, column H, a word going across; ``H8`` the
same square, a word going down.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .errors import SquareTaken
from .moves import BLANK, PlacedTile

_ACROSS = re.compile(r"^(\d{1,2})([A-Za-z])$")
_DOWN = re.compile(r"^([A-Za-z])(\d{1,2})$")


def format_position(row: int, col: int, *, across: bool) -> str:
    """``(7, 7, across=True)`` -> ``8H``; ``across=False`` -> ``H8``."""
    number, letter = str(row + 1), chr(ord("A") + col)
    return number + letter if across else letter + number


def parse_position(text: str, *, size: int = 15) -> tuple[int, int, bool]:
    """``8H`` -> (7, 7, True); ``H8`` -> (7, 7, False). Raises ValueError when off the board."""
    text = text.strip()
    if match := _ACROSS.match(text):
        row, col, across = int(match[1]) - 1, ord(match[2].upper()) - ord("A"), True
    elif match := _DOWN.match(text):
        row, col, across = int(match[2]) - 1, ord(match[1].upper()) - ord("A"), False
    else:
        raise ValueError(f"not a board position: {text!r}")
    if not (0 <= row < size and 0 <= col < size):
        raise ValueError(f"position {text!r} is off a {size} x {size} board")
    return row, col, across


@dataclass(frozen=True, slots=True)
class Board:
    """A square grid of tiles, stored row by row in one flat tuple."""

    size: int
    cells: tuple[str | None, ...]

    @classmethod
    def empty(cls, size: int = 15) -> Board:
        """A board with nothing on it."""
        return cls(size, (None,) * (size * size))

    @classmethod
    def from_rows(cls, rows: Iterable[str]) -> Board:
        """Rebuild from ``rows()`` output (``.`` is an empty square)."""
        rows = list(rows)
        size = len(rows)
        if any(len(row) != size for row in rows):
            raise ValueError("board rows must form a square")
        cells: list[str | None] = []
        for row in rows:
            for char in row:
                if char == ".":
                    cells.append(None)
                elif char.isascii() and char.isalpha():
                    cells.append(char)
                else:
                    raise ValueError(f"bad board character {char!r}")
        return cls(size, tuple(cells))

    def rows(self) -> tuple[str, ...]:
        """One string per row, ``.`` for empty, lower case for blanks: compact and readable."""
        n = self.size
        flat = "".join(cell or "." for cell in self.cells)
        return tuple(flat[i * n : (i + 1) * n] for i in range(n))

    def get(self, row: int, col: int) -> str | None:
        """The tile at a square as the board stores it, or None."""
        return self.cells[row * self.size + col]

    def __getitem__(self, square: tuple[int, int]) -> str | None:
        row, col = square
        return self.cells[row * self.size + col]

    @property
    def is_empty(self) -> bool:
        """True before the first play."""
        return not any(self.cells)

    def occupied(self) -> Iterator[tuple[int, int, str]]:
        """Every (row, col, tile) on the board, in reading order."""
        n = self.size
        for index, cell in enumerate(self.cells):
            if cell is not None:
                yield index // n, index % n, cell

    def tiles(self) -> list[str]:
        """The tiles on the board as rack tiles (``?`` for a blank), for conservation checks."""
        return [BLANK if cell.islower() else cell for cell in self.cells if cell]

    def place(self, tiles: Iterable[PlacedTile]) -> Board:
        """A new board with the tiles added; no rule checks beyond "the square is empty"."""
        cells = list(self.cells)
        n = self.size
        for tile in tiles:
            index = tile.row * n + tile.col
            if cells[index] is not None:
                raise SquareTaken
            cells[index] = tile.board_char
        return Board(n, tuple(cells))

    def remove(self, squares: Iterable[tuple[int, int]]) -> Board:
        """A new board with those squares emptied (a withdrawn play in a GCG record)."""
        cells = list(self.cells)
        for row, col in squares:
            cells[row * self.size + col] = None
        return Board(self.size, tuple(cells))

    def __str__(self) -> str:
        header = "   " + " ".join(chr(ord("A") + c) for c in range(self.size))
        lines = [header]
        lines.extend(f"{r + 1:>2} " + " ".join(row) for r, row in enumerate(self.rows()))
        return "\n".join(lines)
