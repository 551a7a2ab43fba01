"""Every legal move of the player to move, as data: plays (with score and words), swaps, pass.

Plays come from the Appel–Jacobson algorithm ("The World's Fastest Scrabble Program", 1988)
over the lexicon's word graph (``wordgraph.py``). For each line (every row, then every
column) the generator works from the *anchors*, the empty squares next to a tile (the centre
on an empty board): a word placed in that line must cover one. Before walking any word it
works out, per empty square, which letters the cross-word through that square allows (a
26-bit mask) and what that cross-word's old tiles are worth, so a walk checks a letter with
one AND and scores as it goes. Each play is found from exactly one anchor (the leftmost it
covers: the squares in front of that anchor are empty and touch nothing), so nothing is
listed twice, except one-tile plays, which both directions would find: the down pass skips
those that also make an across word, as the rules then take across as the main word.

The result agrees with ``Game.apply`` (rules 4-9 and the score of ``evaluate_play``), which
``tests/engine/test_movegen.py`` checks against a brute-force generator on random positions.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

from .board import Board
from .moves import BLANK, Move, Pass, PlacedTile, Play, Swap, TakePlay
from .rulesets import Ruleset, get_ruleset
from .scoring import WordScore
from .wordgraph import ALL_LETTERS, ALPHABET, WordGraph, word_graph

if TYPE_CHECKING:
    from .game import Game

#: Index of the blank in the rack counts (letters are 0-25).
_BLANK_CODE = 26


@dataclass(frozen=True, slots=True)
class LegalMove:
    """One legal move and what it would earn, exactly as ``Game.apply`` would record it."""

    move: Move
    score: int = 0
    #: The words a play forms, main word first (as ``TurnRecord.words``); empty otherwise.
    words: tuple[WordScore, ...] = ()
    bingo: bool = False
    #: A take-play's taken tiles as rack tiles (``?`` for a blank), in the order taken.
    taken: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """``play``, ``swap``, ``pass`` or ``take_play``."""
        return self.move.kind

    @property
    def tiles(self) -> tuple[PlacedTile, ...]:
        """The tiles a play (or a take-play) places (empty for a swap or a pass)."""
        return self.move.tiles if isinstance(self.move, Play | TakePlay) else ()

    @property
    def sort_key(self) -> tuple[int, int, tuple[tuple[int, int, str, bool], ...], tuple[str, ...]]:
        """Best first: higher score, then play before swap before pass, then the placed
        squares in reading order (a total order, so ties always break the same way)."""
        move = self.move
        if isinstance(move, Play | TakePlay):
            placed = tuple(sorted((t.row, t.col, t.letter, t.blank) for t in move.tiles))
            takes = tuple(map(repr, move.takes)) if isinstance(move, TakePlay) else ()
            return (-self.score, 0, placed, takes)
        if isinstance(move, Swap):
            return (0, 1, (), move.tiles)
        return (0, 2, (), ())


def ranked(moves: Iterable[LegalMove]) -> tuple[LegalMove, ...]:
    """The moves best first (``LegalMove.sort_key``): what a computer opponent picks from."""
    return tuple(sorted(moves, key=_sort_key))


def _sort_key(
    move: LegalMove,
) -> tuple[int, int, tuple[tuple[int, int, str, bool], ...], tuple[str, ...]]:
    return move.sort_key


def best_play(moves: Iterable[LegalMove]) -> LegalMove | None:
    """The highest-scoring play among ``moves`` (ties broken as ``ranked``), or None."""
    plays = [move for move in moves if isinstance(move.move, Play | TakePlay)]
    return min(plays, key=_sort_key) if plays else None


# -- the public entry points ----------------------------------------------------------------


def legal_moves(game: Game, *, lexicon: Collection[str]) -> tuple[LegalMove, ...]:
    """Every legal move of the player to move: plays, then swaps, then the pass.

    Empty when the game is over. ``lexicon`` is the one ``Game.apply`` would be given; its
    word graph is built on first use and shared (``wordgraph.word_graph``). Reword's
    take-plays are not listed here (up to four takes make too many to list):
    ``takegen.take_plays`` finds them.
    """
    if game.is_over:
        return ()
    rack = game.racks[game.to_move]
    plays = legal_plays(game.board, rack, ruleset=game.ruleset, lexicon=lexicon)
    return (*plays, *legal_swaps(game), LegalMove(Pass()))


def legal_swaps(game: Game) -> tuple[LegalMove, ...]:
    """Every distinct swap the ruleset allows now: each sub-multiset of the rack of 1 or more
    tiles (the whole rack only, for a ruleset that says so), tiles sorted as racks are."""
    if game.is_over or not game.can_swap():
        return ()
    rack = tuple(sorted(game.racks[game.to_move]))
    rules = game.ruleset
    if not rack or len(rack) > rules.rack_size:
        return ()
    if rules.swap_whole_rack:
        return (LegalMove(Swap(rack)),)
    subsets = {combo for size in range(1, len(rack) + 1) for combo in combinations(rack, size)}
    return tuple(LegalMove(Swap(combo)) for combo in sorted(subsets, key=lambda c: (len(c), c)))


def legal_plays(
    board: Board,
    rack: Sequence[str],
    *,
    ruleset: Ruleset | str,
    lexicon: Collection[str] | None = None,
    graph: WordGraph | None = None,
    must_play: Sequence[str] = (),
    blocked: Collection[tuple[int, int]] = (),
) -> tuple[LegalMove, ...]:
    """Every legal play of ``rack`` (``?`` for a blank) on ``board``, scored.

    Give ``lexicon`` (its graph is looked up in the shared cache) or a prebuilt ``graph``.
    Each blank is tried as every letter. A play of the ruleset's ``bingo_tiles`` (all seven
    of a full rack; 7 to 9 of a 9-tile rack) earns the bingo bonus, as in ``Game.apply``.

    Reword's take search narrows the list while it searches (the same plays as filtering the
    full list afterwards, found without walking the rest): ``must_play`` holds rack tiles every
    play must use (the tiles a turn's takes took; a sub-multiset of ``rack``, else ValueError),
    ``blocked`` empty squares no tile may go on (those stolen from this turn).
    """
    rules = get_ruleset(ruleset)
    if graph is None:
        if lexicon is None:
            raise TypeError("legal_plays needs a lexicon or a graph")
        graph = word_graph(lexicon)
    if board.size != rules.board_size:
        raise ValueError(f"a {board.size} x {board.size} board under ruleset {rules.name}")
    if not must_play and not blocked:
        return _Generator(board, tuple(rack), rules, graph).run()
    return _NarrowGenerator(
        board, tuple(rack), rules, graph, must_play=tuple(must_play), blocked=frozenset(blocked)
    ).run()


# -- the generator --------------------------------------------------------------------------

#: What the search keeps of each play it finds: the line, the first square of the main word,
#: the squares filled ((position along the line, letter code, is blank), in line order), the
#: main word's score and the play's total score.
_Find = tuple["_Line", int, tuple[tuple[int, int, bool], ...], int, int]


class _Line:
    """One row or column, as the search sees it: squares 0..n-1 along the line."""

    __slots__ = (
        "across",
        "anchors",
        "chars",
        "codes",
        "cross_after",
        "cross_before",
        "cross_first",
        "cross_mask",
        "cross_sum",
        "index",
        "letter_mult",
        "lone_ok",
        "values",
        "word_mult",
    )

    def __init__(self, across: bool, index: tuple[int, ...]) -> None:
        self.across = across
        #: Board cell index of each square of the line.
        self.index = index
        #: Letter code of the old tile on each square, -1 when empty; the board's char; value.
        self.codes: list[int] = []
        self.chars: list[str] = []
        self.values: list[int] = []
        self.letter_mult: list[int] = []
        self.word_mult: list[int] = []
        #: Letters the cross-word through each empty square allows (all when there is none).
        self.cross_mask: list[int] = []
        #: Old tiles' value of the cross-word through the square, or -1 when none is formed.
        self.cross_sum: list[int] = []
        #: The cross-word's old tiles before and after the square, and its first cell index.
        self.cross_before: list[str] = []
        self.cross_after: list[str] = []
        self.cross_first: list[int] = []
        #: Empty squares a word in this line must cover one of (in line order).
        self.anchors: list[int] = []
        #: Down lines only: whether a one-tile play on the square is this line's to list
        #: (False when the tile would also make an across word: the across pass lists it).
        self.lone_ok: list[bool] = []


class _Generator:
    """One position's search: builds the lines, walks the graph, turns finds into moves."""

    def __init__(
        self,
        board: Board,
        rack: tuple[str, ...],
        rules: Ruleset,
        graph: WordGraph,
        *,
        must_play: tuple[str, ...] = (),
        blocked: frozenset[tuple[int, int]] = frozenset(),
    ) -> None:
        self.board = board
        self.rules = rules
        self.graph = graph
        counts = [0] * 27
        for tile in rack:
            if tile == BLANK:
                counts[_BLANK_CODE] += 1
            elif len(tile) == 1 and "A" <= tile <= "Z":
                counts[ord(tile) - 65] += 1
            else:
                raise ValueError(f"not a rack tile: {tile!r}")
        self.counts = counts
        # What every play must use: per tile, how many the rack holds beyond the need
        # (``spare``); the needed letters as a bit set (``want``) and the tiles in all.
        need = [0] * 27
        for tile in must_play:
            need[_BLANK_CODE if tile == BLANK else ord(tile) - 65] += 1
        self.spare = [have - wanted for have, wanted in zip(counts, need, strict=True)]
        if min(self.spare) < 0:
            raise ValueError(f"must_play {must_play!r} is not on the rack {rack!r}")
        self.missing = len(must_play)
        self.want = sum(1 << code for code in range(26) if need[code])
        self.blocked = frozenset(row * board.size + col for row, col in blocked)
        self.max_tiles = min(len(rack), rules.rack_size)
        #: Game.apply's bingo: at least bingo_tiles placed from a rack that holds them.
        self.full_rack = len(rack) >= rules.bingo_tiles
        self.bingo_bonus = rules.bingo_bonus if self.full_rack else 0
        values = rules.value_of
        self.letter_values = [values.get(letter, 0) for letter in ALPHABET]
        self.found: list[_Find] = []
        # Materialising: one PlacedTile and one cross-word per (cell, letter, blank), shared.
        self._tiles: dict[int, PlacedTile] = {}
        self._crosses: dict[int, WordScore | None] = {}

    def run(self) -> tuple[LegalMove, ...]:
        if self.max_tiles == 0 or self.missing > self.max_tiles:
            return ()
        for across in (True, False):
            for line in self._lines(across=across):
                if line.anchors:
                    self._search_line(line)
        materialise = self._materialise
        return tuple([materialise(*find) for find in self.found])

    # -- building the lines ------------------------------------------------------------

    def _lines(self, *, across: bool) -> list[_Line]:
        board = self.board
        n = board.size
        cells = board.cells
        rules = self.rules
        children, terminal = self.graph.children, self.graph.terminal
        values = rules.value_of
        step, cross_step = (1, n) if across else (n, 1)
        centre = (n // 2) * n + n // 2 if board.is_empty else -1
        blocked = self.blocked
        lines = []
        for k in range(n):
            line = _Line(across, tuple((k * n if across else k) + p * step for p in range(n)))
            for p, i in enumerate(line.index):
                cell = cells[i]
                line.letter_mult.append(rules.letter_mult[i])
                line.word_mult.append(rules.word_mult[i])
                line.lone_ok.append(
                    across
                    or not (
                        (i % n > 0 and cells[i - 1] is not None)
                        or (i % n < n - 1 and cells[i + 1] is not None)
                    )
                )
                if cell is not None:
                    line.codes.append(ord(cell.upper()) - 65)
                    line.chars.append(cell)
                    line.values.append(0 if cell.islower() else values.get(cell, 0))
                    line.cross_mask.append(0)
                    line.cross_sum.append(-1)
                    line.cross_before.append("")
                    line.cross_after.append("")
                    line.cross_first.append(i)
                    continue
                line.codes.append(-1)
                line.chars.append("")
                line.values.append(0)
                # The cross-word: old tiles just before and after the square, across the line.
                first = i
                while _next_to(first, -cross_step, n) and cells[first - cross_step] is not None:
                    first -= cross_step
                last = i
                while _next_to(last, cross_step, n) and cells[last + cross_step] is not None:
                    last += cross_step
                before = "".join(cells[j] for j in range(first, i, cross_step))  # type: ignore[misc]
                after = "".join(cells[j] for j in range(i + cross_step, last + 1, cross_step))  # type: ignore[misc]
                line.cross_before.append(before)
                line.cross_after.append(after)
                line.cross_first.append(first)
                if before or after:
                    line.cross_mask.append(_cross_mask(children, terminal, before, after))
                    line.cross_sum.append(
                        sum(0 if c.islower() else values.get(c, 0) for c in before + after)
                    )
                    line.anchors.append(p)
                else:
                    line.cross_mask.append(ALL_LETTERS)
                    line.cross_sum.append(-1)
                    if (
                        (p > 0 and cells[i - step] is not None)
                        or (p < n - 1 and cells[i + step] is not None)
                        or i == centre
                        or i in blocked
                    ):
                        line.anchors.append(p)
                if i in blocked:
                    # No letter fits; as an anchor it also ends the free squares before the
                    # next anchor (a word cannot run through it).
                    line.cross_mask[-1] = 0
            lines.append(line)
        return lines

    # -- the search ----------------------------------------------------------------------

    def _search_line(self, line: _Line) -> None:
        """Appel–Jacobson on one line: for each anchor, every left part (old tiles in front
        of it, or rack tiles on the free squares in front of it), then extend rightwards."""
        graph = self.graph
        children = graph.children
        terminal = graph.terminal
        node_letters = graph.letters
        reach = graph.reach
        reach_width = graph.REACH_DEPTH + 1
        codes = line.codes
        values = line.values
        cross_mask = line.cross_mask
        cross_sum = line.cross_sum
        lmult = line.letter_mult
        wmult = line.word_mult
        lone_ok = line.lone_ok
        letter_values = self.letter_values
        counts = self.counts
        max_tiles = self.max_tiles
        bingo_bonus = self.bingo_bonus
        bingo_tiles = self.rules.bingo_tiles
        found = self.found
        n = len(codes)
        #: Tiles placed so far in this line, in line order: (position, letter code, blank).
        placed: list[tuple[int, int, bool]] = []
        anchor = 0
        word_start = 0

        def extend(p: int, node: int, main: int, mult: int, cross: int, rack_mask: int) -> None:
            """Continue the word at square ``p`` (at or past the anchor)."""
            # Old tiles: follow them; a word cannot end just before an old tile.
            while p < n and codes[p] >= 0:
                child = children[node].get(codes[p])
                if child is None:
                    return
                node = child
                main += values[p]
                p += 1
            if p > anchor and terminal[node]:
                count = len(placed)
                if count > 1 or lone_ok[placed[0][0]]:
                    score = main * mult + cross
                    if count >= bingo_tiles:
                        score += bingo_bonus
                    found.append((line, word_start, tuple(placed), main * mult, score))
            if p == n or len(placed) == max_tiles:
                return
            mask = node_letters[node] & cross_mask[p]
            if not counts[_BLANK_CODE]:
                mask &= rack_mask
            if not mask:
                return
            kids = children[node]
            lm = lmult[p]
            wm = wmult[p]
            cs = cross_sum[p]
            while mask:
                low = mask & -mask
                mask ^= low
                code = low.bit_length() - 1
                child = kids[code]
                if counts[code]:
                    counts[code] -= 1
                    points = letter_values[code] * lm
                    placed.append((p, code, False))
                    extend(
                        p + 1,
                        child,
                        main + points,
                        mult * wm,
                        cross + ((cs + points) * wm if cs >= 0 else 0),
                        rack_mask if counts[code] else rack_mask & ~low,
                    )
                    placed.pop()
                    counts[code] += 1
                if counts[_BLANK_CODE]:
                    counts[_BLANK_CODE] -= 1
                    placed.append((p, code, True))
                    extend(
                        p + 1,
                        child,
                        main,
                        mult * wm,
                        cross + (cs * wm if cs >= 0 else 0),
                        rack_mask,
                    )
                    placed.pop()
                    counts[_BLANK_CODE] += 1

        #: Rack tiles of the left part being built, in order: (letter code, blank).
        left_tiles: list[tuple[int, bool]] = []

        def left_part(node: int, room: int, rack_mask: int) -> None:
            """Every prefix of rack tiles (up to ``room`` long) on the free squares in front
            of the anchor, each then extended through the anchor."""
            nonlocal word_start
            k = len(left_tiles)
            anchor_letters = (
                cross_mask[anchor] if counts[_BLANK_CODE] else cross_mask[anchor] & rack_mask
            )
            # Give up unless some letter the anchor takes lies within reach of this prefix.
            if not reach[node * reach_width + room - k] & anchor_letters:
                return
            if node_letters[node] & anchor_letters:
                word_start = anchor - k
                main = 0
                mult = 1
                for offset, (code, blank) in enumerate(left_tiles):
                    q = word_start + offset
                    if not blank:
                        main += letter_values[code] * lmult[q]
                    mult *= wmult[q]
                    placed.append((q, code, blank))
                extend(anchor, node, main, mult, 0, rack_mask)
                del placed[:]
            if k == room:
                return
            mask = node_letters[node]
            if not counts[_BLANK_CODE]:
                mask &= rack_mask
            kids = children[node]
            while mask:
                low = mask & -mask
                mask ^= low
                code = low.bit_length() - 1
                child = kids[code]
                if counts[code]:
                    counts[code] -= 1
                    left_tiles.append((code, False))
                    left_part(child, room, rack_mask if counts[code] else rack_mask & ~low)
                    left_tiles.pop()
                    counts[code] += 1
                if counts[_BLANK_CODE]:
                    counts[_BLANK_CODE] -= 1
                    left_tiles.append((code, True))
                    left_part(child, room, rack_mask)
                    left_tiles.pop()
                    counts[_BLANK_CODE] += 1

        rack_mask = 0
        for code in range(26):
            if counts[code]:
                rack_mask |= 1 << code
        previous_anchor = -1
        for anchor in line.anchors:
            if anchor > 0 and codes[anchor - 1] >= 0:
                # Old tiles in front of the anchor: the word starts where they start.
                word_start = anchor - 1
                while word_start > 0 and codes[word_start - 1] >= 0:
                    word_start -= 1
                extend(word_start, WordGraph.ROOT, 0, 1, 0, rack_mask)
            else:
                # The squares back to the previous anchor are empty and touch nothing: a word's
                # first letters may go there (leaving a tile for the anchor).
                room = min(anchor - previous_anchor - 1, max_tiles - 1)
                left_part(WordGraph.ROOT, room, rack_mask)
            previous_anchor = anchor

    # -- turning finds into moves --------------------------------------------------------

    def _materialise(
        self,
        line: _Line,
        start: int,
        placed: tuple[tuple[int, int, bool], ...],
        main_score: int,
        score: int,
    ) -> LegalMove:
        n = self.board.size
        index = line.index
        tile_cache = self._tiles
        cross_cache = self._crosses
        across = line.across
        chars = line.chars[start : start + len(placed) + _old_in_word(line, start, placed)]
        tiles = []
        crosses: list[WordScore] = []
        for p, code, blank in placed:
            i = index[p]
            key = i * 64 + code * 2 + blank
            tile = tile_cache.get(key)
            if tile is None:
                tile = tile_cache[key] = PlacedTile(i // n, i % n, ALPHABET[code], blank)
            tiles.append(tile)
            chars[p - start] = tile.board_char
            key = key * 2 + across
            try:
                cross = cross_cache[key]
            except KeyError:
                cross = cross_cache[key] = self._cross_word(line, p, code, blank)
            if cross is not None:
                crosses.append(cross)
        first = index[start]
        main = WordScore("".join(chars), first // n, first % n, across, main_score)
        return LegalMove(
            Play(tuple(tiles)),
            score,
            (main, *crosses),
            len(placed) >= self.rules.bingo_tiles and self.full_rack,
        )

    def _cross_word(self, line: _Line, p: int, code: int, blank: bool) -> WordScore | None:
        """The cross-word a tile makes on square ``p`` (None when it makes none)."""
        cross_sum = line.cross_sum[p]
        if cross_sum < 0:
            return None
        n = self.board.size
        letter = ALPHABET[code]
        text = line.cross_before[p] + (letter.lower() if blank else letter) + line.cross_after[p]
        points = 0 if blank else self.letter_values[code] * line.letter_mult[p]
        first = line.cross_first[p]
        score = (cross_sum + points) * line.word_mult[p]
        return WordScore(text, first // n, first % n, not line.across, score)


class _NarrowGenerator(_Generator):
    """The search for plays that must use some tiles (``must_play``): the same walk, kept
    apart so the plain search pays nothing for the counting."""

    def _search_line(self, line: _Line) -> None:
        """``_Generator._search_line`` that also counts the ``must_play`` tiles still to
        place: a word is kept only once all are placed, and a branch is dropped when too
        few tiles are left for them or the graph below it lacks one of their letters."""
        graph = self.graph
        children = graph.children
        terminal = graph.terminal
        node_letters = graph.letters
        reach = graph.reach
        reach_width = graph.REACH_DEPTH + 1
        codes = line.codes
        values = line.values
        cross_mask = line.cross_mask
        cross_sum = line.cross_sum
        lmult = line.letter_mult
        wmult = line.word_mult
        lone_ok = line.lone_ok
        letter_values = self.letter_values
        counts = self.counts
        max_tiles = self.max_tiles
        bingo_bonus = self.bingo_bonus
        bingo_tiles = self.rules.bingo_tiles
        found = self.found
        spare = self.spare
        below = self.graph.below if self.want else []
        n = len(codes)
        # ``fits[p]``: the letters some empty square from ``p`` on could take before a square
        # no letter fits (a blocked one, or a cross-word no letter makes) ends the word.
        fits = [0] * (n + 1)
        for q in range(n - 1, -1, -1):
            if codes[q] >= 0:
                fits[q] = fits[q + 1]
            elif cross_mask[q]:
                fits[q] = fits[q + 1] | cross_mask[q]
            else:
                fits[q] = 0
        #: Tiles placed so far in this line, in line order: (position, letter code, blank).
        placed: list[tuple[int, int, bool]] = []
        anchor = 0
        word_start = 0

        def extend(
            p: int,
            node: int,
            main: int,
            mult: int,
            cross: int,
            rack_mask: int,
            missing: int,
            want: int,
        ) -> None:
            """Continue the word at square ``p`` (at or past the anchor); ``missing`` tiles
            of ``must_play`` are still to place, ``want`` their letters (blanks aside)."""
            # Old tiles: follow them; a word cannot end just before an old tile.
            while p < n and codes[p] >= 0:
                child = children[node].get(codes[p])
                if child is None:
                    return
                node = child
                main += values[p]
                p += 1
            if p > anchor and terminal[node] and not missing:
                count = len(placed)
                if count > 1 or lone_ok[placed[0][0]]:
                    score = main * mult + cross
                    if count >= bingo_tiles:
                        score += bingo_bonus
                    found.append((line, word_start, tuple(placed), main * mult, score))
            if p == n or len(placed) + (missing or 1) > max_tiles:
                return
            if want and (below[node] & want != want or want & ~fits[p]):
                return
            mask = node_letters[node] & cross_mask[p]
            if not counts[_BLANK_CODE]:
                mask &= rack_mask
            if not mask:
                return
            kids = children[node]
            lm = lmult[p]
            wm = wmult[p]
            cs = cross_sum[p]
            while mask:
                low = mask & -mask
                mask ^= low
                code = low.bit_length() - 1
                child = kids[code]
                if counts[code]:
                    short = counts[code] > spare[code]
                    counts[code] -= 1
                    points = letter_values[code] * lm
                    placed.append((p, code, False))
                    extend(
                        p + 1,
                        child,
                        main + points,
                        mult * wm,
                        cross + ((cs + points) * wm if cs >= 0 else 0),
                        rack_mask if counts[code] else rack_mask & ~low,
                        missing - short,
                        want if counts[code] > spare[code] else want & ~low,
                    )
                    placed.pop()
                    counts[code] += 1
                if counts[_BLANK_CODE]:
                    short = counts[_BLANK_CODE] > spare[_BLANK_CODE]
                    counts[_BLANK_CODE] -= 1
                    placed.append((p, code, True))
                    extend(
                        p + 1,
                        child,
                        main,
                        mult * wm,
                        cross + (cs * wm if cs >= 0 else 0),
                        rack_mask,
                        missing - short,
                        want,
                    )
                    placed.pop()
                    counts[_BLANK_CODE] += 1

        #: Rack tiles of the left part being built, in order: (letter code, blank).
        left_tiles: list[tuple[int, bool]] = []

        def left_part(node: int, room: int, rack_mask: int, missing: int, want: int) -> None:
            """Every prefix of rack tiles (up to ``room`` long) on the free squares in front
            of the anchor, each then extended through the anchor."""
            nonlocal word_start
            k = len(left_tiles)
            anchor_letters = (
                cross_mask[anchor] if counts[_BLANK_CODE] else cross_mask[anchor] & rack_mask
            )
            # Give up unless some letter the anchor takes lies within reach of this prefix.
            if not reach[node * reach_width + room - k] & anchor_letters:
                return
            if want and below[node] & want != want:
                return
            if node_letters[node] & anchor_letters:
                word_start = anchor - k
                main = 0
                mult = 1
                for offset, (code, blank) in enumerate(left_tiles):
                    q = word_start + offset
                    if not blank:
                        main += letter_values[code] * lmult[q]
                    mult *= wmult[q]
                    placed.append((q, code, blank))
                extend(anchor, node, main, mult, 0, rack_mask, missing, want)
                del placed[:]
            if k == room:
                return
            mask = node_letters[node]
            if not counts[_BLANK_CODE]:
                mask &= rack_mask
            kids = children[node]
            while mask:
                low = mask & -mask
                mask ^= low
                code = low.bit_length() - 1
                child = kids[code]
                if counts[code]:
                    short = counts[code] > spare[code]
                    counts[code] -= 1
                    left_tiles.append((code, False))
                    left_part(
                        child,
                        room,
                        rack_mask if counts[code] else rack_mask & ~low,
                        missing - short,
                        want if counts[code] > spare[code] else want & ~low,
                    )
                    left_tiles.pop()
                    counts[code] += 1
                if counts[_BLANK_CODE]:
                    short = counts[_BLANK_CODE] > spare[_BLANK_CODE]
                    counts[_BLANK_CODE] -= 1
                    left_tiles.append((code, True))
                    left_part(child, room, rack_mask, missing - short, want)
                    left_tiles.pop()
                    counts[_BLANK_CODE] += 1

        rack_mask = 0
        for code in range(26):
            if counts[code]:
                rack_mask |= 1 << code
        previous_anchor = -1
        for anchor in line.anchors:
            if anchor > 0 and codes[anchor - 1] >= 0:
                # Old tiles in front of the anchor: the word starts where they start.
                word_start = anchor - 1
                while word_start > 0 and codes[word_start - 1] >= 0:
                    word_start -= 1
                extend(word_start, WordGraph.ROOT, 0, 1, 0, rack_mask, self.missing, self.want)
            else:
                # The squares back to the previous anchor are empty and touch nothing: a word's
                # first letters may go there (leaving a tile for the anchor).
                room = min(anchor - previous_anchor - 1, max_tiles - 1)
                left_part(WordGraph.ROOT, room, rack_mask, self.missing, self.want)
            previous_anchor = anchor


def _old_in_word(line: _Line, start: int, placed: tuple[tuple[int, int, bool], ...]) -> int:
    """How many old tiles the main word holds: those between its new tiles and after them."""
    codes = line.codes
    end = placed[-1][0] + 1
    while end < len(codes) and codes[end] >= 0:
        end += 1
    return end - start - len(placed)


def _next_to(i: int, delta: int, n: int) -> bool:
    """Whether cell ``i + delta`` is on the board and, for a step along a row, in i's row."""
    j = i + delta
    if not 0 <= j < n * n:
        return False
    return abs(delta) != 1 or j // n == i // n


def _cross_mask(
    children: list[dict[int, int]], terminal: list[bool], before: str, after: str
) -> int:
    """Letters that make ``before + letter + after`` a word (board chars; blanks lower case)."""
    node = WordGraph.ROOT
    for char in before:
        child = children[node].get(ord(char.upper()) - 65)
        if child is None:
            return 0
        node = child
    tail = [ord(char.upper()) - 65 for char in after]
    mask = 0
    for code, child in children[node].items():
        walk: int | None = child
        for next_code in tail:
            walk = children[walk].get(next_code)  # type: ignore[index]
            if walk is None:
                break
        if walk is not None and terminal[walk]:
            mask |= 1 << code
    return mask
