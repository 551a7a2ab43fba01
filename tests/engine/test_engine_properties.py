"""Properties over many games: random legal games to the end, GCG records, arbitrary input."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import (
    RULESETS,
    Board,
    Game,
    GcgError,
    GcgPlayer,
    MoveError,
    Play,
    Swap,
    TurnRecord,
    export_gcg,
    format_gcg,
    move_from_dict,
    parse_gcg,
    play_from_gcg,
    verify_record,
)
from engine.gcg import END_RACK, EXCHANGE, PASS, PLAY
from engine.randomplay import AnagramIndex, random_move
from lexicon.lexicon import Lexicon
from tests.depth import repetitions
from tests.engine.helpers import game_with, play

GAMES = repetitions(full=200, quick=30)


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


@settings(max_examples=repetitions(full=300, quick=60), deadline=None)
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


# -- GCG records -----------------------------------------------------------------------------


def _random_finished_game(
    seed: bytes, ruleset: str, salt: bytes, enable: Lexicon, anagrams: AnagramIndex
) -> tuple[Game, frozenset[str] | Lexicon]:
    rng = random.Random(seed)
    rules = RULESETS[ruleset]
    lexicon = enable if rules.lexicon_max_len == 15 else _short(enable, rules.lexicon_max_len)
    game = Game.new(ruleset=ruleset, seed=seed, salt=salt)
    while not game.is_over:
        move = random_move(game, lexicon=lexicon, index=anagrams, rng=rng, swap_chance=0.08)
        game = game.apply(move, player=game.to_move, lexicon=lexicon)
    return game, lexicon


@settings(
    max_examples=repetitions(full=40, quick=10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    seed=st.binary(min_size=32, max_size=32),
    ruleset=st.sampled_from(sorted(RULESETS)),
    salt=st.binary(max_size=8),
)
def test_every_game_the_engine_plays_reads_back_from_its_record(
    seed: bytes, ruleset: str, salt: bytes, enable: Lexicon, anagrams: AnagramIndex
) -> None:
    """All racks shown, the record gives back every play, score, total and rack."""
    game, lexicon = _random_finished_game(seed, ruleset, salt, enable, anagrams)
    text = export_gcg(game, player_names=("Ann Lee", "Bo"))
    record = parse_gcg(text.encode("utf-8"))
    assert record.players == (GcgPlayer("Ann_Lee", "Ann Lee"), GcgPlayer("Bo", "Bo"))
    assert len(record.events) == len(game.turns) + len(game.adjustments)
    board = Board.empty(game.ruleset.board_size)
    for gcg_event, turn in zip(record.events, game.turns, strict=False):
        assert gcg_event.nick == ("Ann_Lee", "Bo")[turn.player]
        assert gcg_event.rack == "".join(turn.rack_before)
        assert (gcg_event.score, gcg_event.total) == (turn.score, turn.totals[turn.player])
        move = turn.move
        if isinstance(move, Play):
            assert gcg_event.kind == PLAY
            placed = play_from_gcg(board, gcg_event.position or "", gcg_event.word or "")
            assert set(placed.tiles) == set(move.tiles)
            board = board.place(placed.tiles)
        elif isinstance(move, Swap):
            assert gcg_event.kind == EXCHANGE
            assert gcg_event.exchanged == "".join(sorted(move.tiles))
        else:
            assert gcg_event.kind == PASS
    assert board == game.board
    for gcg_event, adjustment in zip(
        record.events[len(game.turns) :], game.adjustments, strict=True
    ):
        assert gcg_event.kind == END_RACK
        assert gcg_event.end_rack == "".join(adjustment.rack)
        assert (gcg_event.score, gcg_event.total) == (
            adjustment.points,
            adjustment.totals[adjustment.player],
        )
    assert record.events[-1].total in game.scores
    plays = sum(turn.kind == "play" for turn in game.turns)
    assert verify_record(record, ruleset=ruleset, lexicon=lexicon) == (plays, [])
    assert parse_gcg(format_gcg(record)) == record
    event(f"{ruleset}: {game.end_reason}")


_CONTROLS = st.sampled_from(["\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x00", "\t", "\x1f"])
free_text = st.lists(st.text(max_size=8) | _CONTROLS | st.sampled_from(["#", ">", ":", " "])).map(
    "".join
)


@settings(max_examples=repetitions(full=200, quick=50), deadline=None)
@given(names=st.tuples(free_text, free_text), title=free_text, notes=st.lists(free_text))
def test_no_free_text_adds_a_line_to_an_export(
    names: tuple[str, str], title: str, notes: list[str]
) -> None:
    game = game_with(racks=("?TEEEEE", "EEEEEEE"), bag="EEEEEEE")
    game = game.apply(play(game.board, "8H", "qT"), player=0, lexicon=None)
    text = export_gcg(game, player_names=names, title=title, notes=notes)
    lines = text.removesuffix("\n").split("\n")
    assert text.splitlines() == lines
    assert all(line[:1] in ("#", ">") for line in lines)
    assert sum(line.startswith("#player") for line in lines) == 2
    record = parse_gcg(text.encode("utf-8"))
    assert [(e.kind, e.word, e.score, e.total) for e in record.events] == [(PLAY, "qT", 2, 2)]
    first, second = record.players
    assert first is not None
    assert second is not None
    assert first.nick != second.nick
    for player in (first, second):
        assert player.nick.replace("_", "").replace("-", "").replace(".", "").isalnum()


# The fuzz: whatever comes in, parse_gcg answers with a record or a GcgError, nothing else;
# what it reads, the verifier re-scores and the writer writes back without raising either.

_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gcg"
_RECORDS = [path.read_bytes() for path in sorted(_FIXTURES.glob("**/*.gcg"))]
_PIECES = [
    ">a:",
    ">b:",
    "#player1 a",
    "#player2 b b",
    "#note",
    "#character-encoding",
    " UTF-8",
    " latin-1",
    " ",
    "  ",
    "\n",
    "\r",
    "\r\n",
    "8H",
    "h8",
    "15O",
    "26Z",
    "27A",
    "CAB",
    "c.b",
    "(A)",
    "(",
    ")",
    "()",
    "--",
    "-",
    "-3",
    "-ABC",
    "-0",
    "(challenge)",
    "(time)",
    "(AE)",
    "(7)",
    "+",
    "+5",
    "-5",
    "10",
    "0",
    "?",
    "é",
    "\u2028",
    "\x85",
    "\x00",
    "\ufeff",
    "9" * 12,
]
_soup = st.lists(st.sampled_from(_PIECES), max_size=60).map("".join)


@st.composite
def _mutated_records(draw: st.DrawFn) -> bytes:
    lines = draw(st.sampled_from(_RECORDS)).split(b"\n")
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "garble", "insert"]))
        if action == "delete" and len(lines) > 1:
            del lines[index]
        elif action == "duplicate":
            lines.insert(index, lines[index])
        elif action == "garble":
            lines[index] = draw(st.binary(max_size=40) | _soup.map(str.encode))
        else:
            at = draw(st.integers(0, len(lines[index])))
            extra = draw(st.binary(min_size=1, max_size=4) | _soup.map(str.encode))
            lines[index] = lines[index][:at] + extra + lines[index][at:]
    return b"\n".join(lines)


@settings(
    max_examples=repetitions(full=600, quick=150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    data=st.binary(max_size=2000)
    | st.text(max_size=500)
    | _soup
    | _soup.map(str.encode)
    | _mutated_records()
)
def test_any_input_is_a_record_or_a_gcg_error(data: str | bytes) -> None:
    try:
        record = parse_gcg(data)
    except GcgError:
        event("GcgError")
        return
    event("read")
    verify_record(record)
    text = format_gcg(record)
    text.encode("utf-8")  # no lone surrogate or other unwritable character left
    again = parse_gcg(text)
    assert [(e.kind, e.score, e.total) for e in again.events] == [
        (e.kind, e.score, e.total) for e in record.events
    ]
