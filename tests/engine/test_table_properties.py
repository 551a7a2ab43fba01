"""Random games at tables of 2-4 with random challenges: tiles are conserved, records replay."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import CHALLENGE_RULES, VOID, Challenge, Game, replay, replay_draws
from engine.randomplay import AnagramIndex, random_move
from lexicon.lexicon import Lexicon
from tests.depth import repetitions


class Judge:
    """The lexicon challenges are judged on: ENABLE less about one word in four, so random
    legal plays are sometimes phonies."""

    def __init__(self, words: Lexicon) -> None:
        self.words = words

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word in self.words and hash_of(word) % 4 != 0


def hash_of(word: str) -> int:
    return sum((i + 1) * ord(c) for i, c in enumerate(word))


def assert_conserved(game: Game) -> None:
    assert game.tiles_in_play() == list(game.ruleset.full_bag)
    assert game.bag == tuple(sorted(game.bag))
    assert all(len(rack) <= game.ruleset.rack_size for rack in game.racks)


@settings(
    max_examples=repetitions(full=60, quick=12),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    seed=st.binary(min_size=32, max_size=32),
    ruleset=st.sampled_from(["classic", "classic-nine"]),
    players=st.integers(2, 4),
    rule=st.sampled_from(CHALLENGE_RULES),
    challenge_chance=st.floats(0, 0.6),
)
def test_random_tables_with_challenges_conserve_tiles_and_replay(
    seed: bytes,
    ruleset: str,
    players: int,
    rule: str,
    challenge_chance: float,
    enable: Lexicon,
    anagrams: AnagramIndex,
) -> None:
    rng = random.Random(seed)
    judge = Judge(enable)
    game = Game.new(ruleset=ruleset, seed=seed, players=players, challenge=rule)
    assert_conserved(game)
    for _ in range(80):
        if game.open_play is not None and rng.random() < challenge_chance:
            before = game
            game = game.challenge(by=game.to_move, lexicon=judge)
            judged = [turn for turn in game.turns if not turn.lost_turn][-1]
            assert judged.challenge is not None
            assert judged.challenge.by == before.to_move
            if judged.withdrawn:
                assert game.bag_count == before.bag_count + len(judged.drawn)
                assert game.stream.counter <= before.stream.counter
            assert_conserved(game)
            continue
        if game.is_over:
            break
        move = random_move(game, lexicon=enable, index=anagrams, rng=rng)
        game = game.apply(move, player=game.to_move, lexicon=enable)
        assert_conserved(game)
        assert game.turns[-1].totals == (
            game.scores if not game.adjustments else game.scores_before_adjustments
        )
    if rule == VOID:
        assert game.open_play is None
    event(f"{players} players, {rule}: {game.end_reason}")
    withdrawn = sum(turn.withdrawn for turn in game.turns)
    event(f"withdrawn plays: {min(withdrawn, 3)}{'+' if withdrawn >= 3 else ''}")
    assert Game.from_json(json.loads(json.dumps(game.to_json()))) == game
    lexicon = enable if rule == VOID else judge  # void checks plays; the others judge challenges
    again = replay(
        game.actions,
        ruleset=ruleset,
        seed=seed,
        players=players,
        challenge=game.challenge_rule,
        lexicon=lexicon,
    )
    assert again == game
    draws = replay_draws(
        seed,
        b"",
        game.actions,
        ruleset=ruleset,
        players=players,
        challenge=game.challenge_rule,
        lexicon=lexicon,
    )
    assert draws.drawn == tuple(turn.drawn for turn in game.turns)
    assert sum(isinstance(a, Challenge) for a in game.actions) == sum(
        turn.challenge is not None for turn in game.turns
    )
