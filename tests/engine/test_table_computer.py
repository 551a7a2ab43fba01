"""The computer at a table of 3-4: its position (its own rack, every seat's score and rack
count, the unseen tiles), its moves, and whether it challenges the last play."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import SINGLE, Game, PlacedTile, Play
from engine.computer import (
    EASY,
    GREEDY,
    HARD,
    NORMAL,
    NORMAL_SURE_LENGTH,
    ChallengeDecision,
    SeatPosition,
    choose_move,
    decide_challenge,
)
from engine.randomplay import AnagramIndex, find_play, random_move
from engine.selfplay import Seat, play_game, seat_position
from lexicon.lexicon import Lexicon
from tests.depth import repetitions
from tests.engine.helpers import SEED

#: Not in ENABLE: a short phony (sure for Normal) and a long one (Normal is not sure).
SHORT_PHONY = "UAK"
LONG_PHONY = "QUARTZED"


def test_the_lexicon_is_as_the_tests_assume(enable: Lexicon) -> None:
    assert SHORT_PHONY not in enable
    assert LONG_PHONY not in enable
    assert len(SHORT_PHONY) <= NORMAL_SURE_LENGTH < len(LONG_PHONY)
    assert {"OAT", "QUARTZ"} <= set(enable)


@pytest.mark.parametrize("players", [3, 4])
def test_a_tables_position_holds_every_seats_score_and_rack_count(players: int) -> None:
    game = Game.new(ruleset="classic", seed=SEED, players=players)
    position = seat_position(game)
    seat = game.to_move
    assert position.players == players
    assert position.seat == seat
    assert position.rack == game.racks[seat]
    assert position.scores == game.scores
    assert position.rack_counts == (7,) * players
    assert position.opponent_rack_count == 7 * (players - 1)
    assert len(position.unseen) == game.bag_count + 7 * (players - 1)


def test_a_tables_position_does_not_see_the_other_racks() -> None:
    """Two tables alike but for which unseen tiles another seat holds: the same position."""
    game = Game.new(ruleset="classic", seed=SEED, players=3)
    other = game.next_seat(game.to_move)
    theirs, bag = list(game.racks[other]), list(game.bag)
    swapped_in = next(tile for tile in bag if tile not in theirs)
    theirs[0], bag[bag.index(swapped_in)] = swapped_in, theirs[0]
    racks = tuple(tuple(sorted(theirs)) if s == other else r for s, r in enumerate(game.racks))
    changed = replace(game, racks=racks, bag=tuple(sorted(bag)))
    assert changed.racks[other] != game.racks[other]
    assert changed.tiles_in_play() == game.tiles_in_play()
    assert seat_position(changed) == seat_position(game)


def _build(**changes: object) -> SeatPosition:
    game = Game.new(ruleset="classic", seed=SEED, players=3)
    options: dict[str, object] = {
        "ruleset": "classic",
        "board_rows": game.board.rows(),
        "seat": game.to_move,
        "rack": game.racks[game.to_move],
        "scores": (0, 0, 0),
        "bag_count": game.bag_count,
        "rack_counts": (7, 7, 7),
        "scoreless_streak": 0,
    }
    options.update(changes)
    return SeatPosition.build(**options)  # type: ignore[arg-type]


def test_a_tables_position_that_does_not_add_up_is_refused() -> None:
    assert _build().players == 3
    with pytest.raises(ValueError, match="every seat's rack count"):
        _build(rack_counts=None, opponent_rack_count=14)
    with pytest.raises(ValueError, match="does not seat 3"):
        _build(ruleset="word-duel")
    seat = _build().seat
    with pytest.raises(ValueError, match="unseen"):
        _build(rack_counts=tuple(6 if s == (seat + 1) % 3 else 7 for s in range(3)))
    with pytest.raises(ValueError, match="this seat's"):
        _build(rack_counts=tuple(6 if s == seat else 7 for s in range(3)))
    with pytest.raises(ValueError, match="this seat's"):
        _build(rack_counts=(7, 7, 7, 7))
    with pytest.raises(ValueError, match="disagrees"):
        _build(opponent_rack_count=7)
    with pytest.raises(ValueError, match="not one of the 3 seats"):
        _build(seat=3)
    assert _build(opponent_rack_count=14).opponent_rack_count == 14


def test_a_sure_win_at_a_table_beats_every_other_seat() -> None:
    """Ending the game now on scoreless turns, it is sure only when ahead of each seat."""
    position = _build(scores=(100, 100, 100), scoreless_streak=8)
    assert position.scoreless_move_ends_game  # nine scoreless turns end a table of three
    assert not _build(scoreless_streak=7).scoreless_move_ends_game
    seat = position.seat
    ahead = tuple(300 if s == seat else 10 for s in range(3))
    assert replace(position, scores=ahead).wins_if_game_ends_now()
    behind_one = tuple(300 if s == seat else (10 if s == (seat + 1) % 3 else 400) for s in range(3))
    assert not replace(position, scores=behind_one).wins_if_game_ends_now()


@pytest.mark.parametrize("players", [3, 4])
def test_the_computer_plays_whole_games_at_a_table(players: int, enable: Lexicon) -> None:
    moves: list[tuple[int, str]] = []
    game = play_game(
        ruleset="classic",
        seed=SEED,
        seats=tuple(Seat.of(level) for level in ("easy", "normal", "hard", "normal")[:players]),
        lexicon=enable,
        rng_seed=7,
        on_move=lambda game, position, choice: moves.append((position.seat, choice.reason)),
    )
    assert game.is_over
    assert game.players == players
    assert [seat for seat, _ in moves] == [turn.player for turn in game.turns]
    assert game.tiles_in_play() == list(game.ruleset.full_bag)
    assert any(turn.kind == "play" for turn in game.turns if turn.player == players - 1)


def test_a_duel_self_play_game_is_as_before(enable: Lexicon) -> None:
    """Two seats draw their chance as they always did: the same seeds, the same game."""
    seats = (Seat.of("normal"), Seat.of("normal"))
    one = play_game(ruleset="classic", seed=SEED, seats=seats, lexicon=enable, rng_seed=3)
    game = Game.new(ruleset="classic", seed=SEED)
    rngs = (random.Random(6), random.Random(7))
    while not game.is_over:
        seat = game.to_move
        choice = choose_move(seat_position(game), lexicon=enable, level=NORMAL, rng=rngs[seat])
        game = game.apply(choice.move.move, player=seat, lexicon=enable)
    assert one == game


# -- challenges --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "words", "expected"),
    [
        (EASY, ["OAT"], ChallengeDecision(challenge=False, reason="never")),
        (EASY, [SHORT_PHONY], ChallengeDecision(challenge=False, reason="never")),
        (EASY, [LONG_PHONY], ChallengeDecision(challenge=False, reason="never")),
        (GREEDY, [SHORT_PHONY], ChallengeDecision(challenge=False, reason="never")),
        (NORMAL, ["OAT", "QUARTZ"], ChallengeDecision(challenge=False, reason="no_phony")),
        (NORMAL, ["OAT", SHORT_PHONY], ChallengeDecision(True, "phony", (SHORT_PHONY,))),
        (NORMAL, [LONG_PHONY], ChallengeDecision(challenge=False, reason="unsure")),
        (NORMAL, [LONG_PHONY, SHORT_PHONY], ChallengeDecision(True, "phony", (SHORT_PHONY,))),
        (HARD, ["OAT", "QUARTZ"], ChallengeDecision(challenge=False, reason="no_phony")),
        (HARD, [SHORT_PHONY], ChallengeDecision(True, "phony", (SHORT_PHONY,))),
        (HARD, [LONG_PHONY, "OAT"], ChallengeDecision(True, "phony", (LONG_PHONY,))),
    ],
)
def test_each_level_on_phony_and_good_plays(
    level: object, words: list[str], expected: ChallengeDecision, enable: Lexicon
) -> None:
    assert decide_challenge(words, lexicon=enable, level=level) == expected  # type: ignore[arg-type]


def test_levels_by_name_and_a_game_at_a_table(enable: Lexicon, anagrams: AnagramIndex) -> None:
    """At a table of three under the single rule, a phony is played; Hard and Normal
    challenge it (the game withdraws it), Easy lets it stand; a good play, none challenges."""
    game = Game.new(ruleset="classic", seed=SEED, players=3, challenge=SINGLE)
    rack = [tile for tile in game.racks[game.to_move] if tile != "?"]
    first, second = next((a, b) for a, b in combinations(rack, 2) if a + b not in enable)
    phony = Play((PlacedTile(7, 7, first), PlacedTile(7, 8, second)))
    played = game.apply(phony, player=game.to_move, lexicon=enable)
    words = [word.word for word in played.turns[-1].words]
    assert words == [first + second]
    levels = ("easy", "normal", "hard")
    decisions = [decide_challenge(words, lexicon=enable, level=name) for name in levels]
    assert [decision.challenge for decision in decisions] == [False, True, True]
    judged = played.challenge(by=played.to_move, lexicon=enable)
    assert judged.turns[-1].withdrawn
    good = find_play(judged, lexicon=enable, index=anagrams, rng=random.Random(2))
    assert good is not None
    played = judged.apply(good, player=judged.to_move, lexicon=enable)
    words = [word.word for word in played.turns[-1].words]
    assert not any(decide_challenge(words, lexicon=enable, level=n).challenge for n in levels)


@settings(
    max_examples=repetitions(full=40, quick=10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    seed=st.binary(min_size=32, max_size=32), players=st.integers(2, 4), turns=st.integers(1, 30)
)
def test_hard_never_challenges_a_good_play(
    seed: bytes, players: int, turns: int, enable: Lexicon, anagrams: AnagramIndex
) -> None:
    """Every play the lexicon allows, at any table: Hard (and so every level) lets it stand."""
    rng = random.Random(seed)
    game = Game.new(ruleset="classic", seed=seed, players=players, challenge=SINGLE)
    for _ in range(turns):
        if game.is_over:
            break
        move = random_move(game, lexicon=enable, index=anagrams, rng=rng)
        game = game.apply(move, player=game.to_move, lexicon=enable)
        if isinstance(move, Play):
            words = [word.word for word in game.turns[-1].words]
            assert all(word in enable for word in words)
            for level in (EASY, NORMAL, HARD):
                assert not decide_challenge(words, lexicon=enable, level=level).challenge
