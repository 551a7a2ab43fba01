"""Every row of docs/RULES.md's message table, and the order the rules are checked in."""

from __future__ import annotations

import pytest

from engine import (
    BagTooSmall,
    BlankNeedsLetter,
    FirstWordTooShort,
    Game,
    MatchOver,
    MissesStar,
    MoveError,
    NotAWord,
    NotConnected,
    NotInLine,
    NotKickedOff,
    NotYourTurn,
    Pass,
    PlacedTile,
    Play,
    SquareTaken,
    StaleTurn,
    Swap,
    TilesNotOnRack,
)
from tests.engine.helpers import game_with, play

WORDS = frozenset({"AT", "CAT", "CATS", "TA", "ACT", "TAT", "AS", "TO", "OX", "ZO", "ZA"})

EXACT_MESSAGES = [
    (NotKickedOff, "This match has not kicked off yet."),
    (MatchOver, "This match is over."),
    (NotYourTurn, "It is not your turn."),
    (StaleTurn, "Your opponent moved. Board updated."),
    (TilesNotOnRack, "You do not have those tiles."),
    (SquareTaken, "That square is already taken."),
    (BlankNeedsLetter, "Choose a letter for the blank."),
    (NotInLine, "Tiles must go in one row or one column, with no gaps."),
    (MissesStar, "The first word has to cover the star."),
    (FirstWordTooShort, "The first word must be at least two tiles long."),
    (NotConnected, "A word has to touch what is already on the board."),
    (BagTooSmall, "There are not enough tiles left in the bag to swap."),
]


@pytest.mark.parametrize(("error", "text"), EXACT_MESSAGES)
def test_each_error_carries_the_rules_text(error: type[MoveError], text: str) -> None:
    raised = error()
    assert raised.message == text
    assert str(raised) == text
    assert isinstance(raised, MoveError)
    assert error.__doc__


def test_not_a_word_names_the_word_in_capitals() -> None:
    error = NotAWord("qx")
    assert str(error) == error.message == "QX is not in the dictionary."
    assert error.word == "QX"


def refused(game: Game, move: object, *, player: int = 0, lexicon: object = WORDS) -> str:
    """Apply a move that must be refused; check nothing changed; return the message."""
    before = game.to_json()
    with pytest.raises(MoveError) as caught:
        game.apply(move, player=player, lexicon=lexicon)  # type: ignore[arg-type]
    assert game.to_json() == before
    return caught.value.message


# -- rule 1 and 2 --------------------------------------------------------------------------


def test_rule_1_over() -> None:
    game = game_with(racks=("AT", "CS"), scoreless_streak=5)
    over = game.apply(Pass(), player=0, lexicon=WORDS)
    assert over.is_over
    assert refused(over, Pass(), player=1) == "This match is over."
    # Over is checked before whose turn it is.
    assert refused(over, Pass(), player=0) == "This match is over."


@pytest.mark.parametrize("player", [1, 2, -1, None, "0", True])
def test_rule_2_not_your_turn(player: object) -> None:
    game = game_with(racks=("AT", "CS"))
    assert refused(game, Pass(), player=player) == "It is not your turn."  # type: ignore[arg-type]


def test_rule_2_is_checked_before_the_move_itself() -> None:
    game = game_with(racks=("AT", "CS"))
    bad = Play((PlacedTile(0, 0, "Q"),))
    assert refused(game, bad, player=1) == "It is not your turn."


# -- rule 4 ----------------------------------------------------------------------------------


def test_rule_4_tiles_not_on_rack() -> None:
    game = game_with(racks=("AT", "CS"))
    move = Play((PlacedTile(7, 7, "C"), PlacedTile(7, 8, "A")))
    assert refused(game, move) == "You do not have those tiles."


def test_rule_4_blank_needs_a_blank_on_the_rack() -> None:
    game = game_with(racks=("AT", "CS"))
    move = Play((PlacedTile(7, 7, "A", blank=True), PlacedTile(7, 8, "T")))
    assert refused(game, move) == "You do not have those tiles."


def test_rule_4_one_letter_twice_needs_two_tiles() -> None:
    game = game_with(racks=("ATX", "CS"))
    move = Play((PlacedTile(7, 7, "T"), PlacedTile(7, 8, "A"), PlacedTile(7, 9, "T")))
    assert refused(game, move) == "You do not have those tiles."


def test_rule_4_square_taken() -> None:
    game = game_with(words=[("8H", "AT")], racks=("CS", "EE"))
    move = Play((PlacedTile(7, 7, "C"),))
    assert refused(game, move) == "That square is already taken."


def test_rule_4_blank_needs_a_letter() -> None:
    game = game_with(racks=("?T", "CS"))
    for letter in ("", "?", "a", "1", "AB"):
        move = Play((PlacedTile(7, 7, letter, blank=True), PlacedTile(7, 8, "T")))
        assert refused(game, move) == "Choose a letter for the blank."


# -- rule 5 ----------------------------------------------------------------------------------


def test_rule_5_not_one_line() -> None:
    game = game_with(racks=("CAT", "EE"))
    move = Play((PlacedTile(7, 7, "C"), PlacedTile(8, 8, "A")))
    assert refused(game, move) == "Tiles must go in one row or one column, with no gaps."


def test_rule_5_gap() -> None:
    game = game_with(racks=("CAT", "EE"))
    move = Play((PlacedTile(7, 6, "C"), PlacedTile(7, 7, "A"), PlacedTile(7, 9, "T")))
    assert refused(game, move) == "Tiles must go in one row or one column, with no gaps."


def test_rule_5_a_gap_filled_by_the_board_is_no_gap() -> None:
    game = game_with(words=[("8H", "A")], racks=("CT", "EE"))
    after = game.apply(
        Play((PlacedTile(7, 6, "C"), PlacedTile(7, 8, "T"))), player=0, lexicon=WORDS
    )
    assert after.turns[-1].words[0].word == "CAT"


def test_rule_5_gap_down_the_board() -> None:
    game = game_with(words=[("8H", "AT")], racks=("CAT", "EE"))
    move = Play((PlacedTile(8, 7, "C"), PlacedTile(10, 7, "A")))
    assert refused(game, move) == "Tiles must go in one row or one column, with no gaps."


# -- rules 6 to 8 ----------------------------------------------------------------------------


def test_rule_6_first_word_covers_the_star() -> None:
    game = game_with(racks=("CAT", "EE"))
    move = Play((PlacedTile(0, 0, "A"), PlacedTile(0, 1, "T")))
    assert refused(game, move) == "The first word has to cover the star."


def test_rule_6_one_tile_off_the_star_reports_the_star() -> None:
    game = game_with(racks=("CAT", "EE"))
    assert refused(game, Play((PlacedTile(3, 3, "A"),))) == "The first word has to cover the star."


def test_rule_7_first_word_two_tiles() -> None:
    game = game_with(racks=("CAT", "EE"))
    move = Play((PlacedTile(7, 7, "A"),))
    assert refused(game, move) == "The first word must be at least two tiles long."


def test_rule_8_touch_the_board() -> None:
    game = game_with(words=[("8H", "AT")], racks=("CAT", "EE"))
    move = Play((PlacedTile(0, 0, "A"), PlacedTile(0, 1, "T")))
    assert refused(game, move) == "A word has to touch what is already on the board."


def test_rule_8_diagonal_is_not_touching() -> None:
    game = game_with(words=[("8H", "AT")], racks=("CAT", "EE"))
    move = Play((PlacedTile(8, 9, "A"), PlacedTile(9, 9, "T")))
    assert refused(game, move) == "A word has to touch what is already on the board."


# -- rule 9 ----------------------------------------------------------------------------------


def test_rule_9_main_word() -> None:
    game = game_with(racks=("CXT", "EE"))
    move = Play((PlacedTile(7, 7, "X"), PlacedTile(7, 8, "T")))
    assert refused(game, move) == "XT is not in the dictionary."


def test_rule_9_blank_is_named_in_capitals() -> None:
    game = game_with(racks=("?T", "EE"))
    move = Play((PlacedTile(7, 7, "Q", blank=True), PlacedTile(7, 8, "T")))
    assert refused(game, move) == "QT is not in the dictionary."


def test_rule_9_main_word_before_cross_words() -> None:
    # CAT across on row 8; play X and Q under C and A: main word XQ, cross-words CX, AQ.
    game = game_with(words=[("8H", "CAT")], racks=("XQ", "EE"))
    move = Play((PlacedTile(8, 7, "X"), PlacedTile(8, 8, "Q")))
    assert refused(game, move) == "XQ is not in the dictionary."


def test_rule_9_cross_words_in_board_order() -> None:
    # Main word OX is a word; cross-words CO then AX (left to right): CO comes first.
    game = game_with(words=[("8H", "CAT")], racks=("OX", "EE"))
    move = Play((PlacedTile(8, 7, "O"), PlacedTile(8, 8, "X")))
    assert refused(game, move) == "CO is not in the dictionary."
    assert refused(game, move, lexicon=WORDS | {"CO"}) == "AX is not in the dictionary."


def test_rule_9_skipped_without_a_lexicon() -> None:
    game = game_with(racks=("XQ", "EE"))
    after = game.apply(Play((PlacedTile(7, 7, "X"), PlacedTile(7, 8, "Q"))), player=0, lexicon=None)
    assert after.turns[-1].words[0].word == "XQ"


# -- the order of the checks -----------------------------------------------------------------


def test_rule_4_rack_before_square_taken() -> None:
    game = game_with(words=[("8H", "AT")], racks=("CS", "EE"))
    assert refused(game, Play((PlacedTile(7, 7, "Z"),))) == "You do not have those tiles."


def test_rule_4_before_rule_5() -> None:
    game = game_with(words=[("8H", "AT")], racks=("CS", "EE"))
    move = Play((PlacedTile(7, 7, "C"), PlacedTile(9, 9, "S")))
    assert refused(game, move) == "That square is already taken."


def test_rule_5_before_rule_6() -> None:
    game = game_with(racks=("CAT", "EE"))
    move = Play((PlacedTile(0, 0, "C"), PlacedTile(1, 1, "A")))
    assert refused(game, move) == "Tiles must go in one row or one column, with no gaps."


def test_rule_6_before_rule_7_and_9() -> None:
    game = game_with(racks=("XQ", "EE"))
    move = Play((PlacedTile(0, 0, "X"),))
    assert refused(game, move) == "The first word has to cover the star."


def test_rule_8_before_rule_9() -> None:
    game = game_with(words=[("8H", "AT")], racks=("XQ", "EE"))
    move = Play((PlacedTile(0, 0, "X"), PlacedTile(0, 1, "Q")))
    assert refused(game, move) == "A word has to touch what is already on the board."


# -- swaps -----------------------------------------------------------------------------------


def test_swap_with_six_in_the_bag_is_refused() -> None:
    game = game_with(racks=("ABCDEFG", "HIJKLMN"), bag="OPQRST")
    assert refused(game, Swap(("A",))) == "There are not enough tiles left in the bag to swap."


def test_swap_with_seven_in_the_bag_is_allowed() -> None:
    game = game_with(racks=("ABCDEFG", "HIJKLMN"), bag="OPQRSTU")
    after = game.apply(Swap(("A", "B")), player=0, lexicon=WORDS)
    assert after.bag_count == 7
    assert sorted(after.racks[0]) == sorted([*"CDEFG", *after.turns[-1].drawn])
    assert sorted(after.bag) == sorted(set("OPQRSTU") - set(after.turns[-1].drawn) | {"A", "B"})
    assert after.scoreless_streak == 1
    assert after.to_move == 1


def test_swap_tiles_not_held() -> None:
    game = game_with(racks=("ABCDEFG", "HIJKLMN"), bag="OPQRSTU")
    assert refused(game, Swap(("Z",))) == "You do not have those tiles."
    assert refused(game, Swap(("A", "A"))) == "You do not have those tiles."
    assert refused(game, Swap(("?",))) == "You do not have those tiles."


def test_swap_bag_checked_before_the_tiles() -> None:
    game = game_with(racks=("ABCDEFG", "HIJKLMN"), bag="OP")
    assert refused(game, Swap(("Z",))) == "There are not enough tiles left in the bag to swap."


def test_outspell_swaps_the_whole_rack_only() -> None:
    game = game_with(ruleset="outspell", racks=("ABCDEFG", "HIJKLMN"), bag="OPQRSTU")
    assert refused(game, Swap(("A",))) == "You can only swap your whole rack."
    after = game.apply(Swap(tuple("GFEDCBA")), player=0, lexicon=None)
    assert sorted(after.racks[0]) == sorted("OPQRSTU")
    assert after.bag == tuple("ABCDEFG")


def test_outspell_swap_needs_the_bag_to_hold_a_rack() -> None:
    game = game_with(ruleset="outspell", racks=("ABCDEFG", "HIJKLMN"), bag="OPQRST")
    message = refused(game, Swap(tuple("ABCDEFG")), lexicon=None)
    assert message == "There are not enough tiles left in the bag to swap."


def test_pass_is_always_legal_on_your_turn() -> None:
    game = game_with(racks=("ABCDEFG", "HIJKLMN"), bag="")
    after = game.apply(Pass(), player=0, lexicon=WORDS)
    assert after.to_move == 1
    assert after.turn_number == 1
    assert after.racks == game.racks
    assert after.board == game.board


def test_a_legal_play_through_the_helpers() -> None:
    game = game_with(words=[("8H", "AT")], racks=("CS", "EE"))
    after = game.apply(play(game.board, "8G", "C.."), player=0, lexicon=WORDS)
    assert after.turns[-1].words[0].word == "CAT"
