"""GCG records: reading the 43 real games and the constructs, re-scoring, writing them back."""

from __future__ import annotations

import io
import random
import re
import time
from dataclasses import replace
from pathlib import Path

import pytest
from django.core.management import call_command

from engine import (
    MAX_GCG_SIZE,
    Board,
    Game,
    GcgError,
    GcgEvent,
    GcgPlayer,
    GcgRecord,
    Swap,
    export_gcg,
    format_gcg,
    parse_gcg,
    play_from_gcg,
    verify_record,
    verify_records,
)
from engine.gcg import (
    CHALLENGE_BONUS,
    END_RACK,
    EXCHANGE,
    PASS,
    PLAY,
    TIME_PENALTY,
    WITHDRAWN,
)
from engine.randomplay import AnagramIndex, random_move
from lexicon.lexicon import Lexicon
from tests.engine.helpers import SEED, game_with, play

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gcg"
RECORDS = sorted(FIXTURES.glob("*.gcg"))
CONSTRUCTS = sorted((FIXTURES / "constructs").glob("*.gcg"))
SUMMARY = "43 games, 1029 plays, 0 mismatches"


def construct(name: str) -> GcgRecord:
    return parse_gcg((FIXTURES / "constructs" / f"{name}.gcg").read_bytes())


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


def test_verify_all_records_scores_match() -> None:
    report = verify_records(RECORDS, ruleset="classic")
    assert report.failures == ()
    assert report.mismatches == ()
    assert (report.games, report.plays) == (43, 1029)
    assert report.summary == SUMMARY


#: doug's last play scored one point too many, its total with it (the totals still add up).
ONE_TOO_MANY = ("HIM +42 451", "HIM +43 452")


def test_verify_reports_a_wrong_score(tmp_path: Path) -> None:
    text = (FIXTURES / "doug_vs_emely.gcg").read_text().replace(*ONE_TOO_MANY)
    path = tmp_path / "bad.gcg"
    path.write_text(text)
    report = verify_records([path])
    assert len(report.mismatches) == 1
    mismatch = report.mismatches[0]
    assert (mismatch.file, mismatch.line, mismatch.move) == (str(path), 28, "N1 HIM")
    assert (mismatch.recorded, mismatch.computed) == (43, 42)
    assert str(mismatch) == f"{path}:28: N1 HIM: recorded +43, computed +42"


def test_verify_reports_a_running_total_that_does_not_add_up(tmp_path: Path) -> None:
    """A pass of +0, then a play whose score is right but whose total is not its player's
    total so far plus that score: once, on that line; the totals after it read from it."""
    path = tmp_path / "totals.gcg"
    path.write_text(
        "#player1 ann Ann\n#player2 bo Bo\n"
        ">ann: AEGINRT 8D GRANITE +70 70\n"
        ">bo: DEILOPU - +0 0\n"
        ">ann: HO 9I OH +14 84\n"
        ">bo: DEILOPU H5 PUL. +6 999\n"
        ">ann: BCHKMOS - +0 84\n"
        ">bo: DEIOQVW - +0 999\n"
    )
    report = verify_records([path])
    [mismatch] = report.mismatches
    assert (mismatch.line, mismatch.move, mismatch.kind) == (6, "H5 PUL.", "total")
    assert (mismatch.recorded, mismatch.computed) == (999, 6)
    assert str(mismatch) == f"{path}:6: H5 PUL.: total recorded 999, running total 6"
    assert report.summary == "1 games, 3 plays, 1 mismatches"
    assert not report.ok


@pytest.mark.parametrize(
    ("construct", "written", "wrong", "running"),
    [
        ("withdrawn_phony", "-- -7 0", "-- -7 7", 0),
        ("challenge_bonus", "(challenge) +5 11", "(challenge) +5 12", 11),
        ("time_penalty", "(time) -10 -4", "(time) -10 4", -4),
        ("end_rack_two_lines", "(DEIOQVW) +23 107", "(DEIOQVW) +23 106", 107),
    ],
)
def test_every_kind_of_line_keeps_the_running_total(
    tmp_path: Path, construct: str, written: str, wrong: str, running: int
) -> None:
    """A withdrawal, a challenge bonus, a time penalty, an end rack: each total is checked."""
    good = (FIXTURES / "constructs" / f"{construct}.gcg").read_text()
    assert written in good
    assert verify_records([FIXTURES / "constructs" / f"{construct}.gcg"]).ok
    path = tmp_path / f"{construct}.gcg"
    path.write_text(good.replace(written, wrong, 1))
    # (The player's next line, if any, is flagged too: it adds to the total written.)
    mismatch = verify_records([path]).mismatches[0]
    assert (mismatch.kind, mismatch.recorded, mismatch.computed) == (
        "total",
        int(wrong.rsplit(" ", 1)[1]),
        running,
    )


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
    text = (FIXTURES / "doug_vs_emely.gcg").read_text().replace(*ONE_TOO_MANY)
    path = tmp_path / "bad.gcg"
    path.write_text(text)
    out = io.StringIO()
    with pytest.raises(SystemExit) as caught:
        call_command("verify_gcg", "--no-lexicon", str(path), stdout=out)
    assert caught.value.code == 1
    lines = out.getvalue().splitlines()
    assert lines == [
        f"{path}:28: N1 HIM: recorded +43, computed +42",
        "1 games, 26 plays, 1 mismatches",
    ]


def test_verify_gcg_command_fails_on_a_running_total(tmp_path: Path) -> None:
    """Every score right, a total wrong: "0 mismatches" and exit 0 before."""
    path = tmp_path / "total.gcg"
    path.write_text(
        "#player1 ann Ann\n#player2 bo Bo\n>ann: DEILOPU - +0 0\n>bo: AEGINRT 8D GRANITE +70 999\n"
    )
    out = io.StringIO()
    with pytest.raises(SystemExit) as caught:
        call_command("verify_gcg", str(path), stdout=out)
    assert caught.value.code == 1
    assert out.getvalue().splitlines() == [
        f"{path}:4: 8D GRANITE: total recorded 999, running total 70",
        "1 games, 1 plays, 1 mismatches",
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


# -- the constructs: one thing the format allows each ----------------------------------------


def test_the_constructs_are_all_there() -> None:
    assert [path.stem for path in CONSTRUCTS] == [
        "blanks_in_racks",
        "challenge_bonus",
        "end_rack_one_line",
        "end_rack_two_lines",
        "exchanges",
        "iso_8859_1_no_pragma",
        "note_continuation",
        "parenthesised_through",
        "quackle_cross_words",
        "time_penalty",
        "unknown_pragmas",
        "utf8_bom_crlf",
        "utf8_pragma",
        "withdrawn_phony",
    ]


@pytest.mark.parametrize("path", RECORDS + CONSTRUCTS, ids=lambda p: p.stem)
def test_every_record_and_construct_adds_up(path: Path) -> None:
    """Each line's total is the previous total plus its score: scores and totals read right."""
    totals: dict[str, int] = {}
    for event in parse_gcg(path.read_bytes()).events:
        totals[event.nick] = totals.get(event.nick, 0) + event.score
        assert totals[event.nick] == event.total, event.text


def test_constructs_verify_with_the_word_check(enable: Lexicon) -> None:
    report = verify_records(CONSTRUCTS, ruleset="classic", lexicon=enable)
    assert (report.failures, report.mismatches) == ((), ())
    assert (report.games, report.plays) == (14, 39)


def test_quackle_writes_the_cross_words_after_the_total() -> None:
    record = construct("quackle_cross_words")
    assert [(e.position, e.word, e.score, e.total, e.comment) for e in record.events] == [
        ("8D", "GRANITE", 70, 70, ""),
        ("9I", "AD", 10, 10, "TA, ED"),
        ("F6", "BOAT", 12, 82, ""),
        ("10H", "OX", 19, 29, "TAX"),
        ("6D", "ZEBU", 15, 97, ""),
    ]
    assert record.racks == (None, "EIOUYRR")
    assert record.players[1] == GcgPlayer("Olga", "Olga Petrova")


def test_the_quackle_line_from_the_issue_reads() -> None:
    line = ">Quackle: BEDGMNP  7e   BEDIM  +26   66  BE, ET, DO"
    event = parse_gcg(f"#player1 Quackle Quackle\n{line}\n").events[0]
    assert (event.rack, event.position, event.word) == ("BEDGMNP", "7E", "BEDIM")
    assert (event.score, event.total, event.comment, event.line) == (26, 66, "BE, ET, DO", 2)


def test_iso_8859_1_without_a_pragma() -> None:
    data = (FIXTURES / "constructs" / "iso_8859_1_no_pragma.gcg").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")  # what the old reader did with it
    record = parse_gcg(data)
    assert record.encoding == "iso8859-1"
    assert record.players == (GcgPlayer("Émely", "Émely"), GcgPlayer("doug", "doug"))
    assert record.events[0].nick == "Émely"


def test_utf8_by_its_pragma_and_with_a_byte_order_mark() -> None:
    record = construct("utf8_pragma")
    assert record.encoding == "utf-8"
    assert record.players == (GcgPlayer("Émely", "Émely Köhler"), GcgPlayer("Zoë", "Zoë Ångström"))
    assert record.title == "Finale à Québec"
    assert record.events[1].nick == "Zoë"
    dos = construct("utf8_bom_crlf")
    assert dos.players[0] == GcgPlayer("ann", "Ann Lee")
    assert [e.line for e in dos.events] == [3, 4]
    assert dos.events[1].notes == (
        "Saved by a Windows editor: a byte-order mark and CR LF line ends.",
    )


@pytest.mark.parametrize("declared", ["ISO-8859-1", "iso8859-1", "latin-1", "Latin1"])
def test_a_declared_iso_8859_1_record(declared: str) -> None:
    data = f"#character-encoding {declared}\n#player1 zoë Zoë\n".encode("iso8859-1")
    record = parse_gcg(data)
    assert (record.encoding, record.players[0]) == ("iso8859-1", GcgPlayer("zoë", "Zoë"))


def test_bytes_that_disagree_with_the_pragma_name_the_line() -> None:
    data = "#character-encoding UTF-8\n#player1 a a\n#player2 é é\n".encode("iso8859-1")
    with pytest.raises(GcgError) as caught:
        parse_gcg(data)
    assert caught.value.line == 3
    assert "not valid UTF-8: byte 0xe9" in str(caught.value)


@pytest.mark.parametrize("name", ["EBCDIC-XX", "rot13", "utf-16", "x" * 40])
def test_an_unsupported_encoding_is_refused(name: str) -> None:
    with pytest.raises(GcgError) as caught:
        parse_gcg(f"#player1 a a\n#character-encoding {name}\n".encode())
    assert caught.value.line == 2
    assert "unsupported character encoding" in str(caught.value)


def test_a_withdrawn_phony_leaves_the_board() -> None:
    record = construct("withdrawn_phony")
    assert [(e.kind, e.score, e.total) for e in record.events] == [
        (PLAY, 70, 70),
        (PLAY, 7, 7),
        (WITHDRAWN, -7, 0),
        (PLAY, 14, 84),
        (PLAY, 6, 6),
    ]
    # PULI goes on the squares PUDI left: the verifier lifted PUDI off the board.
    assert verify_record(record, ruleset="classic") == (4, [])


def test_a_withdrawal_takes_back_only_a_play() -> None:
    """``--`` after an exchange does not lift the player's earlier play off the board."""
    text = "\n".join(
        [
            ">a: AEGINRT 8D GRANITE +70 70",
            ">b: DEILOPU H5 PUL. +6 6",
            ">a: BCHKMOS -BC +0 70",
            ">a: HKMOS -- +0 70",
            ">b: DEIOQVW 9I ODE +11 17",
        ]
    )
    assert verify_record(parse_gcg(text), ruleset="classic") == (3, [])


def test_challenge_bonus_and_time_penalty() -> None:
    bonus = construct("challenge_bonus").events[2]
    assert (bonus.kind, bonus.nick, bonus.rack, bonus.score, bonus.total) == (
        CHALLENGE_BONUS,
        "bo",
        "DEIO",
        5,
        11,
    )
    assert bonus.move_text == "(challenge)"
    penalty = construct("time_penalty").events[-1]
    assert (penalty.kind, penalty.score, penalty.total, penalty.move_text) == (
        TIME_PENALTY,
        -10,
        -4,
        "(time)",
    )
    assert penalty.notes == ("bo ran 1 minute over: 10 points off.",)


def test_both_end_rack_forms() -> None:
    one = construct("end_rack_one_line").events[-1]
    assert (one.kind, one.nick, one.rack, one.end_rack, one.score, one.total) == (
        END_RACK,
        "ann",
        "",
        "DEIOQVW",
        46,
        130,
    )
    gain, loss = construct("end_rack_two_lines").events[-2:]
    assert (gain.nick, gain.rack, gain.end_rack, gain.score) == ("ann", "", "DEIOQVW", 23)
    assert (loss.nick, loss.rack, loss.end_rack, loss.score, loss.total) == (
        "bo",
        "DEIOQVW",
        "DEIOQVW",
        -23,
        -17,
    )
    assert loss.end_rack_count == 7
    assert loss.move_text == "(DEIOQVW)"


def test_exchanges_by_letters_and_by_count() -> None:
    events = construct("exchanges").events
    assert [(e.kind, e.rack, e.exchanged, e.exchange_count, e.move_text) for e in events[1:4]] == [
        (EXCHANGE, "CQUVVWW", "CQVVWW", 6, "-CQVVWW"),
        (EXCHANGE, "", None, 3, "-3"),
        (PASS, "?DEILOU", None, None, "-"),
    ]
    assert events[2].notes == (
        "Exchanges by letters and, when the letters are not shown, by a count.",
    )


def test_blanks_in_racks_and_words() -> None:
    record = construct("blanks_in_racks")
    assert [(e.rack, e.word) for e in record.events] == [
        ("?AEINRT", "RETAINs"),
        ("??DELOU", "D.OLs"),
    ]
    board = Board.empty(15)
    first = play_from_gcg(board, "8D", "RETAINs")
    assert [(t.letter, t.blank) for t in first.tiles][-1] == ("S", True)


def test_every_pragma_is_kept_in_order() -> None:
    record = construct("unknown_pragmas")
    assert record.pragmas == (
        ("character-encoding", "UTF-8"),
        ("player1", "ann Ann Lee"),
        ("player2", "bo Bo"),
        ("title", "Club night, round 3"),
        ("description", "Hand-written to exercise every pragma of the format"),
        ("id", "io.example 4711"),
        ("lexicon", "NWL2018"),
        ("game-type", "scrabble"),
        ("tile-set", "english"),
        ("tile-distribution", "english"),
        ("board-layout", "CrosswordGame"),
        ("timer", "25:00"),
        ("style", "wsc2001"),
        ("x-unknown-pragma", "kept as it is, not fatal"),
        ("incomplete", ""),
        ("rack1", "BCHKMOS"),
        ("rack2", "DEIOQVW"),
    )
    assert (record.title, record.lexicon, record.pragma("TIMER")) == (
        "Club night, round 3",
        "NWL2018",
        "25:00",
    )
    assert record.description == "Hand-written to exercise every pragma of the format"
    assert record.incomplete
    assert record.racks == ("BCHKMOS", "DEIOQVW")
    assert record.pragma("nothing-like-it") is None
    assert not construct("exchanges").incomplete


def test_notes_continue_over_lines() -> None:
    record = construct("note_continuation")
    assert record.notes == ("A note before the first move belongs to the game.",)
    assert record.events[0].notes == (
        (
            "A note may run over several lines:\n"
            "every line that is neither a pragma\n"
            "nor a move line goes on with it."
        ),
    )
    assert record.events[1].notes == ("One note,", "then another.")


def test_through_tiles_in_parentheses() -> None:
    record = construct("parenthesised_through")
    assert [e.word for e in record.plays] == ["GRANITE", "PUL(I)", "OH", "V(R)OOM"]
    assert verify_record(record, ruleset="classic") == (4, [])
    board = Board.empty(15)
    board = board.place(play_from_gcg(board, "8D", "GRANITE").tiles)
    assert len(play_from_gcg(board, "H5", "PUL(I)").tiles) == 3
    for word, reason in [
        ("PUL(X)", "8H holds I"),
        ("(P)ULI", "plays through an empty square"),
        ("PUL(I", "unbalanced parentheses"),
        ("PUL)I(", "unbalanced parentheses"),
    ]:
        with pytest.raises(GcgError, match=re.escape(reason)):
            play_from_gcg(board, "H5", word)


# -- writing a record back -------------------------------------------------------------------


def _same_record(again: GcgRecord, record: GcgRecord) -> None:
    assert again.events == record.events
    assert again.notes == record.notes
    assert again.players == record.players
    # The writer always says UTF-8, first; every other pragma is kept in order.
    kept = (pragma for pragma in record.pragmas if pragma[0] != "character-encoding")
    assert again.pragmas == (("character-encoding", "UTF-8"), *kept)


@pytest.mark.parametrize("path", RECORDS + CONSTRUCTS, ids=lambda p: p.stem)
def test_every_record_round_trips_through_the_writer(path: Path) -> None:
    record = parse_gcg(path.read_bytes())
    text = format_gcg(record)
    again = parse_gcg(text.encode("utf-8"))
    _same_record(again, record)
    assert format_gcg(again) == text


def test_events_compare_by_meaning_not_by_where_they_were_read() -> None:
    event = parse_gcg(">a: ABC  8H  CAB  +14 14\n").events[0]
    moved = parse_gcg("\n\n>a: ABC 8H CAB +14 14\n").events[0]
    assert event == moved
    assert (event.line, moved.line) == (1, 3)


def test_the_writer_keeps_notes_from_reading_as_lines_of_their_own() -> None:
    record = parse_gcg(">a: ABC 8H CAB +14 14\n")
    note = "first\n#player1 x hacked\n>x: ZZZ 8H ZZZ +99 99\n\nlast\u2028line"
    record = replace(record, events=(replace(record.events[0], notes=(note,)),))
    text = format_gcg(record)
    assert text.splitlines()[-4:] == [
        "#note first",
        " #player1 x hacked",
        " >x: ZZZ 8H ZZZ +99 99",
        "last line",
    ]
    again = parse_gcg(text)
    assert len(again.events) == 1
    assert again.players == (None, None)
    assert again.events[0].notes == (
        "first\n #player1 x hacked\n >x: ZZZ 8H ZZZ +99 99\nlast line",
    )


@pytest.mark.parametrize(
    "event",
    [
        GcgEvent(kind=PLAY, nick="a", rack="ABC", score=1, total=1, position="8H", word="C B"),
        GcgEvent(kind=PLAY, nick="a", rack="A B", score=1, total=1, position="8H", word="CAB"),
        GcgEvent(kind=PLAY, nick="a", rack="", score=1, total=1, position="H", word="CAB"),
        GcgEvent(kind=EXCHANGE, nick="a", rack="", score=0, total=1, exchanged="A\nB"),
        GcgEvent(kind="resign", nick="a", rack="", score=0, total=1),
    ],
)
def test_the_writer_refuses_events_no_reader_could_read(event: GcgEvent) -> None:
    with pytest.raises(ValueError, match="cannot write"):
        format_gcg(GcgRecord((), (), (event,)))


# -- hostile names: nothing a player types may add a line to an export ------------------------

HOSTILE_NAME = "Eve\n#player2 mallory hax\n>x"
HOSTILE_TITLE = "GCG\n#player1 hacked hacked\n>hacked: ZZZZZZZ 8H ZZZ +999 999"


def _lines_are_all_pragmas_or_moves(text: str) -> None:
    assert text.endswith("\n")
    lines = text[:-1].split("\n")
    assert text.splitlines() == lines  # no other line break hides anywhere
    assert all(line[:1] in ("#", ">") for line in lines)


def test_a_hostile_name_and_title_do_not_inject_lines(
    enable: Lexicon, anagrams: AnagramIndex
) -> None:
    game = _random_game("word-duel", enable, anagrams, 5)
    plain = parse_gcg(export_gcg(game, player_names=("Eve", "Bo"), title="GCG"))
    text = export_gcg(
        game,
        player_names=(HOSTILE_NAME, "Bo\r\n>Bo: ZZZ 8H ZZZ +1 1"),
        title=HOSTILE_TITLE,
        notes=["Eve won\n#note injected", "\u2028"],
    )
    _lines_are_all_pragmas_or_moves(text)
    assert sum(line.startswith("#player") for line in text.splitlines()) == 2
    record = parse_gcg(text)
    assert record.players == (
        GcgPlayer("Eve_player2_mallory_hax_x", "Eve #player2 mallory hax >x"),
        GcgPlayer("Bo_Bo_ZZZ_8H_ZZZ_1_1", "Bo >Bo: ZZZ 8H ZZZ +1 1"),
    )
    assert record.title == "GCG #player1 hacked hacked >hacked: ZZZZZZZ 8H ZZZ +999 999"
    # Same moves, scores, totals and racks as with plain names; nothing added.
    nicks = {"Eve": "Eve_player2_mallory_hax_x", "Bo": "Bo_Bo_ZZZ_8H_ZZZ_1_1"}
    expected = tuple(replace(e, nick=nicks[e.nick]) for e in plain.events)
    assert record.events[:-1] == expected[:-1]
    assert record.events[-1].notes == ("Eve won #note injected",)
    assert len(record.events) == len(game.turns) + len(game.adjustments)


@pytest.mark.parametrize(
    "char", ["\n", "\r", "\r\n", "\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "\x00", "\t"]
)
def test_every_line_breaking_character_is_folded(char: str) -> None:
    game = game_with(racks=("?TEEEEE", "EEEEEEE"), bag="EEEEEEE")
    game = game.apply(play(game.board, "8H", "qT"), player=0, lexicon=None)
    text = export_gcg(
        game,
        player_names=(f" Ann{char}{char}Lee{char}", f"{char}"),
        title=f"Round{char} 1{char}",
        game_id=(f"word{char}duel", "7"),
    )
    _lines_are_all_pragmas_or_moves(text)
    record = parse_gcg(text)
    assert record.players == (GcgPlayer("Ann_Lee", "Ann Lee"), GcgPlayer("player2", "player2"))
    assert record.title == "Round 1"
    assert record.pragma("id") == "word_duel 7"
    assert len(record.events) == 1


def test_nicks_are_made_of_safe_characters() -> None:
    game = game_with(racks=("?TEEEEE", "EEEEEEE"), bag="EEEEEEE")
    names = ("Émely: the #1 >champ<", "ÉMELY: THE #1 >CHAMP<")
    record = parse_gcg(export_gcg(game, player_names=names))
    nicks = [p.nick for p in record.players if p]
    assert nicks == ["Émely_the_1_champ", "ÉMELY_THE_1_CHAMP_2"]
    assert all(re.fullmatch(r"[\w.-]+", nick) for nick in nicks)


# -- bad input: a GcgError naming the line, never another exception ---------------------------


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("#player1 a a\nthis is not GCG\n", 2, "not a pragma"),
        ("#player1\n", 1, "#player1 needs a nick"),
        (">: ABC 8H CAB +14 14\n", 1, "needs a nick"),
        ("> a ABC 8H CAB +14 14\n", 1, "starts with '>nick:'"),
        (">a: ABC 8H CAB(\n", 1, "cannot read the word"),
        (">a: ABC 8H CAB +14\n", 1, "needs a total"),
        (">a: ABC 8H CAB +1234567890 5\n", 1, "bad score or total"),
        (">a: ABC (AB1) +1 1\n", 1, "cannot read the move '(AB1)'"),
        (">a: ABC 30A CAB +1 1\n", 1, "off a 26 x 26 board"),
    ],
)
def test_unreadable_lines_name_the_line(text: str, line: int, reason: str) -> None:
    with pytest.raises(GcgError) as caught:
        parse_gcg(text)
    assert caught.value.line == line
    assert reason in str(caught.value)
    assert str(caught.value).startswith(f"line {line}: ")


def test_a_record_over_the_size_limit_is_refused() -> None:
    assert MAX_GCG_SIZE == 1024 * 1024
    line = b"#note " + b"x" * 1000 + b"\n"
    data = line * (MAX_GCG_SIZE // len(line) + 1)
    with pytest.raises(GcgError, match="larger than 1048576 bytes"):
        parse_gcg(data)
    with pytest.raises(GcgError, match="larger than 1048576 characters"):
        parse_gcg(data.decode())
    parse_gcg(data[: MAX_GCG_SIZE - MAX_GCG_SIZE % len(line)])  # just under: read


def test_records_at_the_size_limit_take_linear_time() -> None:
    """Shapes that once took quadratic time: a note of half a million continuation lines (was
    about 10 s), a pragma value with a million spaces folded by the writer (was hours)."""
    started = time.monotonic()
    lines = parse_gcg(b">a: ABC 8H CAB +14 14\n#note x\n" + b"y\n" * 500_000)
    assert len(lines.events[0].notes[0]) == 1_000_001
    spaces = parse_gcg(b"#title a" + b" " * 1_000_000 + b"b\n")
    assert format_gcg(spaces).splitlines()[1] == "#title a" + " " * 1_000_000 + "b"
    assert time.monotonic() - started < 5


def test_the_quackle_variants_of_the_move_forms() -> None:
    record = parse_gcg(
        "\n".join(
            [
                ">a: AEGINRT 8D GRANITE +70 70",
                ">a: BCHKMOS --  -70 0",  # two spaces, as Quackle writes it
                ">b: DEILOPU -0 +0 0",  # Quackle reads an exchange of no tiles as a pass
                ">b: DEILOPU   (challenge) +5 5",
                ">a: ABC (time) -10 -10",
                ">b: (TIME) +14 19",  # tiles T, I, M, E left on a rack, not a time penalty
            ]
        )
    )
    assert [e.kind for e in record.events] == [
        PLAY,
        WITHDRAWN,
        PASS,
        CHALLENGE_BONUS,
        TIME_PENALTY,
        END_RACK,
    ]
    assert record.events[-1].end_rack == "TIME"
