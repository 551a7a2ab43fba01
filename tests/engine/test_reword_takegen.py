"""Reword's move generator against a brute force, and the computer playing Reword.

The brute force shares nothing with the generator but the engine's rules: it tries every
single take on every occupied square (a steal, and a swap of each rack tile, a blank as every
letter), and after each one that ``reword.apply_takes`` accepts, every placement of the
turn's tiles on the board it left (from each empty square, the next 1 to N empty squares
across or down, each ordering of the tiles), and keeps what ``reword.evaluate_take_play``
(what ``Game.apply`` runs) accepts, with its score. On small positions (a few words, a rack
of two or three tiles) that is every legal one-take move; the generator must list exactly
those, with the same scores.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from itertools import permutations

import pytest

from engine import (
    BLANK,
    Board,
    Game,
    MoveError,
    PlacedTile,
    Play,
    StealTake,
    SwapTake,
    Take,
    TakePlay,
    apply_takes,
    evaluate_take_play,
    get_ruleset,
    ranked,
)
from engine.computer import EASY, HARD, choose_move
from engine.selfplay import seat_position
from engine.takegen import legal_takes, take_plays
from engine.wordgraph import ALPHABET
from lexicon.lexicon import Lexicon
from tests.engine.helpers import game_with

RULES = get_ruleset("reword")
Found = set[tuple[Take, frozenset[PlacedTile], int]]


def brute_takes(board: Board, rack: tuple[str, ...], lexicon: Lexicon) -> list[Take]:
    """Every single take ``apply_takes`` accepts."""
    candidates: list[Take] = []
    for row, col, _ in board.occupied():
        candidates.append(StealTake(row, col))
        for tile in sorted(set(rack)):
            letters = ALPHABET if tile == BLANK else tile
            candidates += [SwapTake(row, col, letter, tile == BLANK) for letter in letters]
    legal = []
    for take in candidates:
        try:
            apply_takes(board, rack, (take,), lexicon=lexicon)
        except MoveError:
            continue
        legal.append(take)
    return legal


def _runs(board: Board, start: tuple[int, int], count: int, across: bool) -> list[tuple[int, int]]:
    """The first ``count`` empty squares from ``start`` along the line (fewer at the edge)."""
    squares: list[tuple[int, int]] = []
    row, col = start
    while len(squares) < count and row < board.size and col < board.size:
        if board.get(row, col) is None:
            squares.append((row, col))
        row, col = (row, col + 1) if across else (row + 1, col)
    return squares


def brute_one_take(board: Board, rack: tuple[str, ...], lexicon: Lexicon) -> Found:
    found: Found = set()
    for take in brute_takes(board, rack, lexicon):
        after = apply_takes(board, rack, (take,), lexicon=lexicon)
        tiles = after.rack
        near = {
            (r + dr, c + dc)
            for r, c, _ in after.board.occupied()
            for dr in range(-len(tiles), 2)
            for dc in range(-len(tiles), 2)
        }
        for start in sorted(near):
            if not (0 <= start[0] < board.size and 0 <= start[1] < board.size):
                continue
            if after.board.get(*start) is not None:
                continue
            for across in (True, False):
                for count in range(1, len(tiles) + 1):
                    squares = _runs(after.board, start, count, across)
                    if len(squares) < count:
                        break
                    for order in set(permutations(tiles, count)):
                        for placed in _spellings(squares, order):
                            move = TakePlay((take,), placed)
                            try:
                                outcome = evaluate_take_play(
                                    board, rack, move, ruleset=RULES, lexicon=lexicon
                                )
                            except MoveError:
                                continue
                            found.add((take, frozenset(placed), outcome.score.score))
    return found


def _spellings(
    squares: list[tuple[int, int]], order: tuple[str, ...]
) -> list[tuple[PlacedTile, ...]]:
    """The tiles of ``order`` on ``squares``; a blank as every letter."""
    spelled: list[tuple[PlacedTile, ...]] = [()]
    for (row, col), tile in zip(squares, order, strict=True):
        faces = [(letter, True) for letter in ALPHABET] if tile == BLANK else [(tile, False)]
        spelled = [
            (*s, PlacedTile(row, col, letter, blank)) for s in spelled for letter, blank in faces
        ]
    return spelled


def generated(board: Board, rack: tuple[str, ...], lexicon: Lexicon) -> Found:
    moves = take_plays(board, rack, ruleset=RULES, lexicon=lexicon, max_takes=1)
    found: Found = set()
    for legal in moves:
        move = legal.move
        assert isinstance(move, TakePlay)
        assert len(move.takes) == 1
        found.add((move.takes[0], frozenset(move.tiles), legal.score))
    assert len(found) == len(moves), "a move listed twice"
    return found


#: Small positions: (words on the reword board, the rack of the player to move).
POSITIONS = [
    ((("8H", "CAT"), ("H8", ".OW")), "ES"),
    ((("8G", "ADZ"),), "AG"),
    ((("8H", "BAt"),), "EN"),  # a blank on the board: taken, it is named again
    ((("2B", "ATE"), ("4B", "ODE"), ("6B", "TOE"), ("12B", "BOAT")), "SR"),
    ((("8F", "OXEN"), ("F8", ".PT")), "AI"),
]


@pytest.mark.parametrize(
    ("words", "rack"), POSITIONS, ids=[p[1] + str(i) for i, p in enumerate(POSITIONS)]
)
def test_the_generator_finds_every_one_take_move_the_brute_force_finds(
    words: tuple[tuple[str, str], ...], rack: str, enable: Lexicon
) -> None:
    game = game_with(ruleset="reword", words=words, racks=(rack, "A"))
    board, tiles = game.board, game.racks[0]
    expected = brute_one_take(board, tiles, enable)
    assert expected, "the position has one-take moves to find"
    assert generated(board, tiles, enable) == expected
    takes = {after.takes[-1] for after in legal_takes(board, tiles, lexicon=enable)}
    assert takes == set(brute_takes(board, tiles, enable))


def test_the_best_take_play_is_the_brute_forces_best_and_the_game_scores_it(
    enable: Lexicon,
) -> None:
    game = game_with(ruleset="reword", words=POSITIONS[1][0], racks=("AEG", "A"))
    best = ranked(take_plays(game.board, game.racks[0], ruleset=RULES, lexicon=enable))[0]
    assert best.score == max(
        score for *_, score in brute_one_take(game.board, game.racks[0], enable)
    )
    after = game.apply(best.move, player=0, lexicon=enable)
    assert after.turns[-1].score == best.score
    assert after.turns[-1].words == best.words


def test_a_deadline_stops_the_search(enable: Lexicon) -> None:
    game = game_with(ruleset="reword", words=POSITIONS[0][0], racks=("EHIKLMS", "A"))
    assert take_plays(game.board, game.racks[0], ruleset=RULES, lexicon=enable, deadline=0.0) == ()


def test_no_take_plays_outside_reword_or_on_an_empty_board(enable: Lexicon) -> None:
    game = game_with(words=POSITIONS[0][0], racks=("ES", "A"))
    assert take_plays(game.board, game.racks[0], ruleset="word-duel", lexicon=enable) == ()
    empty = Game.new(ruleset="reword", seed=bytes(32))
    assert take_plays(empty.board, empty.racks[0], ruleset=RULES, lexicon=enable) == ()


# -- the computer ------------------------------------------------------------------------------


def conserved(words: tuple[tuple[str, str], ...], rack: str) -> Game:
    """A reword game on ``words`` with ``rack`` to move; the opponent's rack and the bag are
    the rest of the set (what a seat's position must add up to)."""
    game = game_with(ruleset="reword", words=words, racks=(rack, ""))
    rest = Counter(RULES.full_bag)
    rest.subtract([*game.board.tiles(), *rack])
    left = sorted(rest.elements())
    return replace(game, racks=(game.racks[0], tuple(left[:7])), bag=tuple(left[7:]))


def test_hard_steals_the_z_when_it_is_worth_most(enable: Lexicon) -> None:
    # ADZ on the board; a rack that scores little alone. Hard's best is a take-play using Z.
    game = conserved(POSITIONS[1][0], "EGIORTU")
    choice = choose_move(
        seat_position(game), lexicon=enable, level=HARD, rng=random.Random(1), take_budget=30.0
    )
    move = choice.move.move
    assert isinstance(move, TakePlay)
    assert "Z" in choice.move.taken
    after = game.apply(move, player=0, lexicon=enable)
    assert after.turns[-1].score == choice.move.score


def test_easy_mostly_plays_plainly(enable: Lexicon) -> None:
    # Easy looks for swaps and steals on a fifth of its turns (take_chance): an rng whose
    # first draw is above that makes a plain play; one below may take.
    assert EASY.take_chance == pytest.approx(0.2)
    assert HARD.takes == 2
    game = conserved(POSITIONS[1][0], "EGIORTU")
    seed = next(seed for seed in range(100) if random.Random(seed).random() >= EASY.take_chance)
    plain_rng = random.Random(seed)
    choice = choose_move(seat_position(game), lexicon=enable, level=EASY, rng=plain_rng)
    assert isinstance(choice.move.move, Play)


def test_the_computer_plays_a_whole_reword_game_legally(enable: Lexicon) -> None:
    # Normal against Easy with a small budget: every move it makes the game accepts, tiles are
    # conserved, and some of them are take-plays.
    game = Game.new(ruleset="reword", seed=bytes(range(32)))
    rng = random.Random(7)
    while not game.is_over:
        choice = choose_move(
            seat_position(game),
            lexicon=enable,
            level=("normal", "easy")[game.to_move],
            rng=rng,
            take_budget=0.3,
        )
        game = game.apply(choice.move.move, player=game.to_move, lexicon=enable)
        assert sorted(game.tiles_in_play()) == sorted(RULES.full_bag)
    assert any(turn.kind == "take_play" for turn in game.turns)
