"""A table of 2-4: seats, who starts, play in seat order, and hand-worked endings."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import pairwise

import pytest

from engine import (
    DRAW,
    PLAYED_OUT,
    SIX_SCORELESS,
    DrawStream,
    Game,
    NotYourTurn,
    Pass,
    TableNotAllowed,
    draw_for_first,
    draw_tiles,
    get_ruleset,
    replay,
)
from tests.engine.helpers import SEED, board_with, play


def table_with(
    *,
    players: int,
    racks: tuple[str, ...],
    scores: tuple[int, ...],
    words: tuple[tuple[str, str], ...] = (),
    bag: str = "",
    to_move: int = 0,
    scoreless_streak: int = 0,
) -> Game:
    """A classic table in a chosen position (tile conservation is the caller's business)."""
    game = Game.new(ruleset="classic", seed=SEED, players=players)
    return replace(
        game,
        board=board_with(words, ruleset="classic"),
        racks=tuple(tuple(sorted(rack)) for rack in racks),
        bag=tuple(sorted(bag)),
        scores=scores,
        to_move=to_move,
        scoreless_streak=scoreless_streak,
    )


# -- seats -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "players"),
    [("word-duel", 3), ("outspell", 4), ("classic", 1), ("classic", 5), ("classic", True)],
)
def test_a_ruleset_seats_only_the_tables_it_allows(ruleset: str, players: int) -> None:
    with pytest.raises(TableNotAllowed):
        Game.new(ruleset=ruleset, seed=SEED, players=players)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_classic_deals_every_seat_in_order_after_the_draw_for_first(players: int) -> None:
    game = Game.new(ruleset="classic", seed=SEED, salt=b"t", players=players)
    rules = get_ruleset("classic")
    stream = DrawStream(SEED, b"t")
    first = 0
    if players > 2:
        first, draws, stream = draw_for_first(rules.full_bag, players, stream)
        assert game.first_draws == draws
    bag = rules.full_bag
    for seat in range(players):
        rack, bag, stream = draw_tiles(bag, 7, stream)
        assert game.racks[seat] == tuple(sorted(rack))
    assert (game.bag, game.stream) == (bag, stream)
    assert game.bag_count == 100 - 7 * players
    assert game.scores == (0,) * players
    assert game.first == game.to_move == first
    assert game.tiles_in_play() == list(rules.full_bag)


def test_two_players_keep_todays_deal_and_json() -> None:
    game = Game.new(ruleset="classic", seed=SEED, salt=b"t")
    assert (game.first, game.first_draws, game.to_move) == (0, (), 0)
    assert set(game.to_json()) == {
        "format", "ruleset", "seed", "salt", "counter", "board", "racks", "bag", "scores",
        "to_move", "scoreless_streak", "end_reason", "result", "turns", "adjustments",
    }  # fmt: skip


def test_play_passes_in_seat_order_from_the_starter() -> None:
    game = Game.new(ruleset="classic", seed=SEED, players=4)
    order = []
    for _ in range(6):
        order.append(game.to_move)
        with pytest.raises(NotYourTurn):
            game.apply(Pass(), player=(game.to_move + 1) % 4, lexicon=None)
        game = game.apply(Pass(), player=game.to_move, lexicon=None)
    assert order == [(game.first + i) % 4 for i in range(6)]


def test_a_table_round_trips_and_replays() -> None:
    game = Game.new(ruleset="classic", seed=SEED, salt=b"r", players=3)
    for _ in range(4):
        game = game.apply(Pass(), player=game.to_move, lexicon=None)
    assert Game.from_json(json.loads(json.dumps(game.to_json()))) == game
    again = replay(game.actions, ruleset="classic", seed=SEED, salt=b"r", players=3)
    assert again == game


def test_resume_follows_the_seat_order_from_the_starter() -> None:
    game = Game.new(ruleset="classic", seed=SEED, players=3)
    resumed = Game.resume(
        ruleset="classic",
        board=game.board,
        racks=game.racks,
        bag=game.bag,
        stream=game.stream,
        scores=game.scores,
        turn_number=4,
        first=2,
    )
    assert resumed.to_move == (2 + 4) % 3


# -- who starts --------------------------------------------------------------------------------


def test_a_blank_beats_an_a() -> None:
    for salt in (b"1", b"2", b"3", b"4"):
        first, rounds, _ = draw_for_first(("?", "A"), 2, DrawStream(SEED, salt))
        assert len(rounds) == 1
        assert rounds[0][first] == "?"


def test_the_letter_closest_to_a_starts() -> None:
    first, rounds, _ = draw_for_first(("B", "C", "Z"), 3, DrawStream(SEED))
    assert rounds[0][first] == "B"
    assert sorted(rounds[0]) == ["B", "C", "Z"]


def test_seats_tied_for_the_best_tile_draw_again() -> None:
    for salt in (b"a", b"b", b"c", b"d", b"e", b"f"):
        stream = DrawStream(SEED, salt)
        first, rounds, after = draw_for_first(("A", "A", "B"), 3, stream)
        # All three tiles are drawn in round 1: the two As tie, so those two draw again.
        assert sorted(rounds[0]) == ["A", "A", "B"]
        assert len(rounds) >= 2
        for earlier, later in pairwise(rounds):
            tied = {seat for seat, tile in enumerate(earlier) if tile == "A"}
            assert {seat for seat, tile in enumerate(later) if tile} == tied
        assert sorted(t for t in rounds[-1] if t) == ["A", "B"]
        assert rounds[-1][first] == "A"
        assert after.counter > stream.counter


def test_the_draw_is_a_pure_function_of_the_stream() -> None:
    rules = get_ruleset("classic")
    assert draw_for_first(rules.full_bag, 4, DrawStream(SEED, b"x")) == draw_for_first(
        rules.full_bag, 4, DrawStream(SEED, b"x")
    )
    starters = {
        Game.new(ruleset="classic", seed=SEED, salt=bytes([i]), players=4).first for i in range(24)
    }
    assert len(starters) > 1


def test_a_ruleset_can_draw_for_first_at_two() -> None:
    rules = replace(get_ruleset("classic"), draw_for_first_at_two=True)
    game = Game.new(ruleset=rules, seed=SEED, salt=b"x")
    first, draws, _ = draw_for_first(rules.full_bag, 2, DrawStream(SEED, b"x"))
    assert (game.first, game.first_draws, game.to_move) == (first, draws, first)


# -- the end, worked by hand ---------------------------------------------------------------------


def test_three_players_one_goes_out() -> None:
    # Seat 1 plays CATS (C3 A1 T1 S1 = 6, K8 is plain) with the bag empty and goes out.
    # In seat order after the goer-out: seat 2's QZ (20) then seat 0's E (1) are counted.
    game = table_with(
        players=3,
        racks=("E", "S", "QZ"),
        scores=(100, 90, 95),
        words=(("8H", "CAT"),),
        to_move=1,
    )
    game = game.apply(play(game.board, "8H", "...S"), player=1, lexicon=None)
    assert game.end_reason == PLAYED_OUT
    assert [(a.player, a.rack_owner, a.points, a.totals) for a in game.adjustments] == [
        (1, 2, 20, (100, 116, 95)),
        (2, 2, -20, (100, 116, 75)),
        (1, 0, 1, (100, 117, 75)),
        (0, 0, -1, (99, 117, 75)),
    ]
    assert game.scores == (99, 117, 75)
    assert game.scores_before_adjustments == (100, 96, 95)
    assert (game.result, game.winner, game.winners) == (1, 1, (1,))


def test_four_players_scoreless_rounds_end_the_game() -> None:
    # Three rounds of four: the twelfth scoreless turn in a row ends it; every rack is
    # deducted (AB = 4, Q = 10, E = 1, an empty rack nothing), nobody gains.
    game = table_with(
        players=4,
        racks=("AB", "Q", "E", ""),
        scores=(50, 60, 60, 40),
        bag="",
        to_move=2,
        scoreless_streak=10,
    )
    assert game.scoreless_turns_to_end == 12
    game = game.apply(Pass(), player=2, lexicon=None)
    assert not game.is_over
    game = game.apply(Pass(), player=3, lexicon=None)
    assert game.end_reason == SIX_SCORELESS
    assert [(a.player, a.points) for a in game.adjustments] == [(0, -4), (1, -10), (2, -1)]
    assert game.scores == (46, 50, 59, 40)
    assert game.winners == (2,)


def test_two_players_still_end_after_six_scoreless_turns() -> None:
    game = table_with(players=2, racks=("A", "B"), scores=(0, 0), scoreless_streak=5)
    assert game.apply(Pass(), player=0, lexicon=None).end_reason == SIX_SCORELESS


def test_a_tie_is_broken_by_the_score_before_the_racks() -> None:
    # Seats 1 and 2 finish level on 50; seat 1 had 60 before its Q was counted, seat 2 had 51.
    game = table_with(
        players=3, racks=("", "Q", "E"), scores=(10, 60, 51), to_move=0, scoreless_streak=8
    )
    game = game.apply(Pass(), player=0, lexicon=None)
    assert game.scores == (10, 50, 50)
    assert (game.result, game.winners) == (1, (1,))


def test_a_tie_with_level_scores_before_the_racks_is_shared() -> None:
    game = table_with(
        players=4,
        racks=("E", "A", "", "Q"),
        scores=(61, 61, 20, 70),
        to_move=0,
        scoreless_streak=11,
    )
    game = game.apply(Pass(), player=0, lexicon=None)
    assert game.scores == (60, 60, 20, 60)
    assert game.scores_before_adjustments == (61, 61, 20, 70)
    # Three share 60 at the end; before the racks seat 3 had 70: seat 3 alone wins.
    assert game.winners == (3,)
    level = table_with(
        players=4, racks=("E", "A", "", ""), scores=(61, 61, 20, 0), scoreless_streak=11
    )
    level = level.apply(Pass(), player=0, lexicon=None)
    assert level.scores == (60, 60, 20, 0)
    assert (level.result, level.winner, level.is_draw, level.winners) == (DRAW, None, True, (0, 1))


def test_four_players_one_goes_out() -> None:
    # Seat 3 plays CATS for 6 and goes out. In seat order after it: seat 0's QU (11), seat
    # 1's E (1), seat 2's XY (12); seat 3 gains each and each loses its own.
    game = table_with(
        players=4,
        racks=("QU", "E", "XY", "S"),
        scores=(120, 130, 110, 100),
        words=(("8H", "CAT"),),
        to_move=3,
    )
    game = game.apply(play(game.board, "8H", "...S"), player=3, lexicon=None)
    assert game.end_reason == PLAYED_OUT
    assert [(a.player, a.rack_owner, a.points) for a in game.adjustments] == [
        (3, 0, 11),
        (0, 0, -11),
        (3, 1, 1),
        (1, 1, -1),
        (3, 2, 12),
        (2, 2, -12),
    ]
    assert game.adjustments[-1].totals == game.scores == (109, 129, 98, 130)
    assert game.winners == (3,)


def test_three_players_scoreless_rounds_end_the_game() -> None:
    # The ninth scoreless turn in a row ends a game of three: V (4), JK (13), AEI (3).
    game = table_with(
        players=3,
        racks=("V", "JK", "AEI"),
        scores=(200, 210, 205),
        to_move=2,
        scoreless_streak=8,
    )
    assert game.scoreless_turns_to_end == 9
    game = game.apply(Pass(), player=2, lexicon=None)
    assert game.end_reason == SIX_SCORELESS
    assert game.scores == (196, 197, 202)
    assert (game.result, game.winners) == (2, (2,))
