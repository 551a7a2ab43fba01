"""Rulesets: every number of docs/RULES.md as data, so the engine has no hard-coded rule.

Three rulesets exist: ``word-duel`` (the default), ``classic`` and ``outspell``; the seed's
variations are rulesets too (``VARIANTS``: ``classic-nine``, 9-tile racks; ``word-skill``, played
in rounds on one shared tray by ``engine.rounds``; ``reword``, Word Duel with swaps and steals
from the board, ``engine/reword.py``), looked up by the same ``get_ruleset`` but kept out of
``RULESETS``, which lists what a match can be created with.

The outspell board is our own 11 × 11 design. It is symmetric under the left–right mirror,
the top–bottom mirror and the main diagonal (so across and down plays are worth the same),
has the star (a DW) in the centre, and scales the standard board's pattern down: TW on the
corners and edge midpoints, a DW diagonal from each corner towards the centre, TL close to the
corners' DW lines, DL near the edges and around the centre::

       A B C D E F G H I J K
     1 T . . d . T . d . . T
     2 . D . . t . t . . D .
     3 . . D . . d . . D . .
     4 d . . D . . . D . . d
     5 . t . . d . d . . t .
     6 T . d . . D . . d . T
     7 . t . . d . d . . t .
     8 d . . D . . . D . . d
     9 . . D . . d . . D . .
    10 . D . . t . t . . D .
    11 T . . d . T . d . . T

(T = triple word, D = double word, t = triple letter, d = double letter: 8 TW, 13 DW with the
star, 8 TL, 16 DL.)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .errors import UnknownRuleset

#: Layout characters: no premium, double letter, triple letter, double word, triple word.
PLAIN, DL, TL, DW, TW = ".", "d", "t", "D", "T"
_LETTER_MULT = {PLAIN: 1, DL: 2, TL: 3, DW: 1, TW: 1}
_WORD_MULT = {PLAIN: 1, DL: 1, TL: 1, DW: 2, TW: 3}

BLANK = "?"

STANDARD_LETTERS: tuple[tuple[str, int, int], ...] = (
    # letter, count, value
    ("A", 9, 1), ("B", 2, 3), ("C", 2, 3), ("D", 4, 2), ("E", 12, 1), ("F", 2, 4),
    ("G", 3, 2), ("H", 2, 4), ("I", 9, 1), ("J", 1, 8), ("K", 1, 5), ("L", 4, 1),
    ("M", 2, 3), ("N", 6, 1), ("O", 8, 1), ("P", 2, 3), ("Q", 1, 10), ("R", 6, 1),
    ("S", 4, 1), ("T", 6, 1), ("U", 4, 1), ("V", 2, 4), ("W", 2, 4), ("X", 1, 8),
    ("Y", 2, 4), ("Z", 1, 10),
)  # fmt: skip

# Seed 000 (Outspell) prints its value table by points; it matches the standard values.
OUTSPELL_VALUES: dict[str, int] = {
    **dict.fromkeys("AEILNORSTU", 1),
    **dict.fromkeys("DG", 2),
    **dict.fromkeys("BCMP", 3),
    **dict.fromkeys("FHVWY", 4),
    "K": 5,
    **dict.fromkeys("JX", 8),
    **dict.fromkeys("QZ", 10),
}


def _layout_from_squares(size: int, premiums: dict[str, str]) -> tuple[str, ...]:
    """Build layout rows from lists of squares named like ``H8`` (column letter, row number)."""
    grid = [[PLAIN] * size for _ in range(size)]
    for kind, squares in premiums.items():
        for square in squares.split():
            col = ord(square[0]) - ord("A")
            row = int(square[1:]) - 1
            grid[row][col] = kind
    return tuple("".join(row) for row in grid)


STANDARD_LAYOUT: tuple[str, ...] = _layout_from_squares(
    15,
    {
        TW: "A1 H1 O1 A8 O8 A15 H15 O15",
        DW: "B2 C3 D4 E5 K5 L4 M3 N2 B14 C13 D12 E11 K11 L12 M13 N14 H8",
        TL: "F2 J2 B6 F6 J6 N6 B10 F10 J10 N10 F14 J14",
        DL: "D1 L1 G3 I3 A4 H4 O4 C7 G7 I7 M7 D8 L8 C9 G9 I9 M9 A12 H12 O12 G13 I13 D15 L15",
    },
)

OUTSPELL_LAYOUT: tuple[str, ...] = tuple(
    row.replace(" ", "")
    for row in (
        "T . . d . T . d . . T",
        ". D . . t . t . . D .",
        ". . D . . d . . D . .",
        "d . . D . . . D . . d",
        ". t . . d . d . . t .",
        "T . d . . D . . d . T",
        ". t . . d . d . . t .",
        "d . . D . . . D . . d",
        ". . D . . d . . D . .",
        ". D . . t . t . . D .",
        "T . . d . T . d . . T",
    )
)


@dataclass(frozen=True)
class Ruleset:
    """One complete set of rule numbers; the engine reads every rule from here."""

    name: str
    board_size: int
    layout: tuple[str, ...]
    #: (tile, count) pairs; ``?`` is the blank.
    distribution: tuple[tuple[str, int], ...]
    #: (letter, value) pairs; a blank is always worth 0.
    values: tuple[tuple[str, int], ...]
    bingo_bonus: int
    #: True: a swap must return the whole rack (outspell); False: any 1..rack_size tiles.
    swap_whole_rack: bool
    #: Tiles the bag must hold for a partial swap (ignored when swap_whole_rack: then the bag
    #: must hold at least as many tiles as the rack).
    swap_min_bag: int
    lexicon_max_len: int
    #: Going out: True, the player who goes out gains the opponent's rack value.
    out_gains_opponent_rack: bool
    #: Tie: True, the higher score before end adjustments wins (classic); False, a draw.
    tie_break_before_adjustments: bool
    rack_size: int = 7
    lexicon_name: str = "enable"
    lexicon_min_len: int = 2
    #: Scoreless turns that end a two-player game (three rounds); a table of N plays
    #: ``scoreless_turns_at(N)`` = three rounds of N turns.
    scoreless_turns_to_end: int = 6
    #: How many seats a game may have (word-duel and outspell: a duel; classic: 2 to 4).
    seat_counts: tuple[int, ...] = (2,)
    #: True: two players also draw for who starts (a table of 3-4 always does); False: at two,
    #: First (seat 0) starts, as every stored game did.
    draw_for_first_at_two: bool = False
    #: Tiles a play must place for the bingo bonus; 0 means the whole rack (``rack_size``).
    #: The 9-tile variation: 7 (so 7, 8 or 9 tiles earn it).
    bingo_min_tiles: int = 0
    #: True: played in rounds, every player on one shared tray (``engine.rounds``), not in
    #: turns: ``seat_counts`` is then empty, so ``Game`` seats nobody under it.
    shared_tray: bool = False
    #: Reword: a turn may swap and steal tiles from the board before its play (``TakePlay``).
    swap_and_steal: bool = False

    # Derived lookups, computed once; not part of identity.
    value_of: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)
    letter_mult: tuple[int, ...] = field(init=False, repr=False, compare=False, hash=False)
    word_mult: tuple[int, ...] = field(init=False, repr=False, compare=False, hash=False)
    full_bag: tuple[str, ...] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if len(self.layout) != self.board_size or any(
            len(row) != self.board_size for row in self.layout
        ):
            raise ValueError(f"ruleset {self.name}: layout is not {self.board_size} square")
        squares = "".join(self.layout)
        object.__setattr__(self, "value_of", dict(self.values))
        object.__setattr__(self, "letter_mult", tuple(_LETTER_MULT[c] for c in squares))
        object.__setattr__(self, "word_mult", tuple(_WORD_MULT[c] for c in squares))
        full = sorted(tile for tile, count in self.distribution for _ in range(count))
        object.__setattr__(self, "full_bag", tuple(full))

    @property
    def centre(self) -> tuple[int, int]:
        """The star: the centre square, (row, col), 0-based."""
        return (self.board_size // 2, self.board_size // 2)

    @property
    def tile_count(self) -> int:
        """How many tiles the full set holds."""
        return len(self.full_bag)

    @property
    def has_blanks(self) -> bool:
        """Whether the set includes blanks."""
        return BLANK in self.full_bag

    def premium(self, row: int, col: int) -> str:
        """The layout character at a square: one of ``. d t D T``."""
        return self.layout[row][col]

    def tile_value(self, tile: str) -> int:
        """Value of a tile as held on a rack (``?`` = blank = 0)."""
        return self.value_of.get(tile, 0)

    def rack_value(self, rack: tuple[str, ...] | str) -> int:
        """Sum of the tiles' values, for end-of-game adjustments."""
        return sum(self.value_of.get(tile, 0) for tile in rack)

    @property
    def bingo_tiles(self) -> int:
        """The fewest tiles a play must place for the bingo bonus."""
        return self.bingo_min_tiles or self.rack_size

    def scoreless_turns_at(self, players: int) -> int:
        """Scoreless turns in a row that end a game of ``players``: three rounds (six at two)."""
        return self.scoreless_turns_to_end * players // 2

    def swap_bag_needed(self, rack_len: int) -> int:
        """Tiles the bag must hold for this player to swap."""
        return rack_len if self.swap_whole_rack else self.swap_min_bag


_STANDARD_DIST = tuple((letter, count) for letter, count, _ in STANDARD_LETTERS)
_STANDARD_VALUES = tuple((letter, value) for letter, _, value in STANDARD_LETTERS)

RULESETS: dict[str, Ruleset] = {
    "word-duel": Ruleset(
        name="word-duel",
        board_size=15,
        layout=STANDARD_LAYOUT,
        distribution=(*_STANDARD_DIST, (BLANK, 3)),
        values=_STANDARD_VALUES,
        bingo_bonus=40,
        swap_whole_rack=False,
        swap_min_bag=7,
        lexicon_max_len=15,
        out_gains_opponent_rack=True,
        tie_break_before_adjustments=False,
    ),
    "classic": Ruleset(
        name="classic",
        board_size=15,
        layout=STANDARD_LAYOUT,
        distribution=(*_STANDARD_DIST, (BLANK, 2)),
        values=_STANDARD_VALUES,
        bingo_bonus=50,
        swap_whole_rack=False,
        swap_min_bag=7,
        lexicon_max_len=15,
        out_gains_opponent_rack=True,
        tie_break_before_adjustments=True,
        seat_counts=(2, 3, 4),
    ),
    "outspell": Ruleset(
        name="outspell",
        board_size=11,
        layout=OUTSPELL_LAYOUT,
        distribution=_STANDARD_DIST,
        values=tuple(sorted(OUTSPELL_VALUES.items())),
        bingo_bonus=40,
        swap_whole_rack=True,
        swap_min_bag=7,
        lexicon_max_len=11,
        out_gains_opponent_rack=False,
        tie_break_before_adjustments=False,
    ),
}

DEFAULT_RULESET = "word-duel"

#: Word Skill (seed 002): its own tile table, letter by letter as the page prints it (142
#: tiles with the 4 blanks, though its text says 100: docs/RULES.md, "Word Skill").
WORD_SKILL_LETTERS: tuple[tuple[str, int, int], ...] = (
    # letter, count, value
    ("A", 12, 1), ("B", 4, 3), ("C", 3, 5), ("D", 6, 2), ("E", 15, 1), ("F", 3, 4),
    ("G", 4, 2), ("H", 4, 4), ("I", 11, 1), ("J", 2, 10), ("K", 2, 5), ("L", 5, 2),
    ("M", 3, 3), ("N", 8, 1), ("O", 10, 1), ("P", 3, 3), ("Q", 2, 10), ("R", 8, 1),
    ("S", 7, 1), ("T", 9, 1), ("U", 5, 3), ("V", 3, 5), ("W", 3, 4), ("X", 2, 10),
    ("Y", 3, 4), ("Z", 1, 10),
)  # fmt: skip

#: The seed's variations, by name: not offered for matches yet (``RULESETS`` is that list).
#: ``word-skill`` is played in rounds (``engine.rounds.RoundsGame``); the page gives no
#: premium layout, so it has the standard board (its star doubles the first word, as ours).
VARIANTS: dict[str, Ruleset] = {
    "classic-nine": replace(
        RULESETS["classic"], name="classic-nine", rack_size=9, bingo_min_tiles=7
    ),
    "word-skill": replace(
        RULESETS["classic"],
        name="word-skill",
        distribution=(*((letter, count) for letter, count, _ in WORD_SKILL_LETTERS), (BLANK, 4)),
        values=tuple((letter, value) for letter, _, value in WORD_SKILL_LETTERS),
        bingo_bonus=50,
        seat_counts=(),
        shared_tray=True,
    ),
    # Reword (seed 004): Word Duel's board, tiles and end scoring (the player who goes out
    # gains the other's rack; each loses their own), plus swaps and steals from the board.
    "reword": replace(RULESETS["word-duel"], name="reword", swap_and_steal=True),
}


def get_ruleset(name: str | Ruleset) -> Ruleset:
    """Look a ruleset up by name (a Ruleset passes through), or raise UnknownRuleset."""
    if isinstance(name, Ruleset):
        return name
    try:
        return RULESETS[name] if name in RULESETS else VARIANTS[name]
    except (KeyError, TypeError):
        raise UnknownRuleset(f"No ruleset is called {name!r}.") from None
