"""The replay of an imported record: each play checked (flagged, not refused), the best play of
each recorded rack, and the lines a replay cannot go past refused with their number."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine import Board, GcgError, PlacedTile, get_ruleset, parse_gcg, score_play
from engine.gcg import play_from_gcg
from imports.replay import MAX_TURNS, build_replay
from imports.schemas import Replay
from lexicon.lexicon import Lexicon, get_lexicon
from tests.depth import QUICK

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gcg"
RECORDS = sorted(FIXTURES.glob("*.gcg")) + sorted((FIXTURES / "constructs").glob("*.gcg"))
#: Every record in ``make test``; every third at the quick depth of ``make check``.
SAMPLED_RECORDS = RECORDS[::3] if QUICK else RECORDS


@pytest.fixture(scope="module")
def enable() -> Lexicon:
    return get_lexicon("enable", max_len=15)


def replay_of(text: str | bytes, enable: Lexicon, *, ruleset: str = "classic", **kw) -> Replay:
    return build_replay(
        parse_gcg(text), ruleset=get_ruleset(ruleset), lexicon=enable, lexicon_name="enable", **kw
    )


HEAD = "#player1 ann Ann Lee\n#player2 bo Bo\n"


def test_a_phony_is_flagged_and_the_best_play_stands_beside_it(enable: Lexicon) -> None:
    replay = replay_of((FIXTURES / "phonies_formed.gcg").read_bytes(), enable)
    first = replay.turns[0]
    assert first.move == "8D CRAMESY"
    assert first.score == first.computed_score == 84
    assert [flag.code for flag in first.flags] == ["not_in_lexicon"]
    assert "CRAMESY" in first.flags[0].message
    assert [(w.word, w.in_lexicon) for w in first.words] == [("CRAMESY", False)]
    assert first.analysis == "done"
    assert first.best is not None
    # The best play of ACEMRSY on the empty board, found by the move generator and checked
    # here by the board-only scorer with the lexicon: a legal play worth what it says.
    tiles = [
        PlacedTile(t.row, t.col, t.letter.upper(), t.letter.islower()) for t in first.best.tiles
    ]
    scored = score_play(Board.empty(15), tiles, ruleset="classic", lexicon=enable)
    assert scored.score == first.best.score
    assert not Counter(t.letter for t in tiles) - Counter(first.rack)
    assert replay.players[0].name == "New Player 1"
    assert replay.players[1].nick == "Quackle"
    assert replay.final_totals == (558, 397)


@pytest.mark.parametrize("path", SAMPLED_RECORDS, ids=lambda p: p.name)
def test_every_record_replays_with_only_word_flags(path: Path, enable: Lexicon) -> None:
    """Real games score as the classic rules say: the only flags are words ENABLE lacks
    (the games were played with NWL and CSW), and no legal play beats the best found."""
    replay = replay_of(path.read_bytes(), enable)
    codes = {flag.code for turn in replay.turns for flag in turn.flags}
    assert codes <= {"not_in_lexicon"}, path
    for turn in replay.turns:
        if turn.kind == "play" and not turn.flags and turn.analysis == "done":
            assert turn.best is not None, turn
            assert turn.best.score >= turn.score, turn


def test_a_withdrawn_play_is_marked_and_lifted(enable: Lexicon) -> None:
    from imports.pages import replay_steps

    replay = replay_of((FIXTURES / "constructs" / "withdrawn_phony.gcg").read_bytes(), enable)
    played, taken_back = replay.turns[1], replay.turns[2]
    assert played.withdrawn
    assert played.move == "H5 PUD."
    assert taken_back.kind == "withdrawn"
    assert taken_back.analysis == "not_a_move"
    assert {(t.row, t.col) for t in taken_back.tiles} == {(t.row, t.col) for t in played.tiles}
    boards = replay_steps(replay).boards
    assert boards[2][4][7] == "P"
    assert boards[3][4][7] == "."


def test_wrong_scores_totals_and_rules_are_flagged_not_refused(enable: Lexicon) -> None:
    record = HEAD + (
        ">ann: AEGINRT 8D GRANITE +71 71\n"  # scores 70 under classic
        ">bo: DEILOPU 2B LOUPED +20 25\n"  # touches nothing; its total does not add up
    )
    replay = replay_of(record, enable)
    first, second = replay.turns
    assert [f.code for f in first.flags] == ["score_differs"]
    assert first.flags[0].message == "Recorded +71; the classic rules score +70."
    assert {f.code for f in second.flags} == {"rule_broken", "total_differs"}
    assert "A word has to touch what is already on the board." in [f.message for f in second.flags]
    assert second.computed_score is None
    assert len(second.tiles) == 6


def test_tiles_the_set_does_not_hold_are_flagged(enable: Lexicon) -> None:
    record = HEAD + ">ann: ?AEINST 8D sAtIN +6 6\n>bo: ?AEINST 9D aN +2 2\n"
    replay = replay_of(record, enable)
    assert replay.turns[0].flags == []  # two blanks: as many as classic has
    third = [f.message for f in replay.turns[1].flags if f.code == "too_many_tiles"]
    assert third == ["3 blanks on the board; the classic set has 2."]
    none = replay_of(HEAD + ">ann: AB 8G Ab +3 3\n", enable, ruleset="outspell")
    assert "The outspell set has no blanks." in [f.message for f in none.turns[0].flags]


def test_what_the_move_generator_is_given(enable: Lexicon) -> None:
    record = HEAD + ">ann: 8G AT +4 4\n>bo: ?EI -3 +0 0\n>ann: AAAAAAAAA -A +0 4\n"
    turns = replay_of(record, enable, ruleset="outspell").turns
    assert [t.analysis for t in turns] == ["no_rack", "bad_rack", "bad_rack"]
    spent = replay_of(HEAD + ">ann: AEGINRT 8D GRANITE +70 70\n", enable, analysis_seconds=-1)
    assert spent.turns[0].analysis == "over_budget"
    assert spent.turns[0].best is None


@pytest.mark.parametrize(
    ("record", "line", "reason"),
    [
        (HEAD + ">ann: AEGINRT 8J GRANITE +70 70\n", 3, "runs off the board"),
        (HEAD + ">ann: AT 8G AT +4 4\n>bo: XY 8G XY +9 9\n", 4, "holds A"),
        (HEAD + ">ann: AT 8G AT +4 4\n>cy: XY 7G XI +9 9\n", 4, "a third player 'cy'"),
        (HEAD + ">ann: 9G .T +4 4\n", 3, "plays through an empty square"),
    ],
)
def test_a_play_that_cannot_be_placed_is_refused_with_its_line(
    record: str, line: int, reason: str, enable: Lexicon
) -> None:
    with pytest.raises(GcgError) as caught:
        replay_of(record, enable)
    assert caught.value.line == line
    assert reason in caught.value.reason


def test_a_record_too_big_for_the_smaller_board_names_the_line(enable: Lexicon) -> None:
    with pytest.raises(GcgError) as caught:
        replay_of((FIXTURES / "phonies_formed.gcg").read_bytes(), enable, ruleset="outspell")
    assert caught.value.line == 6  # D8 .HALVENB: 8D CRAMESY before it fits
    assert "the outspell board is 11 x 11" in caught.value.reason


def test_no_moves_and_too_many_moves_are_refused(enable: Lexicon) -> None:
    with pytest.raises(GcgError, match="no move lines"):
        replay_of(HEAD, enable)
    passes = "".join(f">{'ann' if i % 2 else 'bo'}: - +0 0\n" for i in range(MAX_TURNS + 1))
    with pytest.raises(GcgError) as caught:
        replay_of(HEAD + passes, enable)
    assert caught.value.line == 3 + MAX_TURNS


def test_players_without_pragmas_are_seated_in_order_of_play(enable: Lexicon) -> None:
    replay = replay_of(">x: AT 8G AT +4 4\n>y: - +0 0\n", enable)
    assert [p.nick for p in replay.players] == ["x", "y"]
    assert [t.seat for t in replay.turns] == [0, 1]
    alone = replay_of(">x: AT 8G AT +4 4\n", enable)
    assert [p.nick for p in alone.players] == ["x", "player2"]


def test_the_stored_form_reads_back_identically(enable: Lexicon) -> None:
    replay = replay_of((FIXTURES / "many_challenges.gcg").read_bytes(), enable)
    assert Replay.model_validate(replay.model_dump(mode="json")) == replay


def test_play_from_gcg_is_what_places_the_tiles(enable: Lexicon) -> None:
    """The replay's tiles are the reader's own reading of each play (one rule, once)."""
    replay = replay_of(HEAD + ">ann: AEGINRT 8D GRANITE +70 70\n", enable)
    expected = play_from_gcg(Board.empty(15), "8D", "GRANITE").tiles
    assert [(t.row, t.col, t.letter) for t in replay.turns[0].tiles] == [
        (t.row, t.col, t.board_char) for t in expected
    ]
