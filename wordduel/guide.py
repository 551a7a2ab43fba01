"""The How to play page's worked examples, as positions the engine can play.

Each scoring example is a board (words already played, GCG-style) and the play made on it;
each end-of-game example is the moment before the last turn. The page draws its diagrams from
these positions (the board's own premium squares, the tiles already there, the new tiles);
the numbers in its prose are written by hand, and ``tests/foundation/test_how_to_play.py``
plays every example with the engine and checks that the page states each number it gets.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Board, get_ruleset, parse_position, play_from_gcg

#: The ruleset the examples use (the default, what almost every fixture is played on).
RULESET = "word-duel"

_PREMIUM = {"T": ("tw", "TW"), "D": ("dw", "DW"), "t": ("tl", "TL"), "d": ("dl", "DL")}


@dataclass(frozen=True)
class ScoringExample:
    """A play on a board: ``before`` is what is already there, ``play`` the move, both as GCG
    (position, word); ``.`` or the letter plays through a tile, lower case is a blank."""

    key: str
    before: tuple[tuple[str, str], ...]
    play: tuple[str, str]
    #: The part of the board the diagram shows: first and last row, first and last column
    #: (GCG names, e.g. ("C", 6) to ("J", 10)).
    corner: tuple[str, int]
    far_corner: tuple[str, int]


@dataclass(frozen=True)
class EndingExample:
    """The last turn of a game: racks, scores and the scoreless streak before it.

    ``move`` is ``("play", position, word)`` or ``("pass",)``; the bag is empty.
    """

    key: str
    before: tuple[tuple[str, str], ...]
    racks: tuple[str, str]
    scores: tuple[int, int]
    to_move: int
    scoreless_streak: int
    move: tuple[str, ...]


SCORING_EXAMPLES: tuple[ScoringExample, ...] = (
    ScoringExample("opening", (), ("8D", "ZEBRA"), ("C", 6), ("I", 10)),
    ScoringExample("cross_words", (("8D", "ZEBRA"),), ("9F", "YE"), ("C", 6), ("I", 10)),
    ScoringExample("spent", (("8D", "ZEBRA"),), ("H7", "H.T"), ("C", 6), ("I", 10)),
    ScoringExample("two_words", (("H5", "SOFA"),), ("5E", "CLA.SIC"), ("D", 4), ("L", 8)),
    ScoringExample("bingo", (), ("8H", "RETAINS"), ("G", 6), ("O", 10)),
    ScoringExample("blank", (), ("8H", "RETAiNS"), ("G", 6), ("O", 10)),
)

ENDING_EXAMPLES: tuple[EndingExample, ...] = (
    EndingExample(
        "going_out",
        before=(("8D", "ZEBRA"),),
        racks=("S", "QV"),
        scores=(289, 301),
        to_move=0,
        scoreless_streak=0,
        move=("play", "8D", "ZEBRAS"),
    ),
    EndingExample(
        "six_scoreless",
        before=(("8D", "ZEBRA"),),
        racks=("QZ", "E"),
        scores=(250, 245),
        to_move=1,
        scoreless_streak=5,
        move=("pass",),
    ),
)


def board_before(words: tuple[tuple[str, str], ...], *, ruleset: str = RULESET) -> Board:
    """The board holding ``words``, placed in order as GCG plays."""
    board = Board.empty(get_ruleset(ruleset).board_size)
    for position, word in words:
        board = board.place(play_from_gcg(board, position, word).tiles)
    return board


@dataclass(frozen=True)
class Square:
    """One square of a diagram: its name, its CSS classes and what it shows."""

    name: str
    classes: str
    letter: str
    value: int | None
    #: An empty square's premium (TW, DW, TL, DL, the star) ...
    label: str
    #: ... or the premium under a tile (its label and colour), spent when the tile was there
    #: before this play.
    under: str = ""
    under_css: str = ""
    spent: bool = False


@dataclass(frozen=True)
class Diagram:
    """A window on the board: column letters and rows of squares."""

    key: str
    columns: list[str]
    rows: list[tuple[int, list[Square]]]


def diagram(example: ScoringExample) -> Diagram:
    """The example's window on the board: premiums, the tiles there, the new tiles."""
    rules = get_ruleset(RULESET)
    board = board_before(example.before)
    new = {(t.row, t.col): t for t in play_from_gcg(board, *example.play).tiles}
    top, left, _ = parse_position(f"{example.corner[0]}{example.corner[1]}")
    bottom, right, _ = parse_position(f"{example.far_corner[0]}{example.far_corner[1]}")
    centre = rules.centre
    rows = []
    for row in range(top, bottom + 1):
        squares = []
        for col in range(left, right + 1):
            name = f"{chr(ord('A') + col)}{row + 1}"
            css, label = _PREMIUM.get(rules.premium(row, col), ("", ""))
            if (row, col) == centre:
                css, label = "dw star", "★"
            there = board.get(row, col)
            placed = new.get((row, col))
            if there is None and placed is None:
                squares.append(Square(name, f"sq {css}".strip(), "", None, label))
                continue
            blank = placed.blank if placed is not None else str(there).islower()
            letter = placed.letter if placed is not None else str(there).upper()
            classes = "sq tile" + (" blank" if blank else "") + (" staged" if placed else "")
            value = None if blank else rules.tile_value(letter)
            colour = css.split()[0] if css else ""
            squares.append(Square(name, classes, letter, value, "", label, colour, placed is None))
        rows.append((row + 1, squares))
    columns = [chr(ord("A") + col) for col in range(left, right + 1)]
    return Diagram(example.key, columns, rows)


def diagrams() -> dict[str, Diagram]:
    """Every scoring example's diagram, by key (the template picks them by name)."""
    return {example.key: diagram(example) for example in SCORING_EXAMPLES}
