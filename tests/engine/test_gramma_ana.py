"""Gramma Ana (engine/gramma_ana.py): the seed's rating-to-cap table, and every word she plays
within her cap, cross-words included."""

from __future__ import annotations

import itertools
import random

import pytest

from engine import Game, Pass, Play
from engine.computer import SeatPosition
from engine.gramma_ana import (
    best_within_cap,
    cap_for_rating,
    choose_game_move,
    round_move,
)
from engine.movegen import best_play, legal_plays
from engine.rounds import RoundsGame
from lexicon.difficulty import word_difficulty

from .helpers import board_with
from .word_skill_seed import word_skill_seed

RATINGS = tuple(word_skill_seed().caps)
#: The moves checked at each rating of the table (the issue's number).
MOVES_PER_RATING = 1_000


def test_the_cap_is_the_seeds_table_at_every_row() -> None:
    caps = word_skill_seed().caps
    assert tuple(range(800, 2001, 100)) == RATINGS
    assert {rating: cap_for_rating(rating) for rating in caps} == caps


def test_between_rows_and_beyond_the_ends() -> None:
    caps = word_skill_seed().caps
    assert cap_for_rating(1250) == 53
    assert cap_for_rating(1199) == 49
    assert cap_for_rating(700) == cap_for_rating(800) == 25
    assert cap_for_rating(2400) == cap_for_rating(2000) == 100
    # Never above the next row, never below the row before.
    for low, high in itertools.pairwise(RATINGS):
        for rating in range(low, high + 1):
            assert caps[low] <= cap_for_rating(rating) <= caps[high]
    with pytest.raises(TypeError):
        cap_for_rating(1200.5)  # type: ignore[arg-type]


def test_she_plays_the_best_play_her_words_allow(enable) -> None:
    table = word_difficulty(enable)
    board = board_with((("8H", "QUIZ"),), ruleset="word-skill")
    plays = legal_plays(board, tuple("AEINRST"), ruleset="word-skill", lexicon=enable)
    free = best_play(plays)
    assert free is not None
    assert best_within_cap(plays, difficulty=table, cap=100) == free
    assert any(table[word.word] > 25 for word in free.words)  # the cap has work to do
    capped = best_within_cap(plays, difficulty=table, cap=25)
    assert capped is not None
    assert all(table[word.word] <= 25 for word in capped.words)
    better = [
        play
        for play in plays
        if play.score > capped.score and all(table[w.word] <= 25 for w in play.words)
    ]
    assert better == []


def test_in_a_round_she_submits_a_play_or_a_pass(enable) -> None:
    table = word_difficulty(enable)
    game = RoundsGame.new(players=2, seed=bytes(32))
    move = round_move(game, lexicon=enable, difficulty=table, rating=1200)
    assert isinstance(move, Play)
    game = game.start(player=1, at_ms=0).submit(move, player=1, at_ms=1, lexicon=enable)
    assert game.current is not None
    assert game.current.submission_of(1) is not None
    assert round_move(game, lexicon=frozenset(), difficulty=table, rating=1200) == Pass()


def test_one_to_one_she_is_greedy_within_her_cap(enable) -> None:
    table = word_difficulty(enable)
    game = Game.new(ruleset="classic", seed=bytes(range(32)))
    position = SeatPosition.build(
        ruleset="classic",
        board_rows=game.board.rows(),
        seat=0,
        rack=game.racks[0],
        scores=game.scores,
        bag_count=game.bag_count,
        opponent_rack_count=7,
        scoreless_streak=0,
    )
    choice = choose_game_move(
        position, lexicon=enable, difficulty=table, rating=800, rng=random.Random(0)
    )
    assert all(table[word.word] <= 25 for word in choice.move.words)


@pytest.mark.slow
def test_every_word_of_a_thousand_moves_at_each_rating_is_within_its_cap(enable) -> None:
    """Positions from self-play rounds (her at 2,000 against her at 800); at each position
    the legal plays are listed once and every rating's choice is taken from them. About
    25 s on one core."""
    table = word_difficulty(enable)
    moves = dict.fromkeys(RATINGS, 0)
    plays_made = dict.fromkeys(RATINGS, 0)
    bitten = dict.fromkeys(RATINGS, 0)
    seed = 0
    while min(moves.values()) < MOVES_PER_RATING:
        game = RoundsGame.new(players=2, seed=bytes([seed]) * 32)
        seed += 1
        now = 0
        while not game.is_over and min(moves.values()) < MOVES_PER_RATING:
            assert game.current is not None
            plays = legal_plays(game.board, game.current.tray, ruleset=game.ruleset, lexicon=enable)
            free = best_play(plays)
            chosen = {}
            for rating in RATINGS:
                cap = cap_for_rating(rating)
                choice = best_within_cap(plays, difficulty=table, cap=cap)
                chosen[rating] = choice
                moves[rating] += 1
                if choice is None:
                    continue
                plays_made[rating] += 1
                for word in choice.words:
                    assert table[word.word] <= cap, (rating, word.word, table[word.word])
                bitten[rating] += choice != free
            for player, rating in enumerate((RATINGS[-1], RATINGS[0])):
                pick = chosen[rating]
                now += 1_000
                game = game.start(player=player, at_ms=now)
                move = Pass() if pick is None else pick.move
                game = game.submit(move, player=player, at_ms=now + 1, lexicon=None)
    assert all(count >= MOVES_PER_RATING for count in moves.values())
    # Nearly every position has a play at every rating, and the cap decides more often the
    # lower it is (at 2,000 never: every word is within 100).
    assert all(plays_made[r] >= 0.9 * moves[r] for r in RATINGS)
    assert bitten[RATINGS[-1]] == 0
    assert bitten[RATINGS[0]] > bitten[1200] > 0
