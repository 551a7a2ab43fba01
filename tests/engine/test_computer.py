"""The computer player (``engine.computer``): its levels, its vocabulary, when it
swaps, passes and goes out, that it only ever makes legal moves, and that its choice depends
on nothing but what its seat sees and the seed it is given."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from engine import Game, Pass, Play, Swap, best_play, legal_plays, ranked
from engine.computer import (
    EASY,
    GREEDY,
    HARD,
    NORMAL,
    SWAP_BELOW,
    Level,
    SeatPosition,
    choose_move,
    get_level,
    tiles_to_swap,
)
from lexicon.difficulty import word_difficulty
from lexicon.lexicon import Lexicon
from tests.depth import repetitions
from tests.engine.helpers import SEED, game_with


def seat_position(game: Game) -> SeatPosition:
    """What the seat to move may see of ``game`` (the server builds it from the seat's view;
    the engine's tests build it from a game, copying only those facts)."""
    seat = game.to_move
    return SeatPosition.build(
        ruleset=game.ruleset,
        board_rows=game.board.rows(),
        seat=seat,
        rack=game.racks[seat],
        scores=game.scores,
        bag_count=game.bag_count,
        opponent_rack_count=len(game.racks[1 - seat]),
        scoreless_streak=game.scoreless_streak,
    )


def conserved(game: Game) -> Game:
    """``game`` with its bag refilled so board + racks + bag is the full set again."""
    left = Counter(game.ruleset.full_bag)
    left.subtract([*game.board.tiles(), *game.racks[0], *game.racks[1]])
    return replace(game, bag=tuple(sorted(left.elements())))


def midgame(seed: int, *, ruleset: str, enable: Lexicon, turns: int = 6) -> Game:
    """A game after ``turns`` Greedy moves from a seeded deal."""
    game = Game.new(ruleset=ruleset, seed=bytes([seed]) * 32)
    rng = random.Random(seed)
    for _ in range(turns):
        choice = choose_move(seat_position(game), lexicon=enable, level=GREEDY, rng=rng)
        game = game.apply(choice.move.move, player=game.to_move, lexicon=enable)
    return game


def late_game(seed: int, *, enable: Lexicon, bag_at_most: int) -> Game:
    """A word-duel game played by Greedy from a seeded deal until the bag holds at most
    ``bag_at_most`` tiles (the game still running)."""
    game = Game.new(seed=bytes([seed + 100]) * 32)
    rng = random.Random(seed)
    while game.bag_count > bag_at_most:
        choice = choose_move(seat_position(game), lexicon=enable, level=GREEDY, rng=rng)
        game = game.apply(choice.move.move, player=game.to_move, lexicon=enable)
        assert not game.is_over
    return game


# -- levels ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["word-duel", "classic", "outspell"])
def test_greedy_plays_the_highest_scoring_move(enable, ruleset) -> None:
    for seed in range(repetitions(full=6, quick=2)):
        game = midgame(seed, ruleset=ruleset, enable=enable)
        if game.is_over:
            continue
        best = best_play(
            legal_plays(game.board, game.racks[game.to_move], ruleset=ruleset, lexicon=enable)
        )
        assert best is not None
        choice = choose_move(
            seat_position(game), lexicon=enable, level=GREEDY, rng=random.Random(seed)
        )
        if best.score >= SWAP_BELOW:
            assert choice.reason == "play"
            assert choice.move == best
            assert choice.pool == 1


def test_each_level_picks_within_its_group_and_easy_ranges_widest(enable) -> None:
    game = midgame(3, ruleset="word-duel", enable=enable)
    position = seat_position(game)
    plays = ranked(legal_plays(game.board, position.rack, ruleset="word-duel", lexicon=enable))
    best = plays[0].score
    assert best >= SWAP_BELOW
    picked: dict[str, set[object]] = {}
    for level in (EASY, NORMAL, GREEDY):
        group = [p for p in plays[: level.pool] if p.score >= best * level.floor]
        picked[level.name] = set()
        for seed in range(repetitions(full=30, quick=12)):
            choice = choose_move(position, lexicon=enable, level=level, rng=random.Random(seed))
            assert choice.move in group
            assert choice.pool == len(group)
            picked[level.name].add(choice.move)
    assert len(picked["greedy"]) == 1
    assert len(picked["easy"]) > len(picked["normal"]) > 1


def test_the_same_position_and_seed_give_the_same_move(enable) -> None:
    game = midgame(5, ruleset="classic", enable=enable)
    position = seat_position(game)
    first = [
        choose_move(position, lexicon=enable, level=EASY, rng=random.Random(s)) for s in range(6)
    ]
    again = [
        choose_move(position, lexicon=enable, level=EASY, rng=random.Random(s)) for s in range(6)
    ]
    assert first == again
    assert len({choice.move for choice in first}) > 1


def test_levels_by_name() -> None:
    assert get_level("normal") is NORMAL
    assert get_level(HARD) is HARD
    assert get_level(GREEDY) is GREEDY
    with pytest.raises(ValueError, match="easy, normal or hard"):
        get_level("greedy")  # the bench's reference, not a level to choose
    assert HARD.leave
    assert not GREEDY.leave
    with pytest.raises(ValueError, match="easy, normal or hard"):
        get_level("expert")
    with pytest.raises(ValueError, match="pool"):
        Level("odd", pool=0, floor=0.5)


# -- what it cannot see ------------------------------------------------------------------------


def test_the_opponents_rack_and_the_bag_do_not_change_the_choice(enable) -> None:
    game = midgame(7, ruleset="word-duel", enable=enable)
    mover, other = game.to_move, 1 - game.to_move
    hidden = sorted([*game.racks[other], *game.bag])
    shuffled = random.Random(1).sample(hidden, len(hidden))
    count = len(game.racks[other])
    elsewhere = replace(
        game,
        racks=(
            (game.racks[0], tuple(sorted(shuffled[:count])))
            if other == 1
            else (tuple(sorted(shuffled[:count])), game.racks[1])
        ),
        bag=tuple(sorted(shuffled[count:])),
    )
    assert elsewhere.racks[other] != game.racks[other]
    assert elsewhere.racks[mover] == game.racks[mover]
    for level in (EASY, NORMAL, HARD):
        for seed in range(5):
            one = choose_move(
                seat_position(game), lexicon=enable, level=level, rng=random.Random(seed)
            )
            two = choose_move(
                seat_position(elsewhere), lexicon=enable, level=level, rng=random.Random(seed)
            )
            assert one == two


def test_a_position_that_does_not_add_up_is_refused() -> None:
    game = Game.new(seed=SEED)
    with pytest.raises(ValueError, match="unseen"):
        SeatPosition.build(
            ruleset=game.ruleset,
            board_rows=game.board.rows(),
            seat=0,
            rack=game.racks[0],
            scores=(0, 0),
            bag_count=game.bag_count + 1,
            opponent_rack_count=7,
            scoreless_streak=0,
        )
    with pytest.raises(ValueError, match="board"):
        SeatPosition.build(
            ruleset="outspell",
            board_rows=game.board.rows(),
            seat=0,
            rack=game.racks[0],
            scores=(0, 0),
            bag_count=game.bag_count,
            opponent_rack_count=7,
            scoreless_streak=0,
        )


# -- vocabulary --------------------------------------------------------------------------------


def test_a_capped_computer_plays_only_words_at_or_under_the_cap(enable) -> None:
    table = word_difficulty(enable)
    uncapped_rare = 0
    for seed in range(repetitions(full=8, quick=3)):
        game = midgame(seed, ruleset="word-duel", enable=enable, turns=4)
        if game.is_over:
            continue
        position = seat_position(game)
        for cap in (25, 50):
            choice = choose_move(
                position,
                lexicon=enable,
                level=HARD,
                rng=random.Random(0),
                vocabulary=table.at_most(cap),
            )
            for word in choice.move.words:
                assert table[word.word] <= cap, (word.word, cap)
        free = choose_move(position, lexicon=enable, level=HARD, rng=random.Random(0))
        uncapped_rare += any(table[word.word] > 50 for word in free.move.words)
    assert uncapped_rare > 0  # the cap had rare words to keep out


def test_a_vocabulary_of_a_few_words_is_all_it_plays(enable) -> None:
    game = conserved(game_with(racks=("CATSXYZ", "EEEEEEE"), bag=""))
    vocabulary = {"CAT", "AT"}
    choice = choose_move(
        seat_position(game),
        lexicon=enable,
        level=GREEDY,
        rng=random.Random(0),
        vocabulary=vocabulary,
    )
    assert choice.reason == "play"
    assert {word.word for word in choice.move.words} <= vocabulary
    assert choice.move.words[0].word == "CAT"


# -- swaps, passes, going out ------------------------------------------------------------------


def test_it_swaps_a_rack_that_makes_no_word(enable) -> None:
    game = conserved(game_with(racks=("QVVWWXZ", "AEINRST"), bag=""))
    choice = choose_move(seat_position(game), lexicon=enable, level=GREEDY, rng=random.Random(0))
    assert choice.reason == "swap"
    assert isinstance(choice.move.move, Swap)
    assert sorted(choice.move.move.tiles) == sorted("QVVWWXZ")
    game.apply(choice.move.move, player=0, lexicon=enable)


def test_it_swaps_when_its_best_play_is_poor_and_keeps_its_best_tiles(enable) -> None:
    game = conserved(game_with(racks=("IIUUVVS", "AEINRST"), words=[("8H", "ZO")]))
    position = seat_position(game)
    best = best_play(legal_plays(game.board, position.rack, ruleset="word-duel", lexicon=enable))
    assert best is not None
    assert best.score < SWAP_BELOW
    choice = choose_move(position, lexicon=enable, level=GREEDY, rng=random.Random(0))
    assert choice.reason == "swap"
    assert choice.move.move == Swap(("I", "U", "U", "V", "V"))
    # Kept: the blank, one S, and two vowels (E and A, before I in KEEPERS).
    kept_two_vowels = tiles_to_swap(["?", "S", "S", "E", "E", "A", "I"], ruleset="word-duel")
    assert kept_two_vowels == ("E", "I", "S")
    assert tiles_to_swap(["?", "S"], ruleset="outspell") == ("?", "S")


def test_it_passes_when_it_has_no_word_and_too_few_tiles_are_left_to_swap(enable) -> None:
    game = late_game(11, enable=enable, bag_at_most=6)
    position = seat_position(game)
    assert not position.can_swap
    nothing = frozenset({"QQQQ"})  # a lexicon that no rack can play from
    choice = choose_move(position, lexicon=nothing, level=EASY, rng=random.Random(0))
    assert choice.reason == "pass_nothing_else"
    assert isinstance(choice.move.move, Pass)
    early = seat_position(midgame(11, ruleset="word-duel", enable=enable, turns=2))
    choice = choose_move(early, lexicon=nothing, level=EASY, rng=random.Random(0))
    assert choice.reason == "swap"


def test_it_passes_to_end_the_game_when_that_surely_wins(enable) -> None:
    game = conserved(
        game_with(
            racks=("AEINRST", "QZ"), words=[("8G", "JO")], scores=(100, 60), scoreless_streak=5
        )
    )
    position = seat_position(game)
    # Even the cheapest unseen tiles could not bring the opponent level.
    assert position.wins_if_game_ends_now()
    choice = choose_move(position, lexicon=enable, level=HARD, rng=random.Random(0))
    assert choice.reason == "pass_wins"
    after = game.apply(choice.move.move, player=0, lexicon=enable)
    assert after.is_over
    assert after.winner == 0


def test_behind_at_the_last_scoreless_turn_it_plays_even_a_poor_move(enable) -> None:
    game = conserved(
        game_with(
            racks=("IIUUVVS", "AEINRST"), words=[("8H", "ZO")], scores=(10, 60), scoreless_streak=5
        )
    )
    choice = choose_move(seat_position(game), lexicon=enable, level=HARD, rng=random.Random(0))
    assert choice.reason == "play"
    assert 0 < choice.move.score < SWAP_BELOW


def test_with_the_bag_empty_it_goes_out_when_it_can(enable) -> None:
    outs = 0
    for seed in range(12):
        game = late_game(seed, enable=enable, bag_at_most=0)
        position = seat_position(game)
        plays = legal_plays(game.board, position.rack, ruleset="word-duel", lexicon=enable)
        if not any(len(play.tiles) == len(position.rack) for play in plays):
            continue
        outs += 1
        for level in (EASY, NORMAL, GREEDY):
            choice = choose_move(position, lexicon=enable, level=level, rng=random.Random(1))
            assert choice.reason == "go_out"
            assert len(choice.move.tiles) == len(position.rack)
            assert game.apply(choice.move.move, player=game.to_move, lexicon=enable).is_over
    assert outs >= 2


# -- whole games -------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["word-duel", "classic", "outspell"])
def test_computers_play_whole_games_with_only_legal_moves(enable, ruleset) -> None:
    table = word_difficulty(enable)
    reasons: Counter[str] = Counter()
    for seed in range(repetitions(full=3, quick=1)):
        game = Game.new(ruleset=ruleset, seed=bytes([seed + 40]) * 32)
        rng = random.Random(seed)
        players = ((EASY, table.at_most(40)), (NORMAL if seed % 2 else HARD, None))
        while not game.is_over:
            assert game.turn_number < 200
            level, vocabulary = players[game.to_move]
            choice = choose_move(
                seat_position(game), lexicon=enable, level=level, rng=rng, vocabulary=vocabulary
            )
            reasons[choice.reason] += 1
            after = game.apply(choice.move.move, player=game.to_move, lexicon=enable)
            assert after.turns[-1].score == choice.move.score
            if isinstance(choice.move.move, Play):
                assert after.turns[-1].words == choice.move.words
            if choice.reason == "pass_wins":
                assert after.is_over
                assert after.winner == game.to_move
            game = after
    assert reasons["play"] > 0
