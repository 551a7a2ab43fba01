"""Reword's swap and steal: every rule of the seed page (seeds/004, issue 40) as a case.

Positions are built on the reword board with GCG-style words (``tests/engine/helpers.py``);
the lexicon is ENABLE. Each refusal is its own error type with its code, and a refused turn
changes nothing (the game is a value: the same game is returned to the caller unchanged).
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine import (
    ChallengeRuleNotAllowed,
    Game,
    MalformedMove,
    MoveError,
    NotAnEndLetter,
    NoTileToTake,
    PlacedTile,
    Play,
    SquareBlocked,
    StealFromShortWord,
    StealTake,
    SwapTake,
    TakeBreaksWord,
    TakenTileNotPlayed,
    TakenTwice,
    TakePlay,
    TakesOff,
    TilesNotOnRack,
    TooManyTakes,
    TurnRecord,
    best_play,
    get_ruleset,
    legal_plays,
    move_from_dict,
    replay,
    replay_draws,
)
from engine.rulesets import RULESETS, VARIANTS
from engine.takegen import take_plays
from lexicon.lexicon import Lexicon
from tests.engine.helpers import SEED, game_with
from tests.engine.test_rounds import position as rounds_position

# CAT across from 8H, COW down from H8 (sharing the C): the position most cases start from.
CAT_COW = (("8H", "CAT"), ("H8", ".OW"))


def refused(game: Game, move: TakePlay, lexicon: Lexicon) -> MoveError:
    """The refusal of ``move``; the game it was refused in is left as it was."""
    before = game.to_json()
    with pytest.raises(MoveError) as caught:
        game.apply(move, player=game.to_move, lexicon=lexicon)
    assert game.to_json() == before
    return caught.value


# -- the ruleset -------------------------------------------------------------------------------


def test_the_reword_ruleset_is_word_duel_with_swaps_and_steals() -> None:
    reword, duel = get_ruleset("reword"), get_ruleset("word-duel")
    assert reword.swap_and_steal
    assert not duel.swap_and_steal
    assert (reword.board_size, reword.layout, reword.full_bag) == (
        duel.board_size,
        duel.layout,
        duel.full_bag,
    )
    assert reword.seat_counts == (2,)
    assert reword.out_gains_opponent_rack
    assert not reword.tie_break_before_adjustments
    # A variant until a later session offers it for matches.
    assert "reword" in VARIANTS
    assert "reword" not in RULESETS


def test_end_scoring_each_loses_their_rack_and_the_player_out_gains_the_others() -> None:
    # The seed's example: the opponent is left with D and I; they lose them, the player out
    # gains them. (The seed counts D and I as 4 points; it prints no value table, and Word
    # Duel's tiles, D 2 and I 1, are reword's: 3 here, a 6-point swing.)
    game = game_with(ruleset="reword", words=CAT_COW, racks=("", "DI"), bag="", scores=(50, 50))
    over = game.finish("played_out", out_player=0)
    assert over.scores == (53, 47)
    # Nobody out (six scoreless turns): each loses their own rack, nobody gains.
    game = game_with(ruleset="reword", words=CAT_COW, racks=("Q", "?E"), bag="", scores=(50, 50))
    assert game.finish("six_scoreless").scores == (40, 49)


def test_a_reword_game_has_no_challenges() -> None:
    with pytest.raises(ChallengeRuleNotAllowed):
        Game.new(ruleset="reword", seed=SEED, challenge="single")


def test_other_rulesets_refuse_a_take_play(enable: Lexicon) -> None:
    game = game_with(words=CAT_COW, racks=("EFGH", "A"))
    move = TakePlay((StealTake(7, 7),), (PlacedTile(8, 8, "C"),))
    error = refused(game, move, enable)
    assert isinstance(error, TakesOff)
    assert error.code == "takes_off"


# -- steal ---------------------------------------------------------------------------------------


def test_a_steal_takes_an_end_letter_to_the_rack_and_it_is_played(enable: Lexicon) -> None:
    # Steal the C of CAT (AT stays), also COW's first letter (OW stays); play ICE across on
    # row 11 with the E under the W: ICE (1 + 3 + 1) and OWE (1 + 4 + 1) = 11.
    game = game_with(ruleset="reword", words=CAT_COW, racks=("EHIKLMS", "A"))
    ice = (PlacedTile(10, 5, "I"), PlacedTile(10, 6, "C"), PlacedTile(10, 7, "E"))
    after = game.apply(TakePlay((StealTake(7, 7),), ice), player=0, lexicon=enable)
    turn = after.turns[-1]
    assert turn.kind == "take_play"
    assert turn.taken == ("C",)
    assert [(word.word, word.score) for word in turn.words] == [("ICE", 5), ("OWE", 6)]
    assert turn.score == 11
    assert after.scores == (11, 0)
    assert after.board.get(7, 7) is None  # the stolen square stays empty after the play
    assert turn.rack_before == tuple("EHIKLMS")
    assert after.racks[0] == tuple(sorted("HKLMS" + "".join(turn.drawn)))


def test_a_steal_from_a_two_letter_word_is_refused(enable: Lexicon) -> None:
    game = game_with(ruleset="reword", words=(("8H", "AT"),), racks=("EST", "A"))
    error = refused(game, TakePlay((StealTake(7, 8),), (PlacedTile(8, 8, "T"),)), enable)
    assert isinstance(error, StealFromShortWord)
    assert error.code == "steal_from_short_word"
    assert str(error) == "You can only steal from a word of three letters or more."


def test_a_steal_of_a_tile_that_ends_one_word_but_sits_in_a_two_letter_one_is_refused(
    enable: Lexicon,
) -> None:
    # The T of CAT starts TO down: stealing it would erase TO.
    game = game_with(ruleset="reword", words=(("8H", "CAT"), ("J8", ".O")), racks=("ES", "A"))
    error = refused(game, TakePlay((StealTake(7, 9),), (PlacedTile(6, 9, "T"),)), enable)
    assert isinstance(error, StealFromShortWord)


def test_a_steal_of_a_middle_letter_is_refused(enable: Lexicon) -> None:
    game = game_with(ruleset="reword", words=CAT_COW, racks=("ES", "A"))
    error = refused(game, TakePlay((StealTake(7, 8),), (PlacedTile(6, 8, "A"),)), enable)
    assert isinstance(error, NotAnEndLetter)
    assert error.code == "not_an_end_letter"


def test_a_steal_that_leaves_a_non_word_is_refused_naming_it(enable: Lexicon) -> None:
    # CAT -> stealing the T leaves CA, which ENABLE lacks.
    assert "CA" not in enable
    game = game_with(ruleset="reword", words=(("8H", "CAT"),), racks=("ES", "A"))
    error = refused(game, TakePlay((StealTake(7, 9),), (PlacedTile(6, 9, "T"),)), enable)
    assert isinstance(error, TakeBreaksWord)
    assert error.word == "CA"
    assert str(error) == "That would leave CA on the board, which is not a word."


def test_a_stolen_square_is_blocked_for_the_play(enable: Lexicon) -> None:
    # Steal the Z of ADZ, then try to put a tile back on its square.
    game = game_with(ruleset="reword", words=(("8G", "ADZ"),), racks=("EGS", "A"))
    move = TakePlay((StealTake(7, 8),), (PlacedTile(7, 8, "S"), PlacedTile(8, 8, "Z")))
    error = refused(game, move, enable)
    assert isinstance(error, SquareBlocked)
    assert error.code == "square_blocked"
    assert str(error) == "8I is blocked: you stole from it this turn."


def test_a_stolen_z_on_a_double_letter_scores_twenty(enable: Lexicon) -> None:
    # The seed: "A stolen Z landing on a double-letter square is worth 20 on its own". Steal
    # the Z of ADZ (AD stays), play ZAG down from G7: Z on the DL of G7 (20), the A already
    # there (1), G on the DL of G9 (4) = 25.
    game = game_with(ruleset="reword", words=(("8G", "ADZ"),), racks=("EGIRST", "A"))
    move = TakePlay((StealTake(7, 8),), (PlacedTile(6, 6, "Z"), PlacedTile(8, 6, "G")))
    after = game.apply(move, player=0, lexicon=enable)
    turn = after.turns[-1]
    assert [(word.word, word.score) for word in turn.words] == [("ZAG", 25)]
    assert turn.score == 25
    assert turn.taken == ("Z",)
    assert after.racks[0] == tuple(sorted("EIRST" + "".join(turn.drawn)))


# -- swap ----------------------------------------------------------------------------------------


def test_a_swap_puts_a_rack_tile_down_and_its_square_gives_no_premium(enable: Lexicon) -> None:
    # Swap B for the C of CAT/COW on the star (BAT and BOW stay words, and score nothing);
    # play the C and an H after BAT: BATCH = 3 + 1 + 1 + 3 + 4 x 2 (L8 is a DL) = 16. The B
    # sits on the star, but it is an old tile there: no DW (else 32).
    game = game_with(ruleset="reword", words=CAT_COW, racks=("BHIKLMS", "A"))
    move = TakePlay((SwapTake(7, 7, "B"),), (PlacedTile(7, 10, "C"), PlacedTile(7, 11, "H")))
    after = game.apply(move, player=0, lexicon=enable)
    turn = after.turns[-1]
    assert after.board.get(7, 7) == "B"
    assert turn.taken == ("C",)
    assert [(word.word, word.score) for word in turn.words] == [("BATCH", 16)]
    assert after.racks[0] == tuple(sorted("IKLMS" + "".join(turn.drawn)))


def test_a_swap_that_breaks_a_crossing_word_is_refused(enable: Lexicon) -> None:
    # E for the C: EAT across is a word, EOW down is not.
    assert "EAT" in enable
    assert "EOW" not in enable
    game = game_with(ruleset="reword", words=CAT_COW, racks=("EHS", "A"))
    move = TakePlay((SwapTake(7, 7, "E"),), (PlacedTile(10, 6, "C"), PlacedTile(10, 7, "H")))
    error = refused(game, move, enable)
    assert isinstance(error, TakeBreaksWord)
    assert error.word == "EOW"
    assert error.code == "take_breaks_word"


def test_taking_a_tile_not_played_is_refused(enable: Lexicon) -> None:
    game = game_with(ruleset="reword", words=CAT_COW, racks=("EHIKLMS", "A"))
    # Steal the C, then play HI elsewhere without it.
    move = TakePlay((StealTake(7, 7),), (PlacedTile(10, 6, "H"), PlacedTile(10, 7, "I")))
    error = refused(game, move, enable)
    assert isinstance(error, TakenTileNotPlayed)
    assert error.code == "taken_tile_not_played"
    assert str(error) == "You took C from the board: play it this turn."


def test_a_fifth_take_is_refused(enable: Lexicon) -> None:
    game = game_with(ruleset="reword", words=CAT_COW, racks=("ABDEHLS", "A"))
    takes = tuple(SwapTake(7, 7, letter) for letter in "BDHLS")
    error = refused(game, TakePlay(takes, (PlacedTile(10, 6, "C"),)), enable)
    assert isinstance(error, TooManyTakes)
    assert error.code == "too_many_takes"
    assert str(error) == "You can swap or steal at most 4 tiles in a turn."
    with pytest.raises(TooManyTakes):
        move_from_dict(
            {
                "kind": "take_play",
                "takes": [{"take": "steal", "row": 7, "col": c} for c in range(5)],
                "tiles": [{"row": 0, "col": 0, "letter": "A", "blank": False}],
            }
        )


def test_the_same_square_taken_twice_is_refused(enable: Lexicon) -> None:
    game = game_with(ruleset="reword", words=CAT_COW, racks=("BHIKLMS", "A"))
    takes = (SwapTake(7, 7, "B"), StealTake(7, 7))
    error = refused(game, TakePlay(takes, (PlacedTile(10, 6, "C"),)), enable)
    assert isinstance(error, TakenTwice)
    assert error.code == "taken_twice"


def test_a_take_from_an_empty_square_is_refused(enable: Lexicon) -> None:
    game = game_with(ruleset="reword", words=CAT_COW, racks=("BHIKLMS", "A"))
    error = refused(game, TakePlay((StealTake(0, 0),), (PlacedTile(10, 6, "C"),)), enable)
    assert isinstance(error, NoTileToTake)
    assert error.code == "no_tile_to_take"


def test_a_swap_puts_down_a_tile_of_the_rack_the_turn_began_with(enable: Lexicon) -> None:
    # A tile taken this turn can only be played: swapping the stolen C down again is refused.
    game = game_with(ruleset="reword", words=CAT_COW, racks=("HIKLMS", "A"))
    takes = (StealTake(7, 7), SwapTake(7, 9, "C"))
    error = refused(game, TakePlay(takes, (PlacedTile(10, 6, "T"),)), enable)
    assert isinstance(error, TilesNotOnRack)


def test_a_taken_blank_comes_back_unlettered_and_is_named_again(enable: Lexicon) -> None:
    # BAt: the t a blank. Steal it (BA stays), play it as an N: the board shows n.
    game = game_with(ruleset="reword", words=(("8H", "BAt"),), racks=("EHIKLMS", "A"))
    move = TakePlay((StealTake(7, 9),), (PlacedTile(8, 7, "E"), PlacedTile(9, 7, "N", blank=True)))
    after = game.apply(move, player=0, lexicon=enable)
    turn = after.turns[-1]
    assert turn.taken == ("t",)
    assert after.board.get(9, 7) == "n"
    assert after.board.get(7, 9) is None
    assert turn.words[0].word == "BEN"
    assert turn.words[0].score == 3 + 1 + 0
    # The blank, played as a named letter from the rack, is the taken one: nothing else lost.
    assert after.racks[0].count("?") == turn.drawn.count("?")


def test_a_malformed_take_is_a_malformed_move(enable: Lexicon) -> None:
    game = game_with(ruleset="reword", words=CAT_COW, racks=("HIKLMS", "A"))
    for move in (
        TakePlay((), (PlacedTile(10, 6, "H"),)),
        TakePlay((StealTake(15, 0),), (PlacedTile(10, 6, "H"),)),
        TakePlay(("steal",), (PlacedTile(10, 6, "H"),)),  # type: ignore[arg-type]
        TakePlay((SwapTake(7, 7, "1"),), (PlacedTile(10, 6, "H"),)),
    ):
        assert isinstance(refused(game, move, enable), MalformedMove)


# -- one move: atomic, recorded, round-tripped ---------------------------------------------


#: Four words apart (a board built for the case): a steal from each leaves a word.
FOUR = (("2B", "ATE"), ("4B", "ODE"), ("6B", "TOE"), ("12B", "BOAT"))
FOUR_TAKES = (StealTake(1, 3), StealTake(3, 3), StealTake(5, 1), StealTake(11, 1))
#: BEETS down from F8, its S making OAT into OATS: the four taken tiles and an S.
BEETS = tuple(PlacedTile(7 + i, 5, letter) for i, letter in enumerate("BEETS"))


def test_four_takes_in_one_turn_then_a_play_using_them_all(enable: Lexicon) -> None:
    # ATE -> AT, ODE -> OD, TOE -> OE, BOAT -> OAT; BEETS (3 + 1 + 1 x 3 on the TL of F10
    # + 1 + 1 = 9) and OATS (4) = 13.
    game = game_with(ruleset="reword", words=FOUR, racks=("AILNRSU", "A"))
    after = game.apply(TakePlay(FOUR_TAKES, BEETS), player=0, lexicon=enable)
    turn = after.turns[-1]
    assert turn.taken == ("E", "E", "T", "B")
    assert [(word.word, word.score) for word in turn.words] == [("BEETS", 9), ("OATS", 4)]
    assert not turn.bingo
    assert turn.score == 13
    assert after.racks[0] == tuple(sorted("AILNRU" + "".join(turn.drawn)))
    # The same four takes and a play without the B: the B is named as not played.
    short = TakePlay(FOUR_TAKES, tuple(t for t in BEETS if t.letter != "B"))
    error = refused(game, short, enable)
    assert isinstance(error, TakenTileNotPlayed)
    assert error.tile == "B"


def test_move_and_turn_records_round_trip_through_json(enable: Lexicon) -> None:
    game = game_with(ruleset="reword", words=(("8G", "ADZ"),), racks=("EGIRST", "A"))
    move = TakePlay((StealTake(7, 8),), (PlacedTile(6, 6, "Z"), PlacedTile(8, 6, "G")))
    assert move_from_dict(move.to_dict()) == move
    swap = TakePlay((SwapTake(7, 7, "E", blank=True),), (PlacedTile(6, 6, "D"),))
    assert move_from_dict(swap.to_dict()) == swap
    after = game.apply(move, player=0, lexicon=enable)
    record = after.turns[-1]
    assert TurnRecord.from_json(record.to_json(), board_size=15) == record
    assert record.to_json()["taken"] == "Z"
    assert Game.from_json(after.to_json()) == after
    assert not record.is_scoreless


def test_a_reword_game_replays_and_its_draws_verify(enable: Lexicon) -> None:
    # A real game from a seed: open with a plain play, then a take-play on what it left.
    game = Game.new(ruleset="reword", seed=SEED)
    rack = game.racks[0]
    opening = best_play(legal_plays(game.board, rack, ruleset="reword", lexicon=enable))
    assert opening is not None
    game = game.apply(opening.move, player=0, lexicon=enable)
    found = take_plays(game.board, game.racks[1], ruleset="reword", lexicon=enable)
    assert found, "the second player can take from the opening word"
    game = game.apply(found[0].move, player=1, lexicon=enable)
    assert Counter(game.tiles_in_play()) == Counter(game.ruleset.full_bag)
    again = replay(game.actions, ruleset="reword", seed=SEED, lexicon=enable)
    assert again == game
    draws = replay_draws(SEED, b"", game.actions, ruleset="reword", lexicon=enable)
    assert draws.drawn == tuple(turn.drawn for turn in game.turns)
    assert isinstance(opening.move, Play)


def test_a_round_of_word_skill_refuses_a_take_play() -> None:
    game = rounds_position("CATSXYZ", turn_time_ms=60_000).start(player=0, at_ms=1_000)
    move = TakePlay((StealTake(7, 7),), (PlacedTile(7, 7, "C"),))
    with pytest.raises(TakesOff):
        game.submit(move, player=0, at_ms=1_500, lexicon=None)
