"""Moves as small frozen values, and the one parser from the wire's plain dicts.

Wire shapes::

    {"kind": "play", "tiles": [{"row": 7, "col": 7, "letter": "A", "blank": false}, ...]}
    {"kind": "swap", "tiles": ["A", "?"]}
    {"kind": "pass"}
    {"kind": "take_play", "takes": [{"take": "swap", "row": 7, "col": 7, "letter": "Z",
     "blank": false}, {"take": "steal", "row": 3, "col": 9}], "tiles": [...]}

Rows and columns are 0-based. A blank on the board carries the letter it stands for and
``blank: true``; in a swap a blank is ``?``. A ``take_play`` (the reword ruleset) swaps and
steals tiles from the board, in order, then places ``tiles``, which must use every tile taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import BlankNeedsLetter, MalformedMove, TooManyTakes

LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
BLANK = "?"
MAX_TILES = 7
#: Reword: the most swaps and steals one turn may make, in any mix.
MAX_TAKES = 4


@dataclass(frozen=True, slots=True)
class PlacedTile:
    """One tile put on the board this turn; ``letter`` is its face (a blank's chosen letter)."""

    row: int
    col: int
    letter: str
    blank: bool = False

    @property
    def rack_tile(self) -> str:
        """The tile this takes from the rack: its letter, or ``?`` for a blank."""
        return BLANK if self.blank else self.letter

    @property
    def board_char(self) -> str:
        """How the board stores it: capital for a letter tile, lower case for a blank."""
        return self.letter.lower() if self.blank else self.letter

    def to_dict(self) -> dict[str, Any]:
        """The wire shape."""
        return {"row": self.row, "col": self.col, "letter": self.letter, "blank": self.blank}


@dataclass(frozen=True, slots=True)
class Play:
    """Place tiles on the board."""

    kind: ClassVar[str] = "play"
    tiles: tuple[PlacedTile, ...]

    def to_dict(self) -> dict[str, Any]:
        """The wire shape."""
        return {"kind": "play", "tiles": [tile.to_dict() for tile in self.tiles]}


@dataclass(frozen=True, slots=True)
class Swap:
    """Return tiles (``?`` for a blank) to the bag and draw as many."""

    kind: ClassVar[str] = "swap"
    tiles: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """The wire shape."""
        return {"kind": "swap", "tiles": list(self.tiles)}


@dataclass(frozen=True, slots=True)
class Pass:
    """Give up the turn."""

    kind: ClassVar[str] = "pass"

    def to_dict(self) -> dict[str, Any]:
        """The wire shape."""
        return {"kind": "pass"}


@dataclass(frozen=True, slots=True)
class SwapTake:
    """Reword: put a rack tile on a board tile's square; the board tile goes to the rack.

    ``letter`` is the face the rack tile shows there (a blank's chosen letter, ``blank``)."""

    kind: ClassVar[str] = "swap"
    row: int
    col: int
    letter: str
    blank: bool = False

    @property
    def placed(self) -> PlacedTile:
        """The rack tile as it lands on the board."""
        return PlacedTile(self.row, self.col, self.letter, self.blank)

    def to_dict(self) -> dict[str, Any]:
        """The wire shape."""
        return {"take": "swap", **self.placed.to_dict()}


@dataclass(frozen=True, slots=True)
class StealTake:
    """Reword: take the first or last letter of a word of three or more letters to the rack;
    its square stays empty and blocked until the turn's play is made."""

    kind: ClassVar[str] = "steal"
    row: int
    col: int

    def to_dict(self) -> dict[str, Any]:
        """The wire shape."""
        return {"take": "steal", "row": self.row, "col": self.col}


Take = SwapTake | StealTake


@dataclass(frozen=True, slots=True)
class TakePlay:
    """Reword: one to four takes (swaps and steals, in order), then a play of ``tiles`` that
    uses every tile taken. One move: checked whole and applied at once."""

    kind: ClassVar[str] = "take_play"
    takes: tuple[Take, ...]
    tiles: tuple[PlacedTile, ...]

    @property
    def play(self) -> Play:
        """The play part alone (on the board as the takes left it)."""
        return Play(self.tiles)

    def to_dict(self) -> dict[str, Any]:
        """The wire shape."""
        return {
            "kind": "take_play",
            "takes": [take.to_dict() for take in self.takes],
            "tiles": [tile.to_dict() for tile in self.tiles],
        }


Move = Play | Swap | Pass | TakePlay


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_move_shape(move: object, *, board_size: int = 15, max_tiles: int = MAX_TILES) -> None:
    """Raise MalformedMove unless ``move`` is a well-formed Play, Swap or Pass.

    Used by both the wire parser and ``Game.apply`` so a hand-built move is held to the same
    standard as one that came over a socket.
    """
    if isinstance(move, Pass):
        return
    if isinstance(move, TakePlay):
        _check_takes(move, board_size=board_size)
        check_move_shape(Play(move.tiles), board_size=board_size, max_tiles=max_tiles + MAX_TAKES)
        return
    if isinstance(move, Swap):
        letters = move.tiles
        if not isinstance(letters, tuple):
            raise MalformedMove("A swap's tiles must be a tuple of letters.")
        if not 1 <= len(letters) <= max_tiles:
            raise MalformedMove(f"A swap returns 1 to {max_tiles} tiles.")
        for letter in letters:
            if not isinstance(letter, str) or (letter not in LETTERS and letter != BLANK):
                raise MalformedMove("A swapped tile must be a letter A–Z or ? for a blank.")
        return
    if not isinstance(move, Play):
        raise MalformedMove("A move must be a play, a swap or a pass.")
    placed = move.tiles
    if not isinstance(placed, tuple):
        raise MalformedMove("A play's tiles must be a tuple of placed tiles.")
    if not 1 <= len(placed) <= max_tiles:
        raise MalformedMove(f"A play places 1 to {max_tiles} tiles.")
    seen: set[tuple[int, int]] = set()
    for tile in placed:
        if not isinstance(tile, PlacedTile):
            raise MalformedMove("A placed tile must have a row, a column and a letter.")
        if not (_is_int(tile.row) and _is_int(tile.col)):
            raise MalformedMove("A tile's row and column must be whole numbers.")
        if not (0 <= tile.row < board_size and 0 <= tile.col < board_size):
            raise MalformedMove(f"Square ({tile.row}, {tile.col}) is off the board.")
        if not isinstance(tile.blank, bool):
            raise MalformedMove("A tile's blank flag must be true or false.")
        if not isinstance(tile.letter, str) or tile.letter not in LETTERS:
            if tile.blank:
                raise BlankNeedsLetter
            raise MalformedMove("A tile's letter must be one of A–Z.")
        square = (tile.row, tile.col)
        if square in seen:
            raise MalformedMove("Two tiles were placed on the same square.")
        seen.add(square)


def _check_takes(move: TakePlay, *, board_size: int) -> None:
    """A take-play's takes: 1 to MAX_TAKES swaps and steals on the board (the fifth is
    ``TooManyTakes``), a swap's tile a letter or a named blank."""
    takes = move.takes
    if not isinstance(takes, tuple) or not isinstance(move.tiles, tuple):
        raise MalformedMove("A take-play's takes and tiles must be tuples.")
    if not takes:
        raise MalformedMove("A take-play swaps or steals at least one tile.")
    if len(takes) > MAX_TAKES:
        raise TooManyTakes
    for take in takes:
        if not isinstance(take, SwapTake | StealTake):
            raise MalformedMove("A take must be a swap or a steal.")
        if not (_is_int(take.row) and _is_int(take.col)):
            raise MalformedMove("A tile's row and column must be whole numbers.")
        if not (0 <= take.row < board_size and 0 <= take.col < board_size):
            raise MalformedMove(f"Square ({take.row}, {take.col}) is off the board.")
        if isinstance(take, SwapTake):
            if not isinstance(take.blank, bool):
                raise MalformedMove("A tile's blank flag must be true or false.")
            if not isinstance(take.letter, str) or take.letter not in LETTERS:
                if take.blank:
                    raise BlankNeedsLetter
                raise MalformedMove("A tile's letter must be one of A–Z.")


_PLAY_KEYS = frozenset({"kind", "tiles"})
_TILE_KEYS = frozenset({"row", "col", "letter", "blank"})


def _check_keys(data: dict[Any, Any], allowed: frozenset[str], what: str) -> None:
    extra = [key for key in data if key not in allowed]
    if extra:
        names = ", ".join(sorted(repr(key) for key in extra))
        raise MalformedMove(f"Unexpected field in {what}: {names}.")


def _tile_from_dict(data: object) -> PlacedTile:
    if not isinstance(data, dict):
        raise MalformedMove("A placed tile must be an object with row, col, letter and blank.")
    _check_keys(data, _TILE_KEYS, "a placed tile")
    if "row" not in data or "col" not in data:
        raise MalformedMove("A placed tile needs a row and a col.")
    blank = data.get("blank", False)
    if not isinstance(blank, bool):
        raise MalformedMove("A tile's blank flag must be true or false.")
    letter = data.get("letter")
    if blank and (not isinstance(letter, str) or letter not in LETTERS):
        raise BlankNeedsLetter
    if "letter" not in data:
        raise MalformedMove("A placed tile needs a letter.")
    return PlacedTile(row=data["row"], col=data["col"], letter=letter, blank=blank)  # type: ignore[arg-type]


_TAKE_PLAY_KEYS = frozenset({"kind", "takes", "tiles"})
_STEAL_KEYS = frozenset({"take", "row", "col"})


def _take_from_dict(data: object) -> Take:
    if not isinstance(data, dict):
        raise MalformedMove("A take must be an object with take, row and col.")
    kind = data.get("take")
    if kind == "steal":
        _check_keys(data, _STEAL_KEYS, "a steal")
        if "row" not in data or "col" not in data:
            raise MalformedMove("A placed tile needs a row and a col.")
        return StealTake(row=data["row"], col=data["col"])
    if kind == "swap":
        tile = _tile_from_dict({key: value for key, value in data.items() if key != "take"})
        return SwapTake(row=tile.row, col=tile.col, letter=tile.letter, blank=tile.blank)
    raise MalformedMove("A take must be a swap or a steal.")


def move_from_dict(data: object, *, board_size: int = 15, max_tiles: int = MAX_TILES) -> Move:
    """Parse a wire dict into a Move, or raise MalformedMove saying what is wrong."""
    if not isinstance(data, dict):
        raise MalformedMove("A move must be an object with a kind.")
    kind = data.get("kind")
    move: Move
    if kind == "pass":
        _check_keys(data, frozenset({"kind"}), "a pass")
        move = Pass()
    elif kind == "swap":
        _check_keys(data, _PLAY_KEYS, "a swap")
        tiles = data.get("tiles")
        if not isinstance(tiles, list):
            raise MalformedMove("A swap needs a list of tiles.")
        move = Swap(tiles=tuple(tiles))
    elif kind == "play":
        _check_keys(data, _PLAY_KEYS, "a play")
        tiles = data.get("tiles")
        if not isinstance(tiles, list):
            raise MalformedMove("A play needs a list of tiles.")
        if not 1 <= len(tiles) <= max_tiles:
            raise MalformedMove(f"A play places 1 to {max_tiles} tiles.")
        move = Play(tiles=tuple(_tile_from_dict(tile) for tile in tiles))
    elif kind == "take_play":
        _check_keys(data, _TAKE_PLAY_KEYS, "a take-play")
        takes, tiles = data.get("takes"), data.get("tiles")
        if not isinstance(takes, list) or not isinstance(tiles, list):
            raise MalformedMove("A take-play needs a list of takes and a list of tiles.")
        if len(takes) > MAX_TAKES:
            raise TooManyTakes
        if not 1 <= len(tiles) <= max_tiles + MAX_TAKES:
            raise MalformedMove(f"A play places 1 to {max_tiles + MAX_TAKES} tiles.")
        move = TakePlay(
            takes=tuple(_take_from_dict(take) for take in takes),
            tiles=tuple(_tile_from_dict(tile) for tile in tiles),
        )
    else:
        raise MalformedMove("A move's kind must be play, swap, pass or take_play.")
    check_move_shape(move, board_size=board_size, max_tiles=max_tiles)
    return move
