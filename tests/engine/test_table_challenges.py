"""Challenges: each rule on a phony and on a good play, exact withdrawal, refusals, replays."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from itertools import combinations

import pytest

from engine import (
    CHALLENGE_RULES,
    DOUBLE,
    FIVE_POINT,
    PLAYED_OUT,
    SINGLE,
    TEN_POINT,
    VOID,
    AlreadyChallenged,
    Challenge,
    ChallengeAfterEnd,
    ChallengesOff,
    Game,
    NoPlayToChallenge,
    NotAWord,
    OwnPlay,
    Pass,
    PlacedTile,
    Play,
    UnknownChallengeRule,
    replay,
    replay_draws,
)
from engine.randomplay import AnagramIndex, find_play
from lexicon.lexicon import Lexicon
from tests.engine.helpers import SEED, board_with, play

RULES_THAT_CHALLENGE = [SINGLE, DOUBLE, FIVE_POINT, TEN_POINT]


def new_table(rule: str, players: int = 2, salt: bytes = b"c") -> Game:
    return Game.new(ruleset="classic", seed=SEED, salt=salt, players=players, challenge=rule)


def phony_opening(game: Game, lexicon: Lexicon) -> Play:
    """Two of the mover's own tiles across the star that spell no word."""
    rack = [tile for tile in game.racks[game.to_move] if tile != "?"]
    for first, second in combinations(rack, 2):
        if first + second not in lexicon:
            return Play((PlacedTile(7, 7, first), PlacedTile(7, 8, second)))
    raise AssertionError("every pair of this rack is a word")


def good_opening(game: Game, lexicon: Lexicon, anagrams: AnagramIndex) -> Play:
    move = find_play(game, lexicon=lexicon, index=anagrams, rng=random.Random(1))
    assert isinstance(move, Play)
    return move


def test_the_rules_are_woogles_set() -> None:
    assert CHALLENGE_RULES == ("void", "single", "double", "five_point", "ten_point")
    with pytest.raises(UnknownChallengeRule):
        Game.new(seed=SEED, challenge="triple")  # type: ignore[arg-type]


def test_void_refuses_a_phony_and_any_challenge(enable: Lexicon) -> None:
    game = new_table(VOID)
    phony = phony_opening(game, enable)
    with pytest.raises(NotAWord):
        game.apply(phony, player=0, lexicon=enable)
    game = game.apply(Pass(), player=0, lexicon=enable)
    with pytest.raises(ChallengesOff):
        game.challenge(by=1, lexicon=enable)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rule", RULES_THAT_CHALLENGE)
def test_a_phony_is_withdrawn_exactly(rule: str, players: int, enable: Lexicon) -> None:
    before = new_table(rule, players)
    mover = before.to_move
    phony = phony_opening(before, enable)
    played = before.apply(phony, player=mover, lexicon=enable)  # accepted provisionally
    assert played.open_play is not None
    assert played.board != before.board
    assert played.bag != before.bag
    challenger = (mover + players - 1) % players  # any other seat may challenge
    after = played.challenge(by=challenger, lexicon=enable)
    assert after.board == before.board
    assert after.racks == before.racks
    assert after.bag == before.bag
    # The stream runs on: rewound, it would deal the player the tiles they saw again.
    assert after.stream == played.stream != before.stream
    assert after.scores == before.scores
    assert after.tiles_in_play() == list(before.ruleset.full_bag)
    # The player's turn is lost: a scoreless turn, and the next seat moves.
    assert after.to_move == played.to_move == (mover + 1) % players
    assert after.scoreless_streak == before.scoreless_streak + 1
    record = after.turns[-1]
    assert record.withdrawn
    assert record.is_scoreless
    assert record.challenge is not None
    assert record.challenge.by == challenger
    assert record.challenge.phonies == (phony.tiles[0].letter + phony.tiles[1].letter,)
    assert record.challenge.points == -record.score
    assert record.totals == before.scores
    assert after.open_play is None
    assert after.lost_turns == ()


@pytest.mark.parametrize(
    ("rule", "bonus"), [(SINGLE, 0), (DOUBLE, 0), (FIVE_POINT, 5), (TEN_POINT, 10)]
)
def test_a_good_play_stands(rule: str, bonus: int, enable: Lexicon, anagrams: AnagramIndex) -> None:
    game = new_table(rule)
    good = good_opening(game, enable, anagrams)
    played = game.apply(good, player=0, lexicon=enable)
    after = played.challenge(by=1, lexicon=enable)
    assert after.board == played.board
    assert after.racks == played.racks
    assert after.bag == played.bag
    assert after.stream == played.stream
    score = played.scores[0]
    assert after.scores == (score + bonus, 0)
    challenged = next(turn for turn in after.turns if turn.challenge is not None)
    assert challenged.challenge is not None
    assert (challenged.challenge.phonies, challenged.challenge.points) == ((), bonus)
    assert challenged.totals == (score + bonus, 0)
    if rule == DOUBLE:
        # The challenger (next to move) loses that turn at once: First moves again.
        assert after.turns[-1].lost_turn
        assert after.turns[-1].player == 1
        assert after.turns[-1].is_scoreless
        assert (after.to_move, after.scoreless_streak, after.turn_number) == (0, 1, 2)
    else:
        assert (after.to_move, after.turn_number) == (1, 1)


def test_double_at_a_table_of_four_costs_the_challengers_next_turn(
    enable: Lexicon, anagrams: AnagramIndex
) -> None:
    game = new_table(DOUBLE, players=4)
    mover = game.to_move
    seats = [(mover + step) % 4 for step in range(4)]
    played = game.apply(good_opening(game, enable, anagrams), player=mover, lexicon=enable)
    after = played.challenge(by=seats[2], lexicon=enable)  # not the next seat
    assert after.lost_turns == (seats[2],)
    assert after.to_move == seats[1]
    after = after.apply(Pass(), player=seats[1], lexicon=enable)
    # Seat 2's lost turn is taken when it comes: seat 3 is to move.
    assert after.turns[-1].lost_turn
    assert after.turns[-1].player == seats[2]
    assert (after.to_move, after.lost_turns) == (seats[3], ())
    assert after.scoreless_streak == 2


def test_refusals(enable: Lexicon, anagrams: AnagramIndex) -> None:
    game = new_table(SINGLE, players=3)
    mover = game.to_move
    nxt = (mover + 1) % 3
    with pytest.raises(NoPlayToChallenge):
        game.challenge(by=nxt, lexicon=enable)
    assert game.challengers == ()
    played = game.apply(good_opening(game, enable, anagrams), player=mover, lexicon=enable)
    assert played.challengers == tuple(seat for seat in range(3) if seat != mover)
    with pytest.raises(OwnPlay):
        played.challenge(by=mover, lexicon=enable)
    judged = played.challenge(by=nxt, lexicon=enable)
    assert judged.challengers == ()
    with pytest.raises(AlreadyChallenged):
        judged.challenge(by=(mover + 2) % 3, lexicon=enable)
    moved_on = played.apply(Pass(), player=nxt, lexicon=enable)
    with pytest.raises(NoPlayToChallenge):
        moved_on.challenge(by=mover, lexicon=enable)
    over = replace(moved_on, scoreless_streak=8).apply(
        Pass(), player=moved_on.to_move, lexicon=enable
    )
    assert over.is_over
    with pytest.raises(ChallengeAfterEnd):
        over.challenge(by=nxt, lexicon=enable)


def test_double_lost_turn_then_already_challenged(enable: Lexicon, anagrams: AnagramIndex) -> None:
    game = new_table(DOUBLE)
    played = game.apply(good_opening(game, enable, anagrams), player=0, lexicon=enable)
    judged = played.challenge(by=1, lexicon=enable)
    with pytest.raises(AlreadyChallenged):
        judged.challenge(by=1, lexicon=enable)


def going_out(rule: str) -> tuple[Game, Play]:
    """Seat 0 holds its last tile, S, with the bag empty, and CAT is on the board: CATS."""
    base = Game.new(ruleset="classic", seed=SEED, challenge=rule)
    board = board_with([("8H", "CAT")], ruleset="classic")
    game = replace(base, board=board, racks=(("S",), ("E", "Q")), bag=(), scores=(50, 60))
    return game, play(board, "8H", "...S")


def test_a_good_play_that_goes_out_ends_the_game_and_stands(enable: Lexicon) -> None:
    game, cats = going_out(TEN_POINT)
    over = game.apply(cats, player=0, lexicon=enable)
    assert over.end_reason == PLAYED_OUT
    assert over.open_play is not None
    assert over.scores == (50 + 6 + 11, 60 - 11)
    judged = over.challenge(by=1, lexicon=enable)
    # The bonus comes before the racks are counted: 50 + 6 + 10, then +11 / -11.
    assert judged.scores == (77, 49)
    assert judged.end_reason == PLAYED_OUT
    assert judged.winner == 0
    assert [a.totals for a in judged.adjustments] == [(66 + 11, 60), (77, 49)]


def test_a_phony_that_went_out_is_withdrawn_and_the_game_goes_on(enable: Lexicon) -> None:
    game, _ = going_out(SINGLE)
    game = replace(game, racks=(("Z",), ("E", "Q")))
    catz = play(game.board, "8H", "...Z")
    over = game.apply(catz, player=0, lexicon=enable)
    assert over.is_over
    after = over.challenge(by=1, lexicon=enable)
    assert not after.is_over
    assert after.adjustments == ()
    assert after.result is None
    assert after.racks == game.racks
    assert after.board == game.board
    assert after.scores == game.scores
    assert after.to_move == 1


@pytest.mark.parametrize("rule", RULES_THAT_CHALLENGE)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_replay_and_json_reproduce_a_game_with_challenges(
    rule: str, players: int, enable: Lexicon, anagrams: AnagramIndex
) -> None:
    game = new_table(rule, players, salt=b"replay")
    game = game.apply(phony_opening(game, enable), player=game.to_move, lexicon=enable)
    game = game.challenge(by=game.to_move, lexicon=enable)  # the next seat
    game = game.apply(good_opening(game, enable, anagrams), player=game.to_move, lexicon=enable)
    game = game.challenge(by=game.to_move, lexicon=enable)
    rng = random.Random(7)
    for _ in range(3):
        move = find_play(game, lexicon=enable, index=anagrams, rng=rng) or Pass()
        game = game.apply(move, player=game.to_move, lexicon=enable)
    assert sum(isinstance(a, Challenge) for a in game.actions) == 2
    assert Game.from_json(json.loads(json.dumps(game.to_json()))) == game
    again = replay(
        game.actions,
        ruleset="classic",
        seed=SEED,
        salt=b"replay",
        players=players,
        challenge=game.challenge_rule,
        lexicon=enable,
    )
    assert again == game
    draws = replay_draws(
        SEED,
        b"replay",
        game.actions,
        ruleset="classic",
        players=players,
        challenge=game.challenge_rule,
        lexicon=enable,
    )
    assert draws.drawn == tuple(turn.drawn for turn in game.turns)
    assert draws.racks_before == tuple(turn.rack_before for turn in game.turns)
