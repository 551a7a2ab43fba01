"""Rack leave (``engine.leave``, ``leave_train``) and Hard, which chooses by it: the
table's command is deterministic from its seed, Hard is never worse than greedy where
greedy's choice leaves a worse rack, it takes care once the bag is empty, and it never
reads the opponent's rack."""

from __future__ import annotations

import dataclasses
import json
import random
import statistics
from collections import Counter
from dataclasses import replace

import pytest

from engine import Game, LegalMove, best_play, legal_plays
from engine.computer import GREEDY, HARD, SeatPosition, choose_move, kept_tiles
from engine.leave import LeaveTable, leave_features, leave_table, table_path
from engine.leave_train import fit, main, train
from engine.selfplay import seat_position
from engine.tiles import DrawStream
from lexicon.lexicon import Lexicon
from tests.engine.helpers import game_with


def dealt(*, ruleset: str = "classic", words=(), rack: str, opponent: str | None = None) -> Game:
    """A position with every tile accounted for: the opponent holds ``opponent`` (default
    the first seven of the rest, sorted) and the bag the remainder."""
    game = game_with(ruleset=ruleset, words=words, racks=(rack, ""))
    left = Counter(game.ruleset.full_bag)
    left.subtract([*game.board.tiles(), *rack])
    rest = sorted(left.elements())
    theirs = sorted(opponent) if opponent is not None else rest[:7]
    bag = Counter(rest)
    bag.subtract(theirs)
    return replace(game, racks=(game.racks[0], tuple(theirs)), bag=tuple(sorted(bag.elements())))


# -- the table and its command -----------------------------------------------------------------


def test_the_command_is_deterministic_from_its_seed(enable: Lexicon, tmp_path) -> None:
    """The same seed gives the same file, byte for byte; another seed another table."""
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path in paths:
        main(["--ruleset", "outspell", "--seed", "5", "--games", "1", "--out", str(path)])
    first, again = (path.read_text() for path in paths)
    assert first == again
    table = LeaveTable.from_json(json.loads(first))
    assert (table.ruleset, table.lexicon, table.seed, table.games) == ("outspell", "enable", 5, 1)
    assert table.samples > 10
    assert table.dumps() == first
    other = train(ruleset="outspell", seed=6, games=1, lexicon=enable, lexicon_name="enable")
    assert other.weights != table.weights


def test_the_fit_recovers_known_weights() -> None:
    """Samples made from known tile values (plus a fixed mean) give those values back."""
    truth = {"S": 8.0, "Q": -7.0, "E": 2.0}
    rng = random.Random(3)
    samples = []
    for _ in range(3000):
        leave = [rng.choice("SQE") for _ in range(rng.randint(1, 2))]
        features = leave_features(leave)
        score = 30 + sum(truth[tile] for tile in set(leave))
        samples.append((features, score))
    weights = fit(samples, ridge=0.01)
    value = LeaveTable("classic", "x", 0, 0, len(samples), 0.01, weights).value
    assert value("S") - value("Q") == pytest.approx(15.0, abs=0.5)
    assert value("SE") - value("QE") == pytest.approx(15.0, abs=0.5)


def test_features_count_duplicates_balance_and_q_with_u() -> None:
    features = leave_features(["E", "E", "Q", "U", "?"])
    assert features == Counter(
        {"tile:E": 1, "dup:E": 1, "tile:Q": 1, "tile:U": 1, "tile:?": 1, "vc:3,1": 1, "qu": 1}
    )


@pytest.mark.parametrize("ruleset", ["word-duel", "classic", "outspell"])
def test_each_ruleset_ships_a_table_that_values_s_over_q(ruleset: str) -> None:
    table = leave_table(ruleset)
    assert table_path(ruleset).exists()
    assert (table.ruleset, table.lexicon) == (ruleset, "enable")
    assert table.games >= 100
    assert table.value("S") > table.value("Q")
    assert table.value("ERS") > table.value("UUV")


# -- Hard against greedy -----------------------------------------------------------------------

#: Positions (classic) where the highest-scoring play keeps a worse rack than a slightly
#: lower one that keeps an S: words on the board, the rack to move.
LEAVE_POSITIONS = [
    ((), "SQUIRTV"),
    ((), "AEIRSTU"),
    ((("8G", "FAX"),), "DEIIRSU"),
    ((), "AADIORS"),
    ((), "EEIIRST"),
]
#: Draws per position in the two-turn rollout.
DRAWS = 12


def two_turns(game: Game, move: LegalMove, enable: Lexicon) -> float:
    """The move's score plus the best score of the mover's next turn from the same board,
    averaged over ``DRAWS`` seeded draws: what a leave is worth, measured."""
    totals = []
    for draw in range(DRAWS):
        shuffled = replace(game, stream=DrawStream(bytes([draw + 1]) * 32, b""))
        after = shuffled.apply(move.move, player=0, lexicon=enable)
        plays = legal_plays(after.board, after.racks[0], ruleset=game.ruleset, lexicon=enable)
        best = best_play(plays)
        totals.append(move.score + (best.score if best else 0))
    return statistics.fmean(totals)


def test_hard_is_never_worse_than_greedy_where_greedy_keeps_a_worse_rack(enable) -> None:
    table = leave_table("classic")
    differed = 0
    for words, rack in LEAVE_POSITIONS:
        game = dealt(words=words, rack=rack)
        position = seat_position(game)
        greedy = choose_move(position, lexicon=enable, level=GREEDY, rng=random.Random(0)).move
        hard = choose_move(position, lexicon=enable, level=HARD, rng=random.Random(0)).move
        assert hard.score + table.value(kept_tiles(rack, hard)) >= greedy.score + table.value(
            kept_tiles(rack, greedy)
        )
        if hard != greedy:
            differed += 1
            assert table.value(kept_tiles(rack, hard)) > table.value(kept_tiles(rack, greedy))
        assert two_turns(game, hard, enable) >= two_turns(game, greedy, enable), rack
    assert differed >= 3


@pytest.mark.parametrize("rack", ["??AEIRS", "?EINRST", "AEINRST", "EIIUUVW"])
def test_hard_takes_the_play_or_swap_of_the_most_points_plus_leave(enable, rack: str) -> None:
    """Each leave valued once (plays sharing their tiles share it) is still the full search:
    no play or swap has more points plus leave than Hard's choice."""
    table = leave_table("classic")
    game = dealt(words=[("8D", "HOUSE"), ("E7", "B.T")], rack=rack)
    position = seat_position(game)
    choice = choose_move(position, lexicon=enable, level=HARD, rng=random.Random(0))
    plays = legal_plays(game.board, position.rack, ruleset="classic", lexicon=enable)
    best = max(play.score + table.value(kept_tiles(rack, play)) for play in plays)
    chosen = choice.move.score + table.value(kept_tiles(rack, choice.move))
    assert chosen >= best - 1e-9
    if choice.reason == "play":
        assert chosen == pytest.approx(best)


def test_hard_swaps_a_rack_worth_more_thrown_back(enable) -> None:
    game = dealt(words=[("8H", "ZO")], rack="IUUUVVW")
    choice = choose_move(seat_position(game), lexicon=enable, level=HARD, rng=random.Random(0))
    assert choice.reason == "swap"
    game.apply(choice.move.move, player=0, lexicon=enable)


# -- the endgame -------------------------------------------------------------------------------


def test_with_the_bag_empty_hard_goes_out_rather_than_score_more_and_hold_tiles(enable) -> None:
    """QUA... : playing everything scores less now than keeping a tile, but going out
    earns the opponent's rack and leaves nothing counted against it."""
    outs = 0
    for rack, opponent in (("AET", "QZJXKVW"), ("DEO", "QZJXKVW")):
        game = dealt(words=[("8D", "HOUSE")], rack=rack, opponent=opponent)
        game = replace(game, racks=(game.racks[0], (*game.racks[1], *game.bag)), bag=())
        position = seat_position(game)
        assert position.bag_count == 0
        plays = legal_plays(game.board, position.rack, ruleset="classic", lexicon=enable)
        if not any(len(play.tiles) == len(rack) for play in plays):
            continue
        outs += 1
        choice = choose_move(position, lexicon=enable, level=HARD, rng=random.Random(0))
        assert choice.reason == "go_out"
        assert game.apply(choice.move.move, player=0, lexicon=enable).is_over
    assert outs >= 1


def test_with_the_bag_empty_hard_sheds_a_tile_it_could_get_stuck_with(enable) -> None:
    """Unable to go out, it prefers a play that unloads the heavy tile over one that keeps it
    when the points are close."""
    game = dealt(words=[("8D", "HOUSE")], rack="AEQUZ", opponent="AEIORST")
    game = replace(game, racks=(game.racks[0], (*game.racks[1], *game.bag)), bag=())
    position = seat_position(game)
    choice = choose_move(position, lexicon=enable, level=HARD, rng=random.Random(0))
    kept = kept_tiles(position.rack, choice.move)
    greedy = choose_move(position, lexicon=enable, level=GREEDY, rng=random.Random(0)).move
    rules = game.ruleset
    value = rules.rack_value
    assert choice.move.score - 2 * value(kept) >= greedy.score - 2 * value(
        kept_tiles(position.rack, greedy)
    )


# -- what it sees ------------------------------------------------------------------------------


def test_the_position_holds_no_opponent_rack_or_bag() -> None:
    names = {field.name for field in dataclasses.fields(SeatPosition)}
    assert names == {
        "ruleset",
        "board",
        "seat",
        "rack",
        "scores",
        "bag_count",
        "opponent_rack_count",
        "scoreless_streak",
        "rack_counts",
    }


@pytest.mark.parametrize("ruleset", ["word-duel", "classic", "outspell"])
def test_hard_never_reads_the_opponents_rack(enable, ruleset: str) -> None:
    """Two games alike but for which unseen tiles the opponent holds and which the bag:
    the seat's position is the same, and so is Hard's choice."""
    for rack in ("SQUIRTV", "AEINRST", "IIUUVVW"):
        one = dealt(ruleset=ruleset, rack=rack)
        theirs = one.bag[-7:]
        two = dealt(ruleset=ruleset, rack=rack, opponent="".join(theirs))
        assert one.racks[1] != two.racks[1]
        assert seat_position(one) == seat_position(two)
        choices = [
            choose_move(seat_position(g), lexicon=enable, level=HARD, rng=random.Random(4))
            for g in (one, two)
        ]
        assert choices[0] == choices[1]
