"""Scoring per docs/RULES.md: premiums only under new tiles, blanks 0, multipliers multiply."""

from __future__ import annotations

from engine import PlacedTile, Play, score_play
from tests.engine.helpers import board_with, game_with, play

ENABLE_LIKE = frozenset({"AT", "TA", "TAX", "XI", "CAT", "CATS", "QUIZ", "ZA", "RETINAS"})


def test_worked_example_at_through_the_star() -> None:
    game = game_with(racks=("ATEEEEE", "EEEEEEE"))
    after = game.apply(play(game.board, "8H", "AT"), player=0, lexicon=ENABLE_LIKE)
    assert after.turns[-1].score == 4
    assert after.scores == (4, 0)


def test_worked_example_quiz_with_q_on_tl_and_one_dw() -> None:
    # On the standard board no TL and DW are within three squares of each other in a line,
    # so the example is laid out on the outspell board: Q on G2 (TL), Z on J2 (DW).
    game = game_with(ruleset="outspell", words=[("J3", "A")], racks=("IQUZ", "E"))
    after = game.apply(play(game.board, "2G", "QUIZ"), player=0, lexicon=ENABLE_LIKE)
    quiz, za = after.turns[-1].words
    assert (quiz.word, quiz.score) == ("QUIZ", (30 + 1 + 1 + 10) * 2)
    assert quiz.score == 84
    assert (za.word, za.score) == ("ZA", (10 + 1) * 2)
    assert after.turns[-1].score == 84 + 22


def test_two_double_words_multiply_to_four() -> None:
    # CLASSIC on row 5 from E5 (DW) to K5 (DW), through an S already on H5.
    board = board_with([("H5", "S")])
    result = score_play(board, play(board, "5E", "CLA.SIC"))
    assert result.score == (3 + 1 + 1 + 1 + 1 + 1 + 3) * 4 == 44
    assert not result.bingo


def test_two_triple_words_multiply_to_nine() -> None:
    # ABSOLUTE on row 1 from A1 (TW) to H1 (TW), through L and U already there; O on D1 (DL).
    board = board_with([("1E", "LU")])
    result = score_play(board, play(board, "1A", "ABSO..TE"))
    assert result.score == (1 + 3 + 1 + 1 * 2 + 1 + 1 + 1 + 1) * 9 == 99


def test_blank_on_the_star_still_doubles_but_is_worth_nothing() -> None:
    board = board_with()
    assert score_play(board, play(board, "8H", "aT")).score == (0 + 1) * 2


def test_blank_on_a_triple_letter_is_worth_nothing() -> None:
    board = board_with([("2G", "T")])
    assert score_play(board, play(board, "2F", "a.")).score == 0 + 1
    assert score_play(board, play(board, "2F", "A.")).score == 1 * 3 + 1


def test_blank_on_a_double_letter_is_worth_nothing() -> None:
    board = board_with([("1E", "T")])
    assert score_play(board, play(board, "1D", "a.")).score == 0 + 1
    assert score_play(board, play(board, "1D", "A.")).score == 1 * 2 + 1


def test_blank_on_a_double_word_doubles_the_rest() -> None:
    board = board_with([("2C", "T")])  # B2 is a DW
    assert score_play(board, play(board, "2B", "a.")).score == (0 + 1) * 2


def test_cross_words_with_and_without_a_new_premium() -> None:
    # AT across on H8-I8; TA across on H7-I7 (I7 is a DL): main TA, cross-words TA and AT.
    board = board_with([("8H", "AT")])
    result = score_play(board, play(board, "7H", "TA"), lexicon=ENABLE_LIKE)
    words = [(word.word, word.position, word.score) for word in result.words]
    assert words == [
        ("TA", "7H", 1 + 1 * 2),  # main word: A on the DL
        ("TA", "H7", 1 + 1),  # T on a plain square above A: no premium
        ("AT", "I7", 1 * 2 + 1),  # A on the DL above T: the premium counts here too
    ]
    assert result.score == 3 + 2 + 3


def test_a_premium_counts_only_on_the_turn_it_is_covered() -> None:
    game = game_with(racks=("ATSEEEE", "CEEEEEE"), bag="EEEEEEEEEEEEEE")
    game = game.apply(play(game.board, "8H", "AT"), player=0, lexicon=ENABLE_LIKE)
    assert game.turns[-1].score == (1 + 1) * 2
    # CAT through the star: the star's DW was used up by AT.
    game = game.apply(play(game.board, "8G", "C.."), player=1, lexicon=ENABLE_LIKE)
    assert game.turns[-1].score == 3 + 1 + 1
    game = game.apply(play(game.board, "8G", "...S"), player=0, lexicon=ENABLE_LIKE)
    assert game.turns[-1].score == 3 + 1 + 1 + 1
    assert game.scores == (4 + 6, 5)


def test_one_tile_forming_two_words_across_first() -> None:
    board = board_with([("8H", "TA"), ("J9", "I")])
    result = score_play(board, Play((PlacedTile(7, 9, "X"),)), lexicon=ENABLE_LIKE)
    assert [(w.word, w.across, w.score) for w in result.words] == [
        ("TAX", True, 1 + 1 + 8),
        ("XI", False, 8 + 1),
    ]
    assert result.score == 19


def test_one_tile_forms_its_word_down_when_across_makes_none() -> None:
    board = board_with([("8H", "AT")])
    result = score_play(board, Play((PlacedTile(6, 8, "A"),)), lexicon=ENABLE_LIKE)
    assert [(w.word, w.position, w.across) for w in result.words] == [("AT", "I7", False)]
    assert result.score == 1 * 2 + 1  # I7 is a DL


def test_bingo_is_added_after_the_multipliers() -> None:
    game = game_with(racks=("AEINRST", "EEEEEEE"), bag="EEEEEEE")
    after = game.apply(play(game.board, "8H", "RETINAS"), player=0, lexicon=ENABLE_LIKE)
    # R E T I N(L8 DL) A S over the star: (1+1+1+1+2+1+1) x 2 = 16, then +40, not x2.
    record = after.turns[-1]
    assert record.bingo
    assert record.score == 16 + 40 == 56


def test_classic_bingo_is_fifty() -> None:
    game = game_with(ruleset="classic", racks=("AEINRST", "EEEEEEE"), bag="EEEEEEE")
    after = game.apply(play(game.board, "8H", "RETINAS"), player=0, lexicon=ENABLE_LIKE)
    assert after.turns[-1].score == 16 + 50


def test_six_tiles_are_no_bingo() -> None:
    game = game_with(racks=("AEINRST", "EEEEEEE"), bag="EEEEEEE")
    after = game.apply(play(game.board, "8H", "RETINA"), player=0, lexicon=None)
    assert not after.turns[-1].bingo
    assert after.turns[-1].score == (1 + 1 + 1 + 1 + 2 + 1) * 2


def test_gcg_verification_counts_seven_tiles_as_a_bingo() -> None:
    board = board_with()
    assert score_play(board, play(board, "8H", "RETINAS"), ruleset="classic").score == 66
