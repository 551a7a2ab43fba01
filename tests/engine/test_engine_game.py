"""Dealing, drawing, the random stream, game end, results and serialisation."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from dataclasses import replace

import pytest

from engine import (
    DRAW,
    PLAYED_OUT,
    SIX_SCORELESS,
    DrawStream,
    Game,
    Pass,
    PlacedTile,
    Play,
    Swap,
    draw_tiles,
    export_gcg,
    get_ruleset,
    replay,
    replay_draws,
)
from tests.engine.helpers import SEED, game_with, play


def test_new_game_deals_seven_to_first_then_seven_to_second() -> None:
    game = Game.new(seed=SEED, salt=b"match-1")
    rules = get_ruleset("word-duel")
    stream = DrawStream(SEED, b"match-1")
    first, bag, stream = draw_tiles(rules.full_bag, 7, stream)
    second, bag, stream = draw_tiles(bag, 7, stream)
    assert game.racks == (tuple(sorted(first)), tuple(sorted(second)))
    assert game.bag == bag
    assert game.stream == stream
    assert game.bag_count == 101 - 14
    assert (game.to_move, game.turn_number, game.scores) == (0, 0, (0, 0))
    assert game.result is None
    assert game.end_reason is None
    assert not game.is_over


@pytest.mark.parametrize(("name", "bag"), [("word-duel", 87), ("classic", 86), ("outspell", 84)])
def test_bag_after_the_deal(name: str, bag: int) -> None:
    game = Game.new(ruleset=name, seed=SEED)
    assert game.bag_count == bag
    assert game.tiles_in_play() == list(game.ruleset.full_bag)


def test_same_seed_and_salt_same_game_other_salt_other_game() -> None:
    assert Game.new(seed=SEED, salt=b"a") == Game.new(seed=SEED, salt=b"a")
    assert Game.new(seed=SEED, salt=b"a").racks != Game.new(seed=SEED, salt=b"b").racks


def test_live_games_get_a_fresh_secret_seed() -> None:
    one, two = Game.new(), Game.new()
    assert len(one.seed) == 32
    assert one.seed != two.seed


def test_seed_must_be_32_bytes() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        Game.new(seed=b"short")


def test_the_stream_is_hmac_sha256_of_salt_and_counter() -> None:
    stream = DrawStream(SEED, b"salt")
    expected = hmac.new(SEED, b"salt" + (0).to_bytes(8, "big"), hashlib.sha256).digest()
    assert stream.block(0) == expected
    # randbelow(n): the top bits of each block, rejecting values >= n.
    value, after = stream.randbelow(100)
    counter = 0
    while True:
        top = int.from_bytes(stream.block(counter), "big") >> (256 - (99).bit_length())
        counter += 1
        if top < 100:
            break
    assert (value, after.counter) == (top, counter)


def test_randbelow_is_uniform_enough() -> None:
    stream = DrawStream(SEED)
    counts: Counter[int] = Counter()
    for _ in range(3000):
        value, stream = stream.randbelow(3)
        counts[value] += 1
    assert set(counts) == {0, 1, 2}
    assert all(900 < n < 1100 for n in counts.values())


def test_a_play_draws_back_up_to_seven() -> None:
    game = game_with(racks=("ATEEEEE", "EEEEEEE"), bag="BCD")
    after = game.apply(play(game.board, "8H", "AT"), player=0, lexicon=None)
    assert len(after.racks[0]) == 7
    drawn = after.turns[-1].drawn
    assert len(drawn) == 2
    assert sorted([*drawn, *after.bag]) == ["B", "C", "D"]
    assert after.bag_count == 1


def test_a_play_with_a_short_bag_draws_what_is_left() -> None:
    game = game_with(racks=("ATEEEEE", "EEEEEEE"), bag="B")
    after = game.apply(play(game.board, "8H", "AT"), player=0, lexicon=None)
    assert sorted(after.racks[0]) == sorted("BEEEEE")
    assert after.bag_count == 0
    assert not after.is_over


def test_swap_draws_first_then_returns() -> None:
    # With exactly seven in the bag the swapped-out tiles can never come straight back.
    game = game_with(racks=("QQQQQQQ", "EEEEEEE"), bag="ABCDEFG")
    after = game.apply(Swap(tuple("QQQQQQQ")), player=0, lexicon=None)
    assert sorted(after.racks[0]) == list("ABCDEFG")
    assert after.bag == tuple("QQQQQQQ")


def test_full_game_tiles_are_conserved_after_each_swap() -> None:
    game = Game.new(seed=SEED)
    for _ in range(5):
        game = game.apply(Swap(game.racks[game.to_move][:3]), player=game.to_move, lexicon=None)
        assert game.tiles_in_play() == list(game.ruleset.full_bag)
        assert game.bag == tuple(sorted(game.bag))


def test_six_scoreless_turns_end_the_game() -> None:
    game = Game.new(seed=SEED)
    rules = game.ruleset
    for turn in range(6):
        assert not game.is_over
        move = Pass() if turn % 2 else Swap(game.racks[game.to_move][:1])
        game = game.apply(move, player=game.to_move, lexicon=None)
    assert game.is_over
    assert game.end_reason == SIX_SCORELESS
    assert game.scoreless_streak == 6
    assert game.turn_number == 6
    losses = tuple(-rules.rack_value(rack) for rack in game.racks)
    assert game.scores == losses
    assert [(a.player, a.rack_owner, a.points) for a in game.adjustments] == [
        (0, 0, losses[0]),
        (1, 1, losses[1]),
    ]


def test_a_play_worth_zero_is_not_scoreless() -> None:
    game = game_with(racks=("??EEEEE", "EEEEEEE"), bag="EEEEEEEEEEEEEE", scoreless_streak=5)
    after = game.apply(play(game.board, "8H", "at"), player=0, lexicon=None)
    assert after.turns[-1].score == 0
    assert after.scoreless_streak == 0
    assert not after.is_over


def test_five_scoreless_turns_do_not_end_it() -> None:
    game = Game.new(seed=SEED)
    for _ in range(5):
        game = game.apply(Pass(), player=game.to_move, lexicon=None)
    assert not game.is_over
    assert game.scoreless_streak == 5


def test_going_out_gains_the_opponents_rack() -> None:
    game = game_with(words=[("8H", "AT")], racks=("ES", "QZ"), bag="", scores=(50, 60))
    after = game.apply(play(game.board, "8H", "..ES"), player=0, lexicon=None)
    assert after.is_over
    assert after.end_reason == PLAYED_OUT
    assert after.turns[-1].score == 1 + 1 + 1 + 1
    assert after.scores_before_adjustments == (54, 60)
    assert after.scores == (54 + 20, 60 - 20)
    assert [(a.player, a.rack_owner, a.points) for a in after.adjustments] == [
        (0, 1, 20),
        (1, 1, -20),
    ]
    assert after.result == 0
    assert after.winner == 0


def test_outspell_going_out_nobody_gains() -> None:
    game = game_with(
        ruleset="outspell", words=[("6F", "AT")], racks=("ES", "QZ"), bag="", scores=(50, 60)
    )
    after = game.apply(play(game.board, "6F", "..ES"), player=0, lexicon=None)
    assert after.end_reason == PLAYED_OUT
    assert after.turns[-1].score == 1 + 1 + 1 + 1 * 2  # S on I6, a DL on this board
    assert after.scores == (55, 60 - 20)
    assert [(a.player, a.points) for a in after.adjustments] == [(1, -20)]
    assert after.result == 0


def test_going_out_is_only_with_an_empty_bag() -> None:
    game = game_with(words=[("8H", "AT")], racks=("ES", "QZ"), bag="E")
    after = game.apply(play(game.board, "8H", "..ES"), player=0, lexicon=None)
    assert not after.is_over
    assert after.racks[0] == ("E",)


def _level_finish(ruleset: str) -> Game:
    """Six scoreless turns ending with 20-18 before racks, 17-17 after (B=3 and E=1)."""
    game = game_with(ruleset=ruleset, racks=("B", "E"), bag="", scores=(20, 18), scoreless_streak=5)
    return game.apply(Pass(), player=0, lexicon=None)


def test_tie_word_duel_is_a_draw() -> None:
    game = _level_finish("word-duel")
    assert game.scores == (17, 17)
    assert game.result == DRAW
    assert game.is_draw
    assert game.winner is None


def test_tie_classic_goes_to_the_higher_score_before_adjustments() -> None:
    game = _level_finish("classic")
    assert game.scores == (17, 17)
    assert game.scores_before_adjustments == (20, 18)
    assert game.result == 0
    assert game.winner == 0


def test_tie_classic_level_before_and_after_is_a_draw() -> None:
    game = game_with(ruleset="classic", racks=("E", "E"), bag="", scores=(9, 9), scoreless_streak=5)
    assert game.apply(Pass(), player=0, lexicon=None).result == DRAW


def test_tie_outspell_is_a_draw() -> None:
    game = _level_finish("outspell")
    assert game.scores == (17, 17)
    assert game.result == DRAW


def test_higher_final_score_wins() -> None:
    game = game_with(racks=("E", "E"), bag="", scores=(9, 30), scoreless_streak=5)
    finished = game.apply(Pass(), player=0, lexicon=None)
    assert finished.result == 1
    assert finished.history[-2:] == finished.adjustments


def test_history_records_the_turn() -> None:
    game = game_with(racks=("ATEEEEE", "EEEEEEE"), bag="BCDFGHJ")
    after = game.apply(play(game.board, "8H", "AT"), player=0, lexicon=None)
    record = after.turns[0]
    assert record.player == 0
    assert record.kind == "play"
    assert record.rack_before == tuple(sorted("ATEEEEE"))
    assert [(w.word, w.score) for w in record.words] == [("AT", 4)]
    assert record.score == 4
    assert record.totals == (4, 0)
    assert len(record.drawn) == 2
    assert after.history == (record,)


def test_json_round_trip_new_and_finished() -> None:
    game = Game.new(seed=SEED, salt=b"\x00\xff")
    assert Game.from_json(json.loads(json.dumps(game.to_json()))) == game
    game = game.apply(Swap(game.racks[0][:2]), player=0, lexicon=None)
    game = game.apply(Pass(), player=1, lexicon=None)
    finished = _level_finish("classic")
    for value in (game, finished):
        data = json.loads(json.dumps(value.to_json()))
        assert Game.from_json(data) == value
        assert Game.from_json(data).to_json() == value.to_json()


def test_json_round_trip_keeps_blanks_on_the_board() -> None:
    game = game_with(racks=("?TEEEEE", "EEEEEEE"), bag="EEEEEEE")
    after = game.apply(
        Play((PlacedTile(7, 7, "Q", blank=True), PlacedTile(7, 8, "T"))), player=0, lexicon=None
    )
    assert after.board.get(7, 7) == "q"
    assert Game.from_json(after.to_json()) == after


def test_from_json_refuses_another_format() -> None:
    data = Game.new(seed=SEED).to_json()
    with pytest.raises(ValueError, match="format"):
        Game.from_json({**data, "format": 99})


def test_replay_recomputes_every_rack_from_seed_salt_and_moves() -> None:
    game = Game.new(seed=SEED, salt=b"m42")
    moves = [Swap(game.racks[0][:4]), Pass()]
    for move in moves:
        game = game.apply(move, player=game.to_move, lexicon=None)
    first = game.racks[0]
    word = play(game.board, "8H", "".join(first[:2]))
    game = game.apply(word, player=0, lexicon=None)
    moves.append(word)
    assert replay(moves, seed=SEED, salt=b"m42") == game
    draws = replay_draws(SEED, b"m42", moves)
    assert draws.drawn == tuple(turn.drawn for turn in game.turns)
    assert draws.racks_before == tuple(turn.rack_before for turn in game.turns)
    assert draws.opening_racks == Game.new(seed=SEED, salt=b"m42").racks


def test_games_are_hashable_values() -> None:
    game = Game.new(seed=SEED)
    assert hash(game) == hash(replace(game))
    assert {game, replace(game)} == {game}


# ---------------------------------------------------------------- resumed from a position


def _resumed(game: Game, **changes: object) -> Game:
    """``game`` resumed from its position alone, as matches/stored_game.py reads one."""
    fields: dict[str, object] = {
        "ruleset": game.ruleset,
        "board": game.board,
        "racks": game.racks,
        "bag": game.bag,
        "stream": game.stream,
        "scores": game.scores,
        "turn_number": game.turn_number,
        "scoreless_streak": game.scoreless_streak,
        "end_reason": game.end_reason,
        "result": game.result,
        "adjustments": game.adjustments,
    }
    fields.update(changes)
    return Game.resume(**fields)  # type: ignore[arg-type]


def test_a_resumed_game_plays_on_exactly_as_the_whole_game_does() -> None:
    game = Game.new(seed=SEED)
    for turn in range(5):
        move = Pass() if turn % 2 else Swap(game.racks[game.to_move][:2])
        game = game.apply(move, player=game.to_move, lexicon=None)
    resumed = _resumed(game)
    assert resumed.turns == ()
    assert resumed.turns_before == 5
    assert resumed.turn_number == 5
    assert resumed.to_move == game.to_move == 1
    # The sixth scoreless turn ends both the same way, from the same draw stream.
    whole_end = game.apply(Pass(), player=1, lexicon=None)
    resumed_end = resumed.apply(Pass(), player=1, lexicon=None)
    assert resumed_end.turns == whole_end.turns[-1:]
    assert resumed_end.turn_number == whole_end.turn_number == 6
    for field in ("board", "racks", "bag", "stream", "scores", "end_reason", "result"):
        assert getattr(resumed_end, field) == getattr(whole_end, field), field
    assert resumed_end.adjustments == whole_end.adjustments
    assert resumed_end.scores_before_adjustments == whole_end.scores_before_adjustments


def test_a_resumed_game_refuses_what_no_game_reaches_and_has_no_whole_record() -> None:
    game = Game.new(seed=SEED).apply(Pass(), player=0, lexicon=None)
    assert get_ruleset("outspell").board_size != game.board.size
    with pytest.raises(ValueError, match="board size"):
        _resumed(game, ruleset="outspell")
    with pytest.raises(ValueError, match="count up from 0"):
        _resumed(game, turn_number=-1)
    with pytest.raises(ValueError, match="unknown end reason"):
        _resumed(game, end_reason="bored")
    with pytest.raises(ValueError, match="whole history"):
        _resumed(game).to_json()
    with pytest.raises(ValueError, match="needs the whole game"):
        export_gcg(_resumed(game), player_names=("alice", "bob"))
