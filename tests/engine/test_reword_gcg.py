"""Reword's records: the take lines of GCG (docs/RECORDS.md) written, read back and re-scored,
and a golden game (computer against computer, from a fixed seed) kept as its moves and its
record in ``tests/engine/data/reword_golden.*``.

The golden game was played by Hard (seat 0) against Normal with ``random.Random(40)`` and a
one-second take budget; its moves are stored, so the test does not depend on the computer's
timing: it replays them from the seed and checks every figure the game gave then.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from engine import (
    GcgError,
    PlacedTile,
    StealTake,
    SwapTake,
    TakePlay,
    export_gcg,
    game_from_gcg,
    move_from_dict,
    parse_gcg,
    replay,
    replay_draws,
    verify_record,
)
from engine.gcg import STEAL_TAKE, SWAP_TAKE
from lexicon.lexicon import Lexicon
from tests.engine.helpers import game_with

DATA = Path(__file__).parent / "data"
GOLDEN_GCG = DATA / "reword_golden.gcg"
GOLDEN_MOVES = DATA / "reword_golden.json"


@pytest.fixture(scope="module")
def golden(enable: Lexicon):
    data = json.loads(GOLDEN_MOVES.read_text(encoding="utf-8"))
    actions = [move_from_dict(action) for action in data["actions"]]
    game = replay(actions, ruleset="reword", seed=bytes.fromhex(data["seed"]), lexicon=enable)
    return data, actions, game


def test_the_golden_game_replays_to_its_recorded_end(golden) -> None:
    data, _, game = golden
    assert list(game.scores) == data["scores"]
    assert list(game.board.rows()) == data["board"]
    assert game.end_reason == data["end_reason"]
    assert Counter(game.tiles_in_play()) == Counter(game.ruleset.full_bag)
    kinds = Counter(turn.kind for turn in game.turns)
    assert kinds["take_play"] >= 10
    takes = Counter(take.kind for turn in game.turns for take in getattr(turn.move, "takes", ()))
    assert takes["swap"]
    assert takes["steal"]
    assert any(face.islower() for turn in game.turns for face in turn.taken)  # a taken blank


def test_the_golden_games_draws_verify(golden, enable: Lexicon) -> None:
    data, actions, game = golden
    draws = replay_draws(
        bytes.fromhex(data["seed"]), b"", actions, ruleset="reword", lexicon=enable
    )
    assert draws.drawn == tuple(turn.drawn for turn in game.turns)
    assert draws.racks_before == tuple(turn.rack_before for turn in game.turns)


def test_the_golden_game_exports_its_golden_record(golden) -> None:
    _, _, game = golden
    text = export_gcg(game, player_names=("Hard", "Normal"), title="Reword golden game")
    assert text == GOLDEN_GCG.read_text(encoding="utf-8")


def test_the_golden_record_reads_back_into_the_same_game(golden, enable: Lexicon) -> None:
    _, _, game = golden
    record = parse_gcg(GOLDEN_GCG.read_bytes())
    assert {event.kind for event in record.events} >= {SWAP_TAKE, STEAL_TAKE}
    rebuilt = game_from_gcg(record, ruleset="reword", lexicon=enable)
    assert rebuilt.scores == game.scores
    assert rebuilt.board == game.board
    assert [turn.move for turn in rebuilt.turns] == [turn.move for turn in game.turns]
    assert [turn.taken for turn in rebuilt.turns] == [turn.taken for turn in game.turns]
    again = export_gcg(rebuilt, player_names=("Hard", "Normal"), title="Reword golden game")
    assert again == GOLDEN_GCG.read_text(encoding="utf-8")


def test_the_golden_record_rescores_without_racks(golden) -> None:
    record = parse_gcg(GOLDEN_GCG.read_bytes())
    plays, mismatches = verify_record(record, ruleset="reword")
    assert plays == sum(turn.kind in ("play", "take_play") for turn in golden[2].turns)
    assert mismatches == []


def test_take_lines_show_the_rack_before_each_take(enable: Lexicon) -> None:
    # A blank (named B) swapped for the C of CAT/COW (bAT, bOW), the T of bAT stolen (bA),
    # then WITCH across from the W: 4 + 1 + 1 x 3 (the TL of J10) + 3 + 4 = 15.
    game = game_with(ruleset="reword", words=(("8H", "CAT"), ("H8", ".OW")), racks=("?HIKLMS", "A"))
    witch = tuple(PlacedTile(9, 8 + i, letter) for i, letter in enumerate("ITCH"))
    move = TakePlay((SwapTake(7, 7, "B", blank=True), StealTake(7, 9)), witch)
    after = game.apply(move, player=0, lexicon=enable)
    assert [(w.word, w.score) for w in after.turns[-1].words] == [("WITCH", 15)]
    text = export_gcg(after, player_names=("alice", "bob"))
    lines = [line for line in text.splitlines() if line.startswith(">")]
    assert lines == [
        ">alice: ?HIKLMS ~8H b(C) +0 0",
        ">alice: CHIKLMS ^8J (T) +0 0",
        ">alice: CHIKLMST 10H .ITCH +15 15",
    ]
    events = parse_gcg(text).events
    assert [(e.kind, e.position, e.word) for e in events] == [
        (SWAP_TAKE, "8H", "b(C)"),
        (STEAL_TAKE, "8J", "(T)"),
        ("play", "10H", ".ITCH"),
    ]
    # Hidden racks: the take lines show no rack either.
    hidden = export_gcg(after, player_names=("alice", "bob"), visible_racks=frozenset())
    assert ">alice:  ~8H b(C) +0 0" in hidden  # (an empty rack field, as for a play)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (">a: ABC ~8H (C) +0 0", "cannot read the take"),
        (">a: ABC ^8H B(C) +0 0", "cannot read the take"),
        (">a: ABC ~99A B(C) +0 0", "off a 26"),
    ],
)
def test_a_badly_written_take_line_is_a_gcg_error(line: str, reason: str) -> None:
    with pytest.raises(GcgError, match=reason):
        parse_gcg(f"#player1 a a\n#player2 b b\n{line}\n")


def test_a_take_line_not_followed_by_its_play_is_refused(enable: Lexicon) -> None:
    text = (
        "#player1 a a\n#player2 b b\n#rack2 ADEINRT\n"
        ">a: ABCDEFG ~8H B(C) +0 0\n>a: ABCDEFG - +0 0\n"
    )
    with pytest.raises(GcgError, match="line 4: ~8H B\\(C\\) is not followed by a's play"):
        game_from_gcg(parse_gcg(text), ruleset="reword", lexicon=enable)
