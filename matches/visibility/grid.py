"""The board drawn as a grid of cells: one type for every page that shows a board (a
match, an imported game's replay)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engine import Ruleset, format_position

#: The premium squares' labels, by the ruleset layout's letters.
PREMIUM_LABELS = {"T": "TW", "D": "DW", "t": "TL", "d": "DL"}
CENTRE_LABEL = "★"


@dataclass(frozen=True)
class Cell:
    """One square: its name (``H8``), its tile (a blank in lower case on the board, shown
    upper case here), its premium's class and label, and whether the turn shown placed it."""

    square: str
    letter: str
    blank: bool
    premium: str
    label: str
    placed: bool = False


class GridRow(NamedTuple):
    """A row of the board, numbered from 1 (a tuple, so a template may unpack it)."""

    number: int
    cells: tuple[Cell, ...]


def board_grid(
    *, ruleset: Ruleset, board: Sequence[str], placed: Collection[str] = ()
) -> list[GridRow]:
    """The board as rows of cells: a tile's letter, or the square's premium label.

    ``board`` is one string a row (``.`` empty, lower case a blank); ``placed`` names the
    squares the turn shown placed. Premium labels come from the ruleset's layout (TW/DW/TL/
    DL, the centre star); a covered square shows its tile, as premiums count only on the
    turn a tile lands."""
    rows = []
    for r, line in enumerate(board):
        cells = []
        for c, char in enumerate(line):
            premium = PREMIUM_LABELS.get(ruleset.premium(r, c), "")
            square = format_position(r, c, across=False)
            cells.append(
                Cell(
                    square=square,
                    letter="" if char == "." else char.upper(),
                    blank=char.islower(),
                    premium=premium.lower(),
                    label=CENTRE_LABEL if (r, c) == ruleset.centre else premium,
                    placed=square in placed,
                )
            )
        rows.append(GridRow(number=r + 1, cells=tuple(cells)))
    return rows
