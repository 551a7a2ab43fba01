"""GCG records: reading the 43 real games, re-scoring them, writing our own games."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from django.core.management import call_command

from lexicon.lexicon import Lexicon
from matches.engine import (
    Game,
    GcgError,
    Swap,
    export_gcg,
    parse_gcg,
    verify_record,
    verify_records,
)
from matches.engine.gcg import (
    CHALLENGE_BONUS,
    END_RACK,
    EXCHANGE,
    PASS,
    PLAY,
    TIME_PENALTY,
    WITHDRAWN,
)
from matches.engine.randomplay import AnagramIndex, random_move
from tests.engine.helpers import SEED, game_with, play

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gcg"
RECORDS = sorted(FIXTURES.glob("*.gcg"))
SUMMARY = "43 games, 1029 plays, 0 mismatches"


def test_the_fixtures_are_all_there() -> None:
    assert len(RECORDS) == 43
    assert "1,029 plays" in (FIXTURES / "README.md").read_text()


def test_parse_a_record() -> None:
    record = parse_gcg((FIXTURES / "doug_vs_emely.gcg").read_text())
    assert [(p.nick, p.name) for p in record.players if p] == [("doug", "doug"), ("emely", "emely")]
    first = record.events[0]
    assert (first.kind, first.nick, first.rack, first.position, first.word) == (
        PLAY,
        "doug",
        "DINNVWY",
        "8D",
        "WINDY",
    )
    assert (first.score, first.total, first.line) == (32, 32, 3)
    withdrawn = record.events[6]
    assert (withdrawn.kind, withdrawn.score, withdrawn.total) == (WITHDRAWN, -24, 55)
    last = record.events[-1]
    assert (last.kind, last.rack, last.end_rack, last.score) == (END_RACK, "", "OPEG", 14)
    assert len(record.plays) == 26


def test_notes_attach_to_the_move_before_them() -> None:
    record = parse_gcg((FIXTURES / "many_challenges.gcg").read_text())
    outdance = next(e for e in record.events if e.word == ".UTNAmED")
    assert outdance.notes == ("15A (O)UTDANcE",)
    assert record.events[6].kind == CHALLENGE_BONUS


def test_passes_and_exchanges() -> None:
    record = parse_gcg((FIXTURES / "four_or_more_consecutive_bingos.gcg").read_text())
    passes = [e for e in record.events if e.kind == PASS]
    assert [(e.nick, e.rack, e.score) for e in passes] == [("darrell", "AA", 0)]
    low = parse_gcg((FIXTURES / "combined_low_scoring.gcg").read_text())
    exchanges = [e for e in low.events if e.kind == EXCHANGE]
    assert [(e.exchanged, e.exchange_count) for e in exchanges][:2] == [("KOI", 3), ("DR", 2)]
    ends = [e for e in low.events if e.kind == END_RACK]
    assert [(e.rack, e.end_rack, e.score, e.total) for e in ends] == [
        ("?AEEOTT", "?AEEOTT", -6, -6),
        ("EIOQRRT", "EIOQRRT", -16, -16),
    ]


def test_other_lines() -> None:
    text = "\n".join(
        [
            "#player1 a Alice Smith",
            "#player2 b Bob",
            "#title Final",
            "#lexicon NWL2018",
            "#id io.example 123",
            "#note before the first move",
            ">a: AEINRST 8H RETAINS +66 66",
            "#note a long note",
            "that goes on",
            ">b: ABC -3 +0 0",
            ">b:  (time) -10 -10",
            ">a:  (4) +8 74",
        ]
    )
    record = parse_gcg(text)
    assert record.players[0] is not None
    assert record.players[0].name == "Alice Smith"
    assert (record.title, record.lexicon) == ("Final", "NWL2018")
    assert ("id", "io.example 123") in record.pragmas
    assert record.notes == ("before the first move",)
    assert record.events[0].notes == ("a long note\nthat goes on",)
    assert [e.kind for e in record.events] == [PLAY, EXCHANGE, TIME_PENALTY, END_RACK]
    assert (record.events[1].exchanged, record.events[1].exchange_count) == (None, 3)
    assert record.events[3].end_rack is None


@pytest.mark.parametrize(
    "line", [">a: ABC 8H +5 5", ">a: ABC 8H WORD five 5", ">a: ABC 99Z WORD +5 5", ">a: ABC"]
)
def test_unreadable_move_lines(line: str) -> None:
    with pytest.raises(GcgError) as caught:
        parse_gcg(f"#player1 a a\n{line}\n")
    assert caught.value.line == 2


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_every_record_adds_up(path: Path) -> None:
    """Each line's total is the previous total plus its score: the parser reads it right."""
    totals: dict[str, int] = {}
    for event in parse_gcg(path.read_text()).events:
        totals[event.nick] = totals.get(event.nick, 0) + event.score
        assert totals[event.nick] == event.total, event.text


def test_verify_all_records_scores_match() -> None:
    report = verify_records(RECORDS, ruleset="classic")
    assert report.failures == ()
    assert report.mismatches == ()
    assert (report.games, report.plays) == (43, 1029)
    assert report.summary == SUMMARY


def test_verify_reports_a_wrong_score(tmp_path: Path) -> None:
    text = (FIXTURES / "doug_vs_emely.gcg").read_text().replace("WINDY +32 32", "WINDY +33 33")
    path = tmp_path / "bad.gcg"
    path.write_text(text)
    report = verify_records([path])
    assert len(report.mismatches) == 1
    mismatch = report.mismatches[0]
    assert (mismatch.file, mismatch.line, mismatch.move) == (str(path), 3, "8D WINDY")
    assert (mismatch.recorded, mismatch.computed) == (33, 32)
    assert str(mismatch) == f"{path}:3: 8D WINDY: recorded +33, computed +32"


def test_verify_with_a_lexicon_skips_withdrawn_phonies(enable: Lexicon) -> None:
    record = parse_gcg((FIXTURES / "doug_vs_emely.gcg").read_text())
    plays, mismatches = verify_record(record, lexicon=enable, file="d")
    assert plays == 26
    # TIL.. (withdrawn) is not checked; YAS and QI are not ENABLE words.
    assert [m.reason for m in mismatches] == [
        "YAS is not in the dictionary.",
        "QI is not in the dictionary.",
    ]


# -- writing ---------------------------------------------------------------------------------


def _random_game(ruleset: str, enable: Lexicon, anagrams: AnagramIndex, seed: int) -> Game:
    rng = random.Random(seed)
    game = Game.new(ruleset=ruleset, seed=SEED, salt=str(seed).encode())
    lexicon = frozenset(w for w in enable if len(w) <= game.ruleset.lexicon_max_len)
    swap = game.racks[0] if game.ruleset.swap_whole_rack else game.racks[0][:3]
    game = game.apply(Swap(swap), player=0, lexicon=None)
    while not game.is_over:
        move = random_move(game, lexicon=lexicon, index=anagrams, rng=rng)
        game = game.apply(move, player=game.to_move, lexicon=lexicon)
    return game


@pytest.mark.parametrize(("ruleset", "seed"), [("word-duel", 1), ("classic", 2), ("outspell", 3)])
def test_export_then_verify(
    ruleset: str, seed: int, enable: Lexicon, anagrams: AnagramIndex
) -> None:
    game = _random_game(ruleset, enable, anagrams, seed)
    text = export_gcg(game, player_names=("Ann Lee", "Bo"), title="Round 1")
    record = parse_gcg(text)
    assert record.title == "Round 1"
    assert [(p.nick, p.name) for p in record.players if p] == [
        ("Ann_Lee", "Ann Lee"),
        ("Bo", "Bo"),
    ]
    plays = [turn for turn in game.turns if turn.kind == "play"]
    count, mismatches = verify_record(record, ruleset=ruleset, lexicon=enable)
    assert (count, mismatches) == (len(plays), [])
    totals: dict[str, int] = {}
    for event in record.events:
        totals[event.nick] = totals.get(event.nick, 0) + event.score
        assert totals[event.nick] == event.total
    assert (totals["Ann_Lee"], totals["Bo"]) == game.scores
    assert record.events[0].kind == EXCHANGE
    assert record.events[0].exchanged == "".join(sorted(game.turns[0].move.tiles))  # type: ignore[union-attr]
    assert record.events[0].rack == "".join(game.turns[0].rack_before)


def test_export_hides_the_racks_it_is_told_to(enable: Lexicon, anagrams: AnagramIndex) -> None:
    game = _random_game("word-duel", enable, anagrams, 4)
    text = export_gcg(game, player_names=("ann", "bo"), visible_racks=frozenset({1}))
    record = parse_gcg(text)
    for event, turn in zip(record.events, game.turns, strict=False):
        if turn.player == 0:
            assert event.rack == ""
        else:
            assert event.rack == "".join(turn.rack_before)
    assert record.events[0].exchanged is None
    assert record.events[0].exchange_count == 3
    for event, adjustment in zip(record.events[len(game.turns) :], game.adjustments, strict=True):
        if adjustment.rack_owner == 0:
            assert event.end_rack is None
        else:
            assert event.end_rack == "".join(adjustment.rack)
    hidden = parse_gcg(export_gcg(game, player_names=("a", "b"), visible_racks=frozenset()))
    assert all(event.rack == "" for event in hidden.events)


def test_export_writes_blanks_in_lower_case() -> None:
    game = game_with(racks=("?TEEEEE", "EEEEEEE"), bag="EEEEEEE")
    game = game.apply(play(game.board, "8H", "qT"), player=0, lexicon=None)
    text = export_gcg(game, player_names=("a", "b"))
    assert ">a: ?EEEEET 8H qT +2 2" in text.splitlines()


# -- the management command ------------------------------------------------------------------


def test_verify_gcg_command_over_all_records() -> None:
    out = io.StringIO()
    call_command(
        "verify_gcg", "--ruleset", "classic", "--no-lexicon", *map(str, RECORDS), stdout=out
    )
    lines = out.getvalue().splitlines()
    assert lines == [SUMMARY]


def test_verify_gcg_command_fails_on_a_mismatch(tmp_path: Path) -> None:
    text = (FIXTURES / "doug_vs_emely.gcg").read_text().replace("WINDY +32 32", "WINDY +33 33")
    path = tmp_path / "bad.gcg"
    path.write_text(text)
    out = io.StringIO()
    with pytest.raises(SystemExit) as caught:
        call_command("verify_gcg", "--no-lexicon", str(path), stdout=out)
    assert caught.value.code == 1
    lines = out.getvalue().splitlines()
    assert lines == [
        f"{path}:3: 8D WINDY: recorded +33, computed +32",
        "1 games, 26 plays, 1 mismatches",
    ]


def test_verify_gcg_command_fails_on_an_unreadable_file(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    missing = tmp_path / "missing.gcg"
    with pytest.raises(SystemExit) as caught:
        call_command("verify_gcg", str(RECORDS[0]), str(missing), stdout=out, stderr=err)
    assert caught.value.code == 1
    assert out.getvalue().splitlines()[-1].startswith("1 games, ")
    assert str(missing) in err.getvalue()
    assert "No such file" in err.getvalue()


def test_verify_gcg_command_checks_words_by_default() -> None:
    out = io.StringIO()
    with pytest.raises(SystemExit):
        call_command("verify_gcg", str(FIXTURES / "doug_vs_emely.gcg"), stdout=out)
    lines = out.getvalue().splitlines()
    assert "(YAS is not in the dictionary.)" in lines[0]
    assert lines[-1] == "1 games, 26 plays, 2 mismatches"
