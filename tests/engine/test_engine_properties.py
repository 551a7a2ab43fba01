"""Properties over many games: random legal games to the end, and arbitrary input."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from lexicon.lexicon import Lexicon
from matches.engine import RULESETS, Game, MoveError, TurnRecord, move_from_dict
from matches.engine.randomplay import AnagramIndex, random_move

GAMES = 200


def assert_conserved(game: Game) -> None:
    assert game.tiles_in_play() == list(game.ruleset.full_bag)
    assert game.bag == tuple(sorted(game.bag))
    assert all(len(rack) <= game.ruleset.rack_size for rack in game.racks)


@settings(
    max_examples=GAMES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=False,
)
@given(
    seed=st.binary(min_size=32, max_size=32),
    ruleset=st.sampled_from(sorted(RULESETS)),
    salt=st.binary(max_size=8),
)
def test_random_legal_games_run_to_the_end(
    seed: bytes, ruleset: str, salt: bytes, enable: Lexicon, anagrams: AnagramIndex
) -> None:
    rng = random.Random(seed)
    rules = RULESETS[ruleset]
    lexicon = enable if rules.lexicon_max_len == 15 else _short(enable, rules.lexicon_max_len)
    game = Game.new(ruleset=ruleset, seed=seed, salt=salt)
    assert_conserved(game)
    turns = 0
    while not game.is_over:
        move = random_move(game, lexicon=lexicon, index=anagrams, rng=rng)
        mover = game.to_move
        after = game.apply(move, player=mover, lexicon=lexicon)
        turns += 1
        assert after.turn_number == turns
        assert after.turns[-1].player == mover
        assert_conserved(after)
        # The new turn record round-trips every move; the whole game (O(turns) to rebuild)
        # every few moves and at the end, which together cover every state reached.
        record = after.turns[-1]
        assert (
            TurnRecord.from_json(
                json.loads(json.dumps(record.to_json())), board_size=rules.board_size
            )
            == record
        )
        if turns % 8 == 0 or after.is_over:
            assert Game.from_json(json.loads(json.dumps(after.to_json()))) == after
        game = after
    assert game.end_reason in {"played_out", "six_scoreless"}
    event(f"{ruleset}: {game.end_reason}")
    assert game.result in {0, 1, "draw"}
    if game.end_reason == "played_out":
        assert game.bag_count == 0
        assert not game.racks[game.turns[-1].player]
    else:
        assert game.scoreless_streak == rules.scoreless_turns_to_end
    recorded = game.turns[-1].totals
    for adjustment in game.adjustments:
        recorded = adjustment.totals
    assert recorded == game.scores


_SHORT: dict[int, frozenset[str]] = {}


def _short(enable: Lexicon, max_len: int) -> frozenset[str]:
    if max_len not in _SHORT:
        _SHORT[max_len] = frozenset(word for word in enable if len(word) <= max_len)
    return _SHORT[max_len]


scalars = st.none() | st.booleans() | st.integers(-20, 20) | st.sampled_from(["", "A", "?", "ab"])
json_values = (
    scalars
    | st.lists(scalars, max_size=3)
    | st.dictionaries(st.sampled_from(["kind", "tiles", "row", "x"]), scalars, max_size=3)
)
tile_dicts = st.fixed_dictionaries(
    {
        "row": st.integers(-1, 15) | json_values,
        "col": st.integers(-1, 15),
        "letter": st.sampled_from(["A", "E", "Q", "?", "", "a", "ZZ"]) | json_values,
    },
    optional={"blank": st.booleans() | json_values, "x": json_values},
)
wire_moves = (
    st.fixed_dictionaries(
        {"kind": st.just("play"), "tiles": st.lists(tile_dicts, max_size=9)},
        optional={"extra": json_values},
    )
    | st.fixed_dictionaries(
        {
            "kind": st.just("swap"),
            "tiles": st.lists(st.sampled_from(["A", "E", "?", "Q", "a", ""]), max_size=8),
        }
    )
    | st.fixed_dictionaries({"kind": st.sampled_from(["pass", "play", "swap", "x"])})
    | json_values
)


@settings(max_examples=300, deadline=None)
@given(data=wire_moves, player=st.integers(-1, 2), opened=st.booleans())
def test_any_input_is_a_move_error_or_a_new_game(data: Any, player: int, opened: bool) -> None:
    game = Game.new(seed=bytes(32))
    if opened:  # a board with tiles on it, so later-play rules are reached too
        first = game.racks[0]
        game = game.apply(
            move_from_dict(
                {
                    "kind": "play",
                    "tiles": [
                        {
                            "row": 7,
                            "col": 7 + i,
                            "letter": t if t != "?" else "E",
                            "blank": t == "?",
                        }
                        for i, t in enumerate(first[:2])
                    ],
                }
            ),
            player=0,
            lexicon=None,
        )
    before = game.to_json()
    refusal: MoveError | None = None
    try:
        move = move_from_dict(data)
        after = game.apply(move, player=player, lexicon=frozenset({"AE", "EA"}))
    except MoveError as error:
        refusal = error
    if refusal is not None:
        assert str(refusal) == refusal.message
        assert game.to_json() == before
    else:
        assert after.turn_number == game.turn_number + 1
        assert_conserved(after)
