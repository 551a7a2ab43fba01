"""The seed's variations: 9-tile racks (a bingo for 7, 8 or 9 tiles) and Finish Line."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from engine import (
    FINISH_LINE,
    RULESETS,
    SINGLE,
    VARIANTS,
    Game,
    PlacedTile,
    Play,
    get_ruleset,
    legal_plays,
)
from lexicon.lexicon import Lexicon
from tests.engine.helpers import SEED, board_with, play


def test_nine_tiles_is_a_variant_of_classic_not_a_match_ruleset() -> None:
    rules = get_ruleset("classic-nine")
    assert rules is VARIANTS["classic-nine"]
    assert "classic-nine" not in RULESETS
    assert (rules.rack_size, rules.bingo_tiles, rules.bingo_bonus) == (9, 7, 50)
    assert rules.full_bag == get_ruleset("classic").full_bag
    assert rules.seat_counts == (2, 3, 4)
    assert get_ruleset("classic").bingo_tiles == 7


@pytest.mark.parametrize("players", [2, 3, 4])
def test_nine_tile_racks_are_dealt(players: int) -> None:
    game = Game.new(ruleset="classic-nine", seed=SEED, players=players)
    assert all(len(rack) == 9 for rack in game.racks)
    assert game.bag_count == 100 - 9 * players
    assert Game.from_json(json.loads(json.dumps(game.to_json()))) == game


def nine_tile_game(rack: str) -> Game:
    game = Game.new(ruleset="classic-nine", seed=SEED)
    return replace(game, racks=(tuple(sorted(rack)), game.racks[1]))


# ENABLE words that fit on the opening row through H8: 6, 7, 8 and 9 tiles.
@pytest.mark.parametrize(
    ("word", "rack", "bingo"),
    [
        ("RETAIN", "RETAINSXX", False),
        ("RETAINS", "RETAINSXX", True),
        ("STRAINER", "STRAINERX", True),
        ("RESTRAINS", "RESTRAINS", True),
    ],
)
def test_a_bingo_is_seven_eight_or_nine_tiles(
    word: str, rack: str, bingo: bool, enable: Lexicon
) -> None:
    assert word in enable
    game = nine_tile_game(rack)
    tiles = tuple(PlacedTile(7, 4 + i, letter) for i, letter in enumerate(word))
    after = game.apply(Play(tiles), player=0, lexicon=enable)
    record = after.turns[-1]
    assert record.bingo is bingo
    words = sum(w.score for w in record.words)
    assert record.score == words + (50 if bingo else 0)
    assert len(after.racks[0]) == 9


def test_a_full_nine_tile_move_round_trips(enable: Lexicon) -> None:
    game = nine_tile_game("RESTRAINS")
    tiles = tuple(PlacedTile(7, 4 + i, letter) for i, letter in enumerate("RESTRAINS"))
    after = game.apply(Play(tiles), player=0, lexicon=enable)
    assert Game.from_json(json.loads(json.dumps(after.to_json()))) == after


def test_finish_line_ends_the_game_when_a_player_reaches_the_target() -> None:
    # CATS scores 6: First reaches 100 from 94; no rack is counted, First wins.
    base = Game.new(ruleset="classic", seed=SEED, players=3, finish_line=100)
    game = replace(
        base,
        board=board_with([("8H", "CAT")], ruleset="classic"),
        racks=(("S", "Q"), ("A",), ("E",)),
        scores=(94, 99, 20),
        to_move=0,
    )
    short = replace(game, scores=(93, 99, 20)).apply(
        play(game.board, "8H", "...S"), player=0, lexicon=None
    )
    assert not short.is_over
    assert short.scores == (99, 99, 20)
    over = game.apply(play(game.board, "8H", "...S"), player=0, lexicon=None)
    assert over.end_reason == FINISH_LINE
    assert over.adjustments == ()
    assert over.scores == (100, 99, 20)
    assert over.winners == (0,)
    assert over.to_json()["finish_line"] == 100
    assert Game.from_json(json.loads(json.dumps(over.to_json()))) == over


def test_a_challenge_bonus_can_cross_the_finish_line(enable: Lexicon) -> None:
    base = Game.new(ruleset="classic", seed=SEED, challenge="five_point", finish_line=100)
    game = replace(
        base,
        board=board_with([("8H", "CAT")], ruleset="classic"),
        racks=(("S", "Q"), ("A",)),
        scores=(90, 0),
    )
    played = game.apply(play(game.board, "8H", "...S"), player=0, lexicon=enable)
    assert not played.is_over
    judged = played.challenge(by=1, lexicon=enable)
    assert judged.scores == (101, 0)
    assert judged.end_reason == FINISH_LINE


def test_a_phony_over_the_finish_line_is_withdrawn(enable: Lexicon) -> None:
    base = Game.new(ruleset="classic", seed=SEED, challenge=SINGLE, finish_line=95)
    game = replace(
        base,
        board=board_with([("8H", "CAT")], ruleset="classic"),
        racks=(("Z", "Q"), ("A",)),
        scores=(90, 0),
    )
    played = game.apply(play(game.board, "8H", "...Z"), player=0, lexicon=enable)
    assert played.end_reason == FINISH_LINE
    judged = played.challenge(by=1, lexicon=enable)
    assert not judged.is_over
    assert judged.scores == (90, 0)


def test_finish_line_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        Game.new(seed=SEED, finish_line=0)


def test_the_move_generator_scores_nine_tile_bingos_as_the_game_does(enable: Lexicon) -> None:
    game = nine_tile_game("STRAINERX")
    moves = legal_plays(game.board, game.racks[0], ruleset=game.ruleset, lexicon=enable)
    by_size: dict[int, int] = {}
    for legal in moves:
        assert isinstance(legal.move, Play)
        assert legal.bingo is (len(legal.move.tiles) >= 7)
        by_size[len(legal.move.tiles)] = by_size.get(len(legal.move.tiles), 0) + 1
    assert by_size.get(7)
    assert by_size.get(8)
    for legal in [m for m in moves if m.bingo][:20] + list(moves[:20]):
        assert isinstance(legal.move, Play)
        record = game.apply(legal.move, player=0, lexicon=enable).turns[-1]
        assert (record.score, record.bingo, record.words) == (legal.score, legal.bingo, legal.words)
