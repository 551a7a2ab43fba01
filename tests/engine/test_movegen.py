"""Move generation: the generator against a brute-force one, against ``Game.apply``, and on
hand-checked positions.

The brute force shares nothing with the generator but the engine's own rules: for every line
and every stretch of squares in it (empty on both ends, holding 1 to 7 empty squares), it
takes the dictionary words of that length that agree with the tiles already in the stretch
and can be made from the rack, tries each way of spelling them with the blanks, and lets
``evaluate_play`` (what ``Game.apply`` runs) accept and score the play. To keep 300+
positions within a minute it looks words up in plain indexes (by length, letter and offset;
by the set of letters a word uses) and skips a word at once when a cross-word it would make
is not in the dictionary; those shortcuts only narrow what ``evaluate_play`` is asked.
"""

from __future__ import annotations

import gc
import random
from collections import Counter, defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from functools import cache
from itertools import combinations, product

import pytest

from engine import (
    BLANK,
    Board,
    Game,
    LegalMove,
    LexiconNotIterable,
    MoveError,
    Pass,
    PlacedTile,
    Play,
    Ruleset,
    Swap,
    WordGraph,
    best_play,
    legal_moves,
    legal_plays,
    ranked,
    word_graph,
)
from engine.randomplay import AnagramIndex, random_move
from engine.scoring import evaluate_play
from lexicon.lexicon import Lexicon, get_lexicon
from tests.depth import repetitions
from tests.engine.helpers import game_with

Placement = frozenset[PlacedTile]

# -- the brute force ---------------------------------------------------------------------------


def _mask(letters: str) -> int:
    bits = 0
    for letter in letters:
        bits |= 1 << (ord(letter) - 65)
    return bits


class BruteForce:
    """Every play found by trying dictionary words on every stretch of every line."""

    def __init__(self, words: Collection[str]) -> None:
        entries = [(word, _mask(word)) for word in words if len(word) >= 2]
        #: Words by the set of letters they use (as a bit set): far fewer sets than words.
        self.by_letter_set: dict[int, list[str]] = defaultdict(list)
        for word, bits in entries:
            self.by_letter_set[bits].append(word)
        #: (length, offset, letter) -> the words of that length with that letter there.
        self.by_letter_at: dict[tuple[int, int, str], list[tuple[str, int]]] = defaultdict(list)
        #: (length, offset, two letters) -> the words with those two letters from there on.
        self.by_pair_at: dict[tuple[int, int, str], list[tuple[str, int]]] = defaultdict(list)
        for entry in entries:
            word = entry[0]
            for offset, letter in enumerate(word):
                self.by_letter_at[len(word), offset, letter].append(entry)
                self.by_pair_at[len(word), offset, word[offset : offset + 2]].append(entry)

    def plays(
        self, board: Board, rack: tuple[str, ...], rules: Ruleset, lexicon: Collection[str]
    ) -> set[tuple[Placement, int]]:
        """(tiles, score) of every legal play of ``rack`` on ``board``."""
        n = board.size
        blanks = rack.count(BLANK)
        letters = Counter(tile for tile in rack if tile != BLANK)
        rack_bits = _mask("".join(letters))
        most = min(len(rack), rules.rack_size)
        bingo_possible = len(rack) == rules.rack_size
        # Words made of rack tiles alone, by length (for stretches of empty squares only);
        # with no blank, also the words needing one letter more, by (length, offset, letter)
        # (for stretches through old tiles that all show one letter: the common case).
        rack_words: dict[int, list[tuple[str, int]]] = defaultdict(list)
        one_more: dict[tuple[int, int, str], list[tuple[str, int]]] | None = (
            None if blanks else defaultdict(list)
        )
        not_on_rack = ~rack_bits
        for bits in _letter_sets(rack_bits, blanks + (one_more is not None)):
            beyond = (bits & not_on_rack).bit_count()
            for word in self.by_letter_set.get(bits, ()):
                if beyond <= blanks and len(word) <= most:
                    rack_words[len(word)].append((word, bits))
                if one_more is not None:
                    for offset, letter in enumerate(word):
                        one_more[len(word), offset, letter].append((word, bits))
        pools = _Pools(rack_words, one_more, self.by_letter_at, self.by_pair_at, rack_bits, blanks)
        first_move = board.is_empty
        centre = (n // 2, n // 2)

        touching = {
            (row, col)
            for row in range(n)
            for col in range(n)
            if any(
                0 <= r < n and 0 <= c < n and board.get(r, c) is not None
                for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            )
        }

        def cross_word_ok(square: tuple[int, int], letter: str, across: bool) -> bool:
            """Whether ``letter`` on ``square`` makes no cross-word or a dictionary one (a
            shortcut past most hopeless candidates; ``evaluate_play`` still judges)."""
            key = (square, letter, across)
            if key not in cross_checked:
                d_row, d_col = (1, 0) if across else (0, 1)
                row, col = square
                before = ""
                r, c = row - d_row, col - d_col
                while min(r, c) >= 0 and board.get(r, c) is not None:
                    before = board.get(r, c).upper() + before  # type: ignore[union-attr]
                    r, c = r - d_row, c - d_col
                after = ""
                r, c = row + d_row, col + d_col
                while r < n and c < n and board.get(r, c) is not None:
                    after += board.get(r, c).upper()  # type: ignore[union-attr]
                    r, c = r + d_row, c + d_col
                word = before + letter + after
                cross_checked[key] = len(word) == 1 or word in lexicon
            return cross_checked[key]

        cross_checked: dict[tuple[tuple[int, int], str, bool], bool] = {}
        found: set[tuple[Placement, int]] = set()
        lines = [[(r, c) for c in range(n)] for r in range(n)]
        lines += [[(r, c) for r in range(n)] for c in range(n)]
        for number, line in enumerate(lines):
            across = number < n
            tiles = [board.get(r, c) for r, c in line]
            for start in range(n - 1):
                if start > 0 and tiles[start - 1] is not None:
                    continue
                # Grow the stretch square by square, keeping what decides whether a word
                # there could be a play at all.
                empty: list[int] = []
                holds_tile = near_tile = on_centre = False
                for end in range(start, n):
                    if tiles[end] is None:
                        empty.append(end)
                        near_tile = near_tile or line[end] in touching
                    else:
                        holds_tile = True
                    on_centre = on_centre or line[end] == centre
                    if len(empty) > most:
                        break
                    if end == start or not empty:
                        continue
                    if end < n - 1 and tiles[end + 1] is not None:
                        continue
                    if not (on_centre if first_move else holds_tile or near_tile):
                        continue
                    fixed = [
                        (p - start, tiles[p].upper())  # type: ignore[union-attr]
                        for p in range(start, end + 1)
                        if tiles[p]
                    ]
                    for word in pools.candidates(end - start + 1, fixed):
                        from_rack = "".join([word[p - start] for p in empty])
                        lacking = sum(
                            max(0, from_rack.count(letter) - letters[letter])
                            for letter in set(from_rack)
                        )
                        if lacking > blanks:
                            continue
                        needed = [(line[p], word[p - start]) for p in empty]
                        if not all(cross_word_ok(sq, letter, across) for sq, letter in needed):
                            continue
                        for placed in _spellings(needed, letters, blanks):
                            try:
                                outcome = evaluate_play(
                                    board,
                                    placed,
                                    ruleset=rules,
                                    lexicon=lexicon,
                                    bingo=bingo_possible and len(placed) == rules.rack_size,
                                )
                            except MoveError:
                                continue
                            found.add((frozenset(placed), outcome.score))
        return found


@dataclass(frozen=True)
class _Pools:
    """Where one position's brute force looks words up (see ``BruteForce.plays``)."""

    rack_words: dict[int, list[tuple[str, int]]]
    one_more: dict[tuple[int, int, str], list[tuple[str, int]]] | None
    by_letter_at: dict[tuple[int, int, str], list[tuple[str, int]]]
    by_pair_at: dict[tuple[int, int, str], list[tuple[str, int]]]
    rack_bits: int
    blanks: int

    def candidates(self, length: int, fixed: list[tuple[int, str]]) -> Iterator[str]:
        """Words of ``length`` with the ``fixed`` (offset, letter)s that the rack might
        complete (letter sets only: counts and blanks are ``_spellings``' business)."""
        if not fixed:
            pool = self.rack_words.get(length, [])
        else:
            # The shortest list that some of the fixed letters pick out.
            pools = [self.by_letter_at.get((length, *item), []) for item in fixed]
            pools += [
                self.by_pair_at.get((length, offset, letter + fixed[i + 1][1]), [])
                for i, (offset, letter) in enumerate(fixed[:-1])
                if fixed[i + 1][0] == offset + 1
            ]
            if self.one_more is not None and len({letter for _, letter in fixed}) == 1:
                pools.append(self.one_more.get((length, *fixed[0]), []))
            pool = min(pools, key=len)
        # Letters neither on the rack nor fixed here must come from blanks.
        other = ~(self.rack_bits | _mask("".join(letter for _, letter in fixed)))
        blanks = self.blanks
        if blanks:
            words = [word for word, bits in pool if (bits & other).bit_count() <= blanks]
        else:
            words = [word for word, bits in pool if not bits & other]
        for word in words:
            if all(word[offset] == letter for offset, letter in fixed):
                yield word


def _letter_sets(rack_bits: int, extra: int) -> Iterator[int]:
    """Every set of letters made of some of the rack's letters and up to ``extra`` others."""
    on_rack = [1 << code for code in range(26) if rack_bits >> code & 1]
    others = [1 << code for code in range(26) if not rack_bits >> code & 1]
    subsets = [0]
    for bit in on_rack:
        subsets += [subset | bit for subset in subsets]
    for count in range(extra + 1):
        for chosen in combinations(others, count):
            added = sum(chosen)
            for subset in subsets:
                yield subset | added


def _spellings(
    needed: list[tuple[tuple[int, int], str]], letters: Counter[str], blanks: int
) -> Iterator[tuple[PlacedTile, ...]]:
    """Every way the rack can put these letters on these squares: each square gets a letter
    tile or a blank, within the rack's counts."""
    if not blanks:  # the rack holds them all (the caller checked): one way only
        yield tuple(PlacedTile(row, col, letter) for (row, col), letter in needed)
        return
    squares_of: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for square, letter in needed:
        squares_of[letter].append(square)
    choices = []
    for letter, squares in squares_of.items():
        have = letters[letter]
        least = max(0, len(squares) - have)
        if least > blanks:
            return
        choices.append(
            [
                (letter, squares, frozenset(as_blanks))
                for count in range(least, min(len(squares), blanks) + 1)
                for as_blanks in combinations(squares, count)
            ]
        )
    for pick in product(*choices):
        if sum(len(as_blanks) for _, _, as_blanks in pick) > blanks:
            continue
        yield tuple(
            PlacedTile(row, col, letter, (row, col) in as_blanks)
            for letter, squares, as_blanks in pick
            for row, col in squares
        )


def brute_force_swaps(game: Game) -> set[tuple[str, ...]]:
    """The swaps by the rules' words: any 1-7 tiles while the bag holds 7 (the whole rack,
    while the bag holds as many, for outspell), as sorted tuples."""
    rack = game.racks[game.to_move]
    if game.ruleset.swap_whole_rack:
        return {tuple(sorted(rack))} if rack and len(game.bag) >= len(rack) else set()
    if len(game.bag) < 7:
        return set()
    return {
        tuple(sorted(rack[i] for i in chosen))
        for size in range(1, len(rack) + 1)
        for chosen in combinations(range(len(rack)), size)
    }


# -- positions ----------------------------------------------------------------------------------

#: Random games per ruleset (outspell's small board makes cheap positions: more of them).
GAMES = {
    "word-duel": repetitions(full=3, quick=1),
    "classic": repetitions(full=3, quick=1),
    "outspell": repetitions(full=10, quick=2),
}
RULESET_NAMES = tuple(GAMES)
#: Every this-many turns of each random game is a position (plus the opening and the last).
EVERY = repetitions(full=3, quick=9)
#: Racks of a full-rack, two-blank opening (a position of its own, and a golden test).
QUIZD = ("??QUIZD", "E")


@cache
def lexicon_for(ruleset: str) -> Lexicon:
    return get_lexicon("enable", max_len=11 if ruleset == "outspell" else 15)


@cache
def brute() -> BruteForce:
    """One word index serves every ruleset: a word longer than the board never fits there,
    and the ruleset's own lexicon judges each play."""
    return BruteForce(lexicon_for("word-duel"))


@cache
def anagrams() -> AnagramIndex:
    """What the random player looks words up in (the ruleset's lexicon judges its finds)."""
    return AnagramIndex(lexicon_for("word-duel"))


def _with_rack(game: Game, rack: tuple[str, ...]) -> Game:
    racks = (rack, game.racks[1]) if game.to_move == 0 else (game.racks[0], rack)
    return replace(game, racks=racks)


@cache
def positions_of(ruleset: str, number: int) -> tuple[tuple[str, Game], ...]:
    """Random game ``number`` of ``ruleset`` (a fixed seed), stopped every few turns; for the
    rulesets with blanks, mid-game positions are also tried with one and with two blanks."""
    found: list[tuple[str, Game]] = []
    lexicon = lexicon_for(ruleset)
    rng = random.Random(f"{ruleset}/{number}")
    game = Game.new(ruleset=ruleset, seed=rng.randbytes(32))
    turn = 0
    while not game.is_over:
        rack = game.racks[game.to_move]
        last = not game.bag and len(rack) <= 3
        label = f"{ruleset}-{number}-t{turn}"
        if turn % EVERY == 0 or last:
            found.append((label, game))
            # The blank cases, kept cheap: 4 tiles with one blank, 3 with two (a blank
            # multiplies the plays by up to 26), in turn at two stops of every three.
            plain = tuple(tile for tile in rack if tile != BLANK)
            if game.ruleset.has_blanks and turn % EVERY == 0 and len(plain) >= 3:
                if turn % (3 * EVERY) == EVERY:
                    one = tuple(sorted((BLANK, *plain[:3])))
                    found.append((f"{label}-1blank", _with_rack(game, one)))
                elif turn % (3 * EVERY) == 2 * EVERY:
                    two = tuple(sorted((BLANK, BLANK, plain[0])))
                    found.append((f"{label}-2blanks", _with_rack(game, two)))
        move = random_move(game, lexicon=lexicon, index=anagrams(), rng=rng)
        game = game.apply(move, player=game.to_move, lexicon=lexicon)
        turn += 1
    return tuple(found)


#: A full rack with two blanks (cheap on an empty board): bingos such as QUIzZeD, with a
#: blank standing for a letter the rack also holds.
QUIZD_CASE = ("classic", -1)
CASES = [(ruleset, number) for ruleset in RULESET_NAMES for number in range(GAMES[ruleset])]


def positions_of_case(ruleset: str, number: int) -> tuple[tuple[str, Game], ...]:
    if (ruleset, number) == QUIZD_CASE:
        return (("classic-opening-QUIZD-2blanks", game_with(ruleset="classic", racks=QUIZD)),)
    return positions_of(ruleset, number)


def positions() -> tuple[tuple[str, Game], ...]:
    """Every position of every case (built when first asked for, not at collection)."""
    return tuple(found for case in [*CASES, QUIZD_CASE] for found in positions_of_case(*case))


# -- the exactness test -----------------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def _long_lived_heap_frozen() -> Iterator[None]:
    """Build the word lists, graphs and positions once, then take them out of the garbage
    collector's full passes (millions of long-lived list entries would make each one slow)."""
    for ruleset in RULESET_NAMES:
        brute()
        word_graph(lexicon_for(ruleset))
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


#: Game.apply runs on every move up to this many per position, then on an even sample.
APPLY_ALL_UP_TO = 120


def test_enough_positions_of_every_kind() -> None:
    found = positions()
    assert len(found) >= repetitions(full=300, quick=20)
    labels = [label for label, _ in found]
    for ruleset in RULESET_NAMES:
        assert sum(label.startswith(ruleset + "-") for label in labels) >= repetitions(
            full=60, quick=4
        )
    racks = [game.racks[game.to_move] for _, game in found]
    assert sum(rack.count(BLANK) == 1 for rack in racks) >= repetitions(full=30, quick=1)
    assert sum(rack.count(BLANK) == 2 for rack in racks) >= repetitions(full=20, quick=1)
    assert sum(game.board.is_empty for _, game in found) >= sum(GAMES.values())
    assert sum(not game.bag for _, game in found) >= repetitions(full=30, quick=3)


@pytest.mark.parametrize(("ruleset", "number"), [*CASES, QUIZD_CASE])
def test_generator_lists_exactly_the_legal_moves(ruleset: str, number: int) -> None:
    for label, game in positions_of_case(ruleset, number):
        check_position(label, game)


def check_position(label: str, game: Game) -> None:
    ruleset = game.ruleset.name
    lexicon = lexicon_for(ruleset)
    rack = game.racks[game.to_move]

    moves = legal_moves(game, lexicon=lexicon)
    plays = [move for move in moves if isinstance(move.move, Play)]
    got = {(frozenset(move.tiles), move.score) for move in plays}
    assert len({placement for placement, _ in got}) == len(plays), "a play is listed twice"
    expected = brute().plays(game.board, rack, game.ruleset, lexicon)
    assert got == expected, (label, sorted(got ^ expected, key=repr)[:5])

    swaps = [move.move.tiles for move in moves if isinstance(move.move, Swap)]
    assert len(swaps) == len(set(swaps))
    assert set(swaps) == brute_force_swaps(game)
    assert [move.move for move in moves if isinstance(move.move, Pass)] == [Pass()]
    assert moves[: len(plays)] == tuple(plays), "plays come first"

    # Game.apply agrees on every play (an even sample of a long list): legal, same score,
    # same words, same bingo.
    step = max(1, len(plays) // APPLY_ALL_UP_TO)
    for move in plays[::step]:
        assert_apply_agrees(game, move, lexicon)
    for move in moves[len(plays) :]:
        assert_apply_agrees(game, move, lexicon)


def assert_apply_agrees(game: Game, move: LegalMove, lexicon: Collection[str]) -> None:
    after = game.apply(move.move, player=game.to_move, lexicon=lexicon)
    record = after.turns[-1]
    assert (record.score, record.words, record.bingo) == (move.score, move.words, move.bingo)


# -- golden positions ---------------------------------------------------------------------------

ENABLE_LIKE = frozenset({"AT", "TA", "TAX", "XI", "CAT", "CATS", "QUIZ", "ZA", "RETINAS"})


def test_at_through_the_star_scores_four() -> None:
    # RULES.md's worked example: AT across through the star = (1 + 1) x 2 = 4. With just A and
    # T on the rack the only plays are AT and TA, across or down, each way over the star.
    game = game_with(racks=("AT", "E"))
    plays = [move for move in legal_moves(game, lexicon=ENABLE_LIKE) if move.kind == "play"]
    assert len(plays) == 8
    assert {move.score for move in plays} == {4}
    at_8h = {PlacedTile(7, 7, "A"), PlacedTile(7, 8, "T")}
    assert any(set(move.tiles) == at_8h for move in plays)


def test_quiz_worked_example_is_the_best_play() -> None:
    # RULES.md: QUIZ with Q on TL and the word over one DW = (30 + 1 + 1 + 10) x 2 = 84; laid
    # on the outspell board (as in test_engine_scoring) at 2G with the Z on J2 making ZA down
    # with the A on J3: 84 + (10 + 1) x 2 = 106. Nothing else scores as much: QUIZ elsewhere
    # finds no TL under the Q and a DW in the same word, and the rest of the toy lexicon's
    # words need tiles the rack lacks.
    game = game_with(ruleset="outspell", words=[("J3", "A")], racks=("IQUZ", "E"))
    best = best_play(legal_moves(game, lexicon=ENABLE_LIKE))
    assert best is not None
    assert best.score == 106
    assert [(word.word, word.score) for word in best.words] == [("QUIZ", 84), ("ZA", 22)]
    assert best.tiles == tuple(PlacedTile(1, 6 + i, letter) for i, letter in enumerate("QUIZ"))


def test_opening_bingo_scores_per_ruleset() -> None:
    # RETAINS through the star on an empty board: seven one-point letters doubled by the star,
    # plus one more when a tile lands on the DL at D8, L8, H4 or H12 (the first of which a
    # seven-letter word through H8 reaches from columns B-D), then the bingo: 16 + 40 in
    # word-duel, 16 + 50 in classic. Every anagram of AEINRST in ENABLE is listed at every
    # start, across and down: 7 starts x 2 directions each.
    for ruleset, bonus in (("word-duel", 40), ("classic", 50)):
        game = game_with(ruleset=ruleset, racks=("AEINRST", "E"))
        moves = legal_moves(game, lexicon=lexicon_for(ruleset))
        bingos = [move for move in moves if move.bingo]
        anagrams = {word for word in lexicon_for(ruleset) if sorted(word) == sorted("RETAINS")}
        assert {move.words[0].word for move in bingos} == anagrams
        assert len(bingos) == len(anagrams) * 7 * 2
        assert {move.score for move in bingos} == {14 + bonus, 16 + bonus}
        best = best_play(moves)
        assert best is not None
        assert best.score == 16 + bonus
        assert best.bingo


def test_full_rack_with_two_blanks_bingos() -> None:
    # QUIZZED from Q U I Z D and two blanks (a Z and the E), through the star: Q 10 + U 1 +
    # I 1 + Z 10 + D 2 = 24, doubled, + 50. Best: a real 10-point tile on a DL as well,
    # (24 + 10) x 2 + 50 = 118: the Q on D8 (from D8, either Z the blank) or the real Z on
    # L8 (QUIzZeD from H8), and the same down (Q on H4, or the real Z on H12): six plays.
    moves = legal_moves(game_with(ruleset="classic", racks=QUIZD), lexicon=lexicon_for("classic"))
    bingos = [move for move in moves if move.bingo]
    assert {move.words[0].tiles for move in bingos} == {"QUIZzeD", "QUIzZeD"}
    assert len(bingos) == 2 * 7 * 2
    assert ranked(moves)[0].score == 118
    best = {(m.words[0].position, m.words[0].tiles) for m in moves if m.score == 118}
    assert best == {
        ("8D", "QUIZzeD"),
        ("8D", "QUIzZeD"),
        ("8H", "QUIzZeD"),
        ("H4", "QUIZzeD"),
        ("H4", "QUIzZeD"),
        ("H8", "QUIzZeD"),
    }


def test_blank_tried_as_every_letter_and_worth_nothing() -> None:
    # A lone blank beside a lone A on the star (no premium on the four squares around it):
    # every two-letter ENABLE word with an A, on each side the A allows, worth the A's 1.
    lexicon = lexicon_for("word-duel")
    game = game_with(words=[("8H", "A")], racks=("?", "E"))
    plays = [move for move in legal_moves(game, lexicon=lexicon) if move.kind == "play"]
    expected = set()
    for word in (word for word in lexicon if len(word) == 2):
        if word[1] == "A":  # the blank goes before the A: left of it, or above it
            expected |= {(word, (7, 6)), (word, (6, 7))}
        if word[0] == "A":  # after it: right of it, or below it
            expected |= {(word, (7, 8)), (word, (8, 7))}
    got = {(move.words[0].word, (move.tiles[0].row, move.tiles[0].col)) for move in plays}
    assert got == expected
    assert len(plays) == len(expected)
    assert all(move.tiles[0].blank and move.score == 1 for move in plays)


def test_one_tile_play_is_listed_once_across_first() -> None:
    # T A across at 8H and an X at G9. An I on H9 makes XI across and TI down: one play,
    # main word XI (across first), cross-word TI. An I on G10 makes XI down only.
    lexicon = frozenset({"TA", "XI", "TI"})
    game = game_with(words=[("8H", "TA"), ("9G", "X")], racks=("I", "E"))
    plays = [move for move in legal_moves(game, lexicon=lexicon) if move.kind == "play"]
    found = {move.tiles: [(w.word, w.position, w.score) for w in move.words] for move in plays}
    assert found == {
        (PlacedTile(8, 7, "I"),): [("XI", "9G", 8 + 1), ("TI", "H8", 1 + 1)],
        (PlacedTile(9, 6, "I"),): [("XI", "G9", 8 + 1)],
    }
    assert len(plays) == 2


# -- the API around it -------------------------------------------------------------------------


def test_a_game_that_is_over_lists_no_legal_moves() -> None:
    game = game_with(racks=("AT", "E"))
    assert legal_moves(game, lexicon=ENABLE_LIKE)
    over = replace(game, end_reason="six_scoreless", result="draw")
    assert legal_moves(over, lexicon=ENABLE_LIKE) == ()


def test_ranked_is_best_first_and_total() -> None:
    game = game_with(words=[("8G", "CAT")], racks=("ASTXE", "E"))
    moves = legal_moves(game, lexicon=ENABLE_LIKE)
    order = ranked(moves)
    assert sorted(order, key=lambda move: move.sort_key) == list(order)
    assert order[0] == best_play(moves)
    assert [move.score for move in order if move.kind == "play"] == sorted(
        (move.score for move in moves if move.kind == "play"), reverse=True
    )
    assert order[-1].move == Pass()
    assert ranked(reversed(moves)) == order


def test_whole_rack_swap_only_in_outspell_and_only_with_bag_to_spare() -> None:
    game = game_with(ruleset="outspell", racks=("ABCDEFG", "E"))
    swaps = [move.move for move in legal_moves(game, lexicon=ENABLE_LIKE) if move.kind == "swap"]
    assert swaps == [Swap(tuple("ABCDEFG"))]
    short = game_with(ruleset="outspell", racks=("ABCDEFG", "E"), bag="ABCDEF")
    assert not [m for m in legal_moves(short, lexicon=ENABLE_LIKE) if m.kind == "swap"]
    classic = game_with(ruleset="classic", racks=("AAB", "E"), bag="ABCDEF")
    assert not [m for m in legal_moves(classic, lexicon=ENABLE_LIKE) if m.kind == "swap"]
    classic = game_with(ruleset="classic", racks=("AAB", "E"), bag="ABCDEFG")
    returned = [m.move for m in legal_moves(classic, lexicon=ENABLE_LIKE) if m.kind == "swap"]
    assert returned == [Swap(tuple(tiles)) for tiles in ("A", "B", "AA", "AB", "AAB")]


def test_graph_is_built_once_per_lexicon_and_holds_exactly_its_words() -> None:
    words = frozenset({"AT", "TA", "CAT", "CATS", "SCAT", "A", "cat", "DOG1"})
    graph = word_graph(words)
    assert word_graph(words) is graph
    assert sorted(graph.words()) == ["AT", "CAT", "CATS", "SCAT", "TA"]
    assert "CAT" in graph
    assert "CA" not in graph
    assert "A" not in graph
    stats = graph.stats()
    assert (stats.words, stats.nodes) == (5, len(graph.children))
    assert stats.approx_bytes > 0
    assert stats.build_seconds >= 0
    enable = word_graph(lexicon_for("word-duel"))
    assert word_graph(lexicon_for("word-duel")) is enable
    assert len(enable) == len(lexicon_for("word-duel"))


def test_graph_of_enable_holds_exactly_its_words() -> None:
    # Every word is a path to a terminal node, and there are no more such paths than words.
    lexicon = lexicon_for("outspell")
    graph = word_graph(lexicon)
    assert all(word in graph for word in sorted(lexicon)[::10])
    paths: dict[int, int] = {}

    def words_below(node: int) -> int:
        if node not in paths:
            children = graph.children[node].values()
            paths[node] = graph.terminal[node] + sum(words_below(child) for child in children)
        return paths[node]

    assert words_below(WordGraph.ROOT) == len(lexicon)


def test_lexicon_must_be_iterable() -> None:
    class OnlyContains:
        def __contains__(self, word: object) -> bool:
            return True

    with pytest.raises(LexiconNotIterable):
        legal_plays(Board.empty(15), ("A",), ruleset="word-duel", lexicon=OnlyContains())  # type: ignore[arg-type]
