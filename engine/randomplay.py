"""A random player that finds real legal moves: drives property tests and benches to game end.

Not a strong player, and not meant to be: it picks a random line of tiles on the board (or
the star), looks up words made of those letters plus some of the rack in an anagram index,
tries them
through ``Game.apply`` and keeps the first one the rules accept. It falls back to a swap, then
to a pass, so every game it plays reaches an end.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Container, Iterable
from functools import lru_cache
from itertools import combinations

from .errors import MoveError
from .game import Game
from .moves import BLANK, Move, Pass, PlacedTile, Play, Swap
from .scoring import evaluate_play

_COMMON = "EAIONRTLSUDG"


class AnagramIndex:
    """Words grouped by their sorted letters, so "what can these letters spell" is one lookup."""

    def __init__(self, words: Iterable[str], *, max_len: int = 15) -> None:
        self.max_len = max_len
        groups: dict[str, list[str]] = defaultdict(list)
        for word in sorted(words):
            if 2 <= len(word) <= max_len:
                groups["".join(sorted(word))].append(word)
        self._groups = {key: tuple(group) for key, group in groups.items()}

    def __len__(self) -> int:
        return len(self._groups)

    def get(self, key: str) -> tuple[str, ...]:
        """Words spelled by exactly the letters of ``key`` (which must be sorted)."""
        return self._groups.get(key, ())


@lru_cache(maxsize=4096)
def _combos(rack: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """Distinct sub-multisets of a sorted rack: (letters without blanks, number of blanks)."""
    combos = {combo for size in range(1, len(rack) + 1) for combo in combinations(rack, size)}
    return tuple(
        ("".join(tile for tile in combo if tile != BLANK), combo.count(BLANK))
        for combo in sorted(combos)
    )


def _rack_subsets(rack: tuple[str, ...], rng: random.Random) -> list[tuple[str, tuple[str, ...]]]:
    """Sub-multisets of the rack as (sorted letters, letters the blanks stand for)."""
    subsets: list[tuple[str, tuple[str, ...]]] = []
    for letters, blanks in _combos(tuple(sorted(rack))):
        if not blanks:
            subsets.append((letters, ()))
            continue
        for _ in range(3):
            chosen = tuple(rng.choice(_COMMON) for _ in range(blanks))
            subsets.append(("".join(sorted(letters + "".join(chosen))), chosen))
    return subsets


Line = tuple[int, int, int, int]  # start row, start col, row step, col step


def _tiles_for(
    word: str, line: Line, skip: range, blanks: tuple[str, ...]
) -> tuple[PlacedTile, ...]:
    """New tiles spelling ``word`` along ``line``, except the board's own at ``skip``."""
    row, col, d_row, d_col = line
    owed = Counter(blanks)
    tiles: list[PlacedTile] = []
    for i, letter in enumerate(word):
        if i in skip:
            continue
        blank = owed[letter] > 0
        if blank:
            owed[letter] -= 1
        tiles.append(PlacedTile(row + d_row * i, col + d_col * i, letter, blank))
    return tuple(tiles)


def _fits(game: Game, word: str, line: Line, skip: range) -> bool:
    """The word lies on the board, on empty squares outside ``skip``, with empty ends."""
    row, col, d_row, d_col = line
    size = game.board.size
    end_row, end_col = row + d_row * (len(word) - 1), col + d_col * (len(word) - 1)
    if row < 0 or col < 0 or end_row >= size or end_col >= size:
        return False
    board = game.board
    for r, c in ((row - d_row, col - d_col), (end_row + d_row, end_col + d_col)):
        if 0 <= r < size and 0 <= c < size and board.get(r, c) is not None:
            return False
    return all(
        i in skip or board.get(row + d_row * i, col + d_col * i) is None for i in range(len(word))
    )


def _runs(game: Game) -> list[tuple[int, int, int, int, str]]:
    """Every maximal line of tiles in each direction: (row, col, d_row, d_col, LETTERS)."""
    cells = game.board.cells
    size = game.board.size
    runs = []
    for index, cell in enumerate(cells):
        if cell is None:
            continue
        row, col = divmod(index, size)
        if col == 0 or cells[index - 1] is None:  # starts a run across
            end = index
            while end % size < size - 1 and cells[end + 1] is not None:
                end += 1
            letters = "".join(cells[index : end + 1]).upper()  # type: ignore[arg-type]
            runs.append((row, col, 0, 1, letters))
        if row == 0 or cells[index - size] is None:  # starts a run down
            end = index
            while end + size < size * size and cells[end + size] is not None:
                end += size
            letters = "".join(cells[index : end + 1 : size]).upper()  # type: ignore[arg-type]
            runs.append((row, col, 1, 0, letters))
    return runs


class _Search:
    """One search for a play: the rack's letter subsets, a budget, and the judge."""

    def __init__(
        self, game: Game, lexicon: Container[str] | None, rng: random.Random, max_tries: int
    ) -> None:
        self.game = game
        self.lexicon = lexicon
        self.rng = rng
        self.max_tries = max_tries
        self.tries = 0
        subsets = _rack_subsets(game.racks[game.to_move], rng)
        rng.shuffle(subsets)
        subsets.sort(key=lambda item: -len(item[0]))  # longest first: realistic game lengths
        self.subsets = subsets

    def attempt(self, word: str, line: Line, skip: range, blanks: tuple[str, ...]) -> Play | None:
        """The play if it lies on free squares and the rules accept it (rack letters are ours
        by construction, so rules 4 (squares) to 9 decide)."""
        if not _fits(self.game, word, line, skip):
            return None
        self.tries += 1
        move = Play(_tiles_for(word, line, skip, blanks))
        try:
            evaluate_play(
                self.game.board, move.tiles, ruleset=self.game.ruleset, lexicon=self.lexicon
            )
        except MoveError:
            return None
        return move

    @property
    def spent(self) -> bool:
        """Whether the budget of rule checks is used up."""
        return self.tries >= self.max_tries


def _opening(search: _Search, index: AnagramIndex) -> Play | None:
    """First move: a word from the rack across or down through the star."""
    game, rng = search.game, search.rng
    centre = game.board.size // 2
    for key, blanks in search.subsets:
        for word in index.get(key) if len(key) >= 2 else ():
            d_row, d_col = (0, 1) if rng.random() < 0.5 else (1, 0)
            offset = rng.randrange(len(word))
            line = (centre - d_row * offset, centre - d_col * offset, d_row, d_col)
            if (move := search.attempt(word, line, range(0), blanks)) or search.spent:
                return move
    return None


def _free(game: Game, row: int, col: int, d_row: int, d_col: int) -> int:
    """Squares a word may use beyond (row, col) in one direction: the empty ones, less the last
    one before another tile (a word may not end touching a tile it does not include)."""
    size = game.board.size
    count = 0
    r, c = row + d_row, col + d_col
    while 0 <= r < size and 0 <= c < size:
        if game.board.get(r, c) is not None:
            return max(0, count - 1)
        count += 1
        r, c = r + d_row, c + d_col
    return count


def _through_runs(search: _Search, index: AnagramIndex, max_lookups: int) -> Play | None:
    """Words that contain a whole line of tiles already on the board, extended by the rack."""
    runs = _runs(search.game)
    search.rng.shuffle(runs)
    lookup = index.get
    lookups = 0
    for run_row, run_col, d_row, d_col, letters in runs:
        room = min(
            index.max_len - len(letters),
            _free(search.game, run_row, run_col, -d_row, -d_col)
            + _free(
                search.game,
                run_row + d_row * (len(letters) - 1),
                run_col + d_col * (len(letters) - 1),
                d_row,
                d_col,
            ),
        )
        if room <= 0:
            continue
        for key, blanks in search.subsets:
            if len(key) > room:
                continue
            lookups += 1
            if lookups > max_lookups:
                return None
            for word in lookup("".join(sorted(key + letters))):
                at = word.find(letters)
                while at >= 0:
                    skip = range(at, at + len(letters))
                    line = (run_row - d_row * at, run_col - d_col * at, d_row, d_col)
                    if (move := search.attempt(word, line, skip, blanks)) or search.spent:
                        return move
                    at = word.find(letters, at + 1)
    return None


def _alongside(search: _Search, index: AnagramIndex, max_anchors: int) -> Play | None:
    """Words of rack letters only, on free squares next to the board (parallel plays, hooks):
    the cross-words they form are what connects them."""
    game, rng = search.game, search.rng
    size = game.board.size
    cells = game.board.cells
    anchors = [
        (i // size, i % size)
        for i, cell in enumerate(cells)
        if cell is None
        and any(
            0 <= r < size and 0 <= c < size and cells[r * size + c] is not None
            for r, c in (
                (i // size - 1, i % size),
                (i // size + 1, i % size),
                (i // size, i % size - 1),
                (i // size, i % size + 1),
            )
        )
    ]
    rng.shuffle(anchors)
    words = [(w, blanks) for key, blanks in search.subsets for w in index.get(key)]
    if not words:
        return None
    for row, col in anchors[:max_anchors]:
        for word, blanks in rng.sample(words, min(len(words), 8)):
            d_row, d_col = (0, 1) if rng.random() < 0.5 else (1, 0)
            at = rng.randrange(len(word))
            line = (row - d_row * at, col - d_col * at, d_row, d_col)
            if (move := search.attempt(word, line, range(0), blanks)) or search.spent:
                return move
    return None


def _single_tiles(search: _Search, max_checks: int) -> Play | None:
    """Last resort on a crowded board: one rack tile on any free square touching the board."""
    game, rng = search.game, search.rng
    size = game.board.size
    cells = game.board.cells
    squares = [
        (i // size, i % size)
        for i, cell in enumerate(cells)
        if cell is None
        and (
            (i % size > 0 and cells[i - 1] is not None)
            or (i % size < size - 1 and cells[i + 1] is not None)
            or (i >= size and cells[i - size] is not None)
            or (i + size < size * size and cells[i + size] is not None)
        )
    ]
    rng.shuffle(squares)
    tiles = sorted(set(game.racks[game.to_move]))
    checks = 0
    for row, col in squares:
        for tile in tiles:
            letters = _COMMON if tile == BLANK else tile
            for letter in letters:
                checks += 1
                if checks > max_checks:
                    return None
                move = Play((PlacedTile(row, col, letter, tile == BLANK),))
                try:
                    evaluate_play(
                        game.board, move.tiles, ruleset=game.ruleset, lexicon=search.lexicon
                    )
                except MoveError:
                    continue
                return move
    return None


def find_play(
    game: Game,
    *,
    lexicon: Container[str] | None,
    index: AnagramIndex,
    rng: random.Random,
    max_tries: int = 80,
    max_lookups: int = 2000,
) -> Move | None:
    """A random legal play for the player to move, or None if none was found quickly.

    Tries words through a line of tiles already on the board first, then words laid
    alongside, then single tiles; ``evaluate_play`` (the engine's own rules 4-9) judges each
    candidate.
    """
    if game.board.is_empty:
        return _opening(_Search(game, lexicon, rng, max_tries), index)
    move = _through_runs(_Search(game, lexicon, rng, max_tries), index, max_lookups)
    if move is None:
        move = _alongside(_Search(game, lexicon, rng, max_tries), index, max_anchors=40)
    if move is None:
        move = _single_tiles(_Search(game, lexicon, rng, max_tries), max_checks=400)
    return move


def random_swap(game: Game, rng: random.Random) -> Swap:
    """Swap the whole rack (when the ruleset insists) or a random non-empty part of it."""
    rack = list(game.racks[game.to_move])
    if game.ruleset.swap_whole_rack:
        return Swap(tuple(rack))
    return Swap(tuple(rng.sample(rack, rng.randint(1, len(rack)))))


def random_move(
    game: Game,
    *,
    lexicon: Container[str] | None,
    index: AnagramIndex,
    rng: random.Random,
    swap_chance: float = 0.04,
    pass_chance: float = 0.01,
) -> Move:
    """A random legal move: usually a play, sometimes a swap or a pass."""
    roll = rng.random()
    if roll < pass_chance:
        return Pass()
    if roll < pass_chance + swap_chance and game.can_swap():
        return random_swap(game, rng)
    play = find_play(game, lexicon=lexicon, index=index, rng=rng)
    if play is not None:
        return play
    if game.can_swap():
        return random_swap(game, rng)
    return Pass()
