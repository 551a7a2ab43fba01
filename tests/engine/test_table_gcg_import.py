"""GCG import at a table: a record of 2-4 seats with ``--`` and ``(challenge)`` lines is
rebuilt into a Game through ``Game.apply`` and ``Game.challenge``; export then import gives
the same game back."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import (
    DOUBLE,
    FIVE_POINT,
    SINGLE,
    SIX_SCORELESS,
    TEN_POINT,
    VOID,
    Game,
    GcgError,
    Play,
    Swap,
    export_gcg,
    game_from_gcg,
    parse_gcg,
    verify_record,
)
from engine.gcg import GcgPlayer, record_seats
from engine.randomplay import AnagramIndex, random_move
from lexicon.lexicon import Lexicon
from tests.depth import repetitions
from tests.engine.test_table_properties import Judge

GOLDEN = Path(__file__).parent / "data" / "table3_challenges.gcg"


def story(game: Game) -> dict[str, Any]:
    """Everything a record tells of a game: not the seed, the draw order or the draw for
    first (GCG has none of them)."""
    turns = []
    for turn in game.turns:
        move: object = turn.move
        if isinstance(move, Play):
            move = sorted(move.tiles, key=repr)
        elif isinstance(move, Swap):
            move = sorted(move.tiles)
        turns.append(
            (
                turn.player,
                turn.kind,
                move,
                turn.rack_before,
                sorted(turn.words, key=repr),
                turn.bingo,
                turn.score,
                turn.totals,
                None if turn.withdrawn else sorted(turn.drawn),
                turn.challenge,
                turn.lost_turn,
            )
        )
    return {
        "ruleset": game.ruleset.name,
        "board": game.board,
        "racks": game.racks,
        "bag": game.bag,
        "scores": game.scores,
        "to_move": game.to_move,
        "first": game.first,
        "scoreless_streak": game.scoreless_streak,
        "end_reason": game.end_reason,
        "result": game.result,
        "adjustments": game.adjustments,
        "challenge_rule": game.challenge_rule,
        "open": game.open_play is not None,
        "lost_turns": game.lost_turns,
        "turns": turns,
    }


def test_the_hand_written_table_of_three(enable: Lexicon) -> None:
    record = parse_gcg(GOLDEN.read_bytes())
    assert record.players == (
        GcgPlayer("ann", "Ann Archer"),
        GcgPlayer("ben", "Ben Brook"),
        GcgPlayer("cat", "Cat Cole"),
    )
    assert record_seats(record) == ("ann", "ben", "cat")
    assert verify_record(record, ruleset="classic", lexicon=enable) == (3, [])
    game = game_from_gcg(record, ruleset="classic", lexicon=enable)
    assert game.players == 3
    assert game.challenge_rule == FIVE_POINT  # what its (challenge) +5 line shows
    phony, good = game.turns[1], game.turns[2]
    assert phony.withdrawn
    assert phony.challenge is not None
    assert (phony.player, phony.challenge.phonies, phony.challenge.points) == (1, ("UAK",), -7)
    assert good.challenge is not None
    assert (good.player, good.challenge.phonies, good.challenge.points) == (2, (), 5)
    assert good.challenge.by == 0  # GCG does not say who challenged: the next seat
    assert [turn.kind for turn in game.turns[3:]] == ["swap"] + ["pass"] * 8
    assert game.end_reason == SIX_SCORELESS
    assert game.scores == (14, -20, 1)
    assert game.result == 0
    assert [(a.player, a.points) for a in game.adjustments] == [(0, -6), (1, -20), (2, -7)]
    assert game.tiles_in_play() == list(game.ruleset.full_bag)
    # Written out again, it reads back as the same game.
    again = parse_gcg(export_gcg(game, player_names=("ann", "ben", "cat")))
    assert story(game_from_gcg(again, ruleset="classic", lexicon=enable)) == story(game)


def test_without_a_lexicon_the_record_is_taken_at_its_word() -> None:
    game = game_from_gcg(parse_gcg(GOLDEN.read_bytes()), ruleset="classic", lexicon=None)
    phony = game.turns[1].challenge
    assert phony is not None
    assert phony.phonies == ("UAK",)
    assert game.scores == (14, -20, 1)


def test_a_lexicon_that_holds_the_phony_refuses_the_record(enable: Lexicon) -> None:
    text = GOLDEN.read_text()
    lenient = {*enable, "UAK"}
    with pytest.raises(GcgError, match="withdraws a play the lexicon holds") as error:
        game_from_gcg(parse_gcg(text), ruleset="classic", lexicon=lenient)
    assert error.value.line == text.splitlines().index(">ben: EIKQSTU -- -7 0") + 1


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (">ann: ADEHRTW 8H WHAT +20 20", ">ann: ADEHRTW 8H WHAT +22 22", "scores 20"),
        (">ann: ADEHRTW 8H WHAT +20 20", ">ann: AHTW 8H WHAT +20 20", "shows 4 tiles"),
        (
            ">ben: EIKQSTU - +0 0\n>cat: AEILRTT - +0 8\n>ann",
            ">ben: - +0 0\n>cat: AEILRTT - +0 8\n>ann",
            "not shown",
        ),
        (">cat: AEILRTT (AEILRTT) -7 1", ">cat: AEILRTT (AEILRTT) -7 2", r"game's \(cat -7 1\)"),
        (">ann: DEILNOR -DL +0 20", ">ann: DEILNOR -DL +0 20\n>dan: A - +0 0", "not a #player"),
        (">ben: EIKQSTU - +0 0\n>cat: AEILRTT - +0 8\n>ann", ">cat: AEILRTT - +0 8\n>ann", "turn"),
    ],
)
def test_a_record_the_game_disagrees_with_is_refused(old: str, new: str, message: str) -> None:
    text = GOLDEN.read_text()
    assert old in text
    with pytest.raises(GcgError, match=message) as error:
        game_from_gcg(parse_gcg(text.replace(old, new, 1)), ruleset="classic", lexicon=None)
    assert error.value.line is not None


def test_a_bonus_other_than_the_rules_is_refused() -> None:
    record = parse_gcg(GOLDEN.read_bytes())
    with pytest.raises(GcgError, match="moved 10 points, not 5") as error:
        game_from_gcg(record, ruleset="classic", lexicon=None, challenge=TEN_POINT)
    assert (
        error.value.line
        == GOLDEN.read_text().splitlines().index(">cat: AEILOTT (challenge) +5 8") + 1
    )


def test_a_record_with_hidden_racks_cannot_be_rebuilt(enable: Lexicon) -> None:
    """A spectator's copy, or a real record that shows only its keeper's racks."""
    game = game_from_gcg(parse_gcg(GOLDEN.read_bytes()), ruleset="classic", lexicon=enable)
    mine = export_gcg(game, player_names=("ann", "ben", "cat"), visible_racks=frozenset({0}))
    with pytest.raises(GcgError, match="ben's first rack is not shown") as error:
        game_from_gcg(parse_gcg(mine), ruleset="classic", lexicon=enable)
    lines = mine.splitlines()
    assert error.value.line == next(n for n, line in enumerate(lines, 1) if line.startswith(">ben"))


def test_a_fourth_player_and_the_seat_count() -> None:
    record = parse_gcg("#player1 a A\n#player2 b B\n#player4 d D\n>a: ABCDEFG - +0 0\n")
    assert record.players == (GcgPlayer("a", "A"), GcgPlayer("b", "B"), None, GcgPlayer("d", "D"))
    assert record.racks == (None, None, None, None)
    with pytest.raises(GcgError, match="#player3 is missing"):
        game_from_gcg(record, ruleset="classic", lexicon=None)
    two = parse_gcg("#player1 a A\n#rack1 ABC\n>a: ABCDEFG - +0 0\n")
    assert len(two.players) == 2
    assert two.racks == ("ABC", None)


def _challenge_worth_writing(game: Game, judge: Judge) -> bool:
    """A challenge whose outcome a record shows: a phony (``--``), or a good play under a
    rule with a bonus line. (A good play challenged under single or double leaves no line.)"""
    words = game.turns[-1].words
    return game.challenge_rule in (FIVE_POINT, TEN_POINT) or any(
        word.word not in judge for word in words
    )


@settings(
    max_examples=repetitions(full=60, quick=12),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    seed=st.binary(min_size=32, max_size=32),
    players=st.integers(2, 4),
    rule=st.sampled_from([VOID, SINGLE, DOUBLE, FIVE_POINT, TEN_POINT]),
    challenge_chance=st.floats(0, 0.7),
    stop_after=st.integers(4, 400),
)
def test_export_then_import_gives_the_same_game(
    seed: bytes,
    players: int,
    rule: str,
    challenge_chance: float,
    stop_after: int,
    enable: Lexicon,
    anagrams: AnagramIndex,
) -> None:
    rng = random.Random(seed)
    judge = Judge(enable)
    game = Game.new(ruleset="classic", seed=seed, players=players, challenge=rule)
    for _ in range(stop_after):
        chance = game.open_play is not None and rng.random() < challenge_chance
        if chance and _challenge_worth_writing(game, judge):
            game = game.challenge(by=game.to_move, lexicon=judge)
            continue
        if game.is_over:
            break
        move = random_move(game, lexicon=enable, index=anagrams, rng=rng)
        game = game.apply(move, player=game.to_move, lexicon=enable)
    names = tuple(f"Seat {seat + 1}" for seat in range(players))
    # A record that stops early names the racks left (#rackN), as GCG does.
    left = (
        ()
        if game.is_over
        else tuple((f"rack{seat + 1}", "".join(rack)) for seat, rack in enumerate(game.racks))
    )
    text = export_gcg(game, player_names=names, pragmas=left)
    lexicon = enable if rule == VOID else judge
    # The rule is not written in GCG (only what its challenges did): the importer is told it.
    imported = game_from_gcg(
        parse_gcg(text), ruleset="classic", lexicon=lexicon, challenge=game.challenge_rule
    )
    event(f"{players} players, {rule}: {game.end_reason}")
    event(f"challenged: {min(sum(t.challenge is not None for t in game.turns), 3)}")
    assert story(imported) == story(game)
    assert imported.tiles_in_play() == list(imported.ruleset.full_bag)
