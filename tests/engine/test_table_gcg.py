"""GCG records of a table: a #player line per seat, ``--`` for a withdrawn phony and the
``(challenge)`` bonus line, read back and re-scored."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from engine import FIVE_POINT, Game, Pass, PlacedTile, Play, export_gcg, parse_gcg, verify_record
from engine.gcg import CHALLENGE_BONUS, PASS, PLAY, WITHDRAWN
from engine.randomplay import AnagramIndex, find_play
from lexicon.lexicon import Lexicon
from tests.engine.helpers import SEED


def _phony(game: Game, lexicon: Lexicon) -> Play:
    rack = [tile for tile in game.racks[game.to_move] if tile != "?"]
    first, second = next((a, b) for a, b in combinations(rack, 2) if a + b not in lexicon)
    return Play((PlacedTile(7, 7, first), PlacedTile(7, 8, second)))


def _challenged_table(rule: str, enable: Lexicon, anagrams: AnagramIndex) -> Game:
    """Three seats: a phony withdrawn, a good play challenged, then a few plays."""
    game = Game.new(ruleset="classic", seed=SEED, salt=b"gcg", players=3, challenge=rule)
    game = game.apply(_phony(game, enable), player=game.to_move, lexicon=enable)
    game = game.challenge(by=game.to_move, lexicon=enable)
    rng = random.Random(3)
    move = find_play(game, lexicon=enable, index=anagrams, rng=rng)
    assert move is not None
    game = game.apply(move, player=game.to_move, lexicon=enable)
    game = game.challenge(by=game.to_move, lexicon=enable)
    for _ in range(4):
        move = find_play(game, lexicon=enable, index=anagrams, rng=rng) or Pass()
        game = game.apply(move, player=game.to_move, lexicon=enable)
    return game


def test_a_table_with_challenges_is_written_read_back_and_verifies(
    enable: Lexicon, anagrams: AnagramIndex
) -> None:
    game = _challenged_table(FIVE_POINT, enable, anagrams)
    text = export_gcg(game, player_names=("Ann", "Ben", "Cat"))
    record = parse_gcg(text)
    assert [record.pragma(f"player{n}") for n in (1, 2, 3)] == ["Ann Ann", "Ben Ben", "Cat Cat"]
    kinds = [event.kind for event in record.events]
    assert kinds[:4] == [PLAY, WITHDRAWN, PLAY, CHALLENGE_BONUS]
    phony, withdrawn, good, bonus = record.events[:4]
    assert (withdrawn.nick, withdrawn.score, withdrawn.total) == (phony.nick, -phony.score, 0)
    assert (bonus.nick, bonus.score, bonus.total) == (good.nick, 5, good.total + 5)
    assert text.count("\n>") == len(game.turns) + 2
    plays, mismatches = verify_record(record, ruleset="classic", lexicon=enable)
    assert mismatches == []
    assert plays == sum(turn.kind == "play" for turn in game.turns)
    last_total = {event.nick: event.total for event in record.events}
    assert [last_total[nick] for nick in ("Ann", "Ben", "Cat")] == list(game.scores)


def test_a_lost_turn_is_a_pass(enable: Lexicon, anagrams: AnagramIndex) -> None:
    game = Game.new(ruleset="classic", seed=SEED, challenge="double")
    move = find_play(game, lexicon=enable, index=anagrams, rng=random.Random(1))
    assert move is not None
    game = game.apply(move, player=0, lexicon=enable).challenge(by=1, lexicon=enable)
    record = parse_gcg(export_gcg(game, player_names=("Ann", "Ben")))
    assert [(e.nick, e.kind) for e in record.events] == [("Ann", PLAY), ("Ben", PASS)]


def test_every_seat_needs_a_name() -> None:
    game = Game.new(ruleset="classic", seed=SEED, players=4)
    with pytest.raises(ValueError, match="every seat"):
        export_gcg(game, player_names=("Ann", "Ben"))
    text = export_gcg(game, player_names=("Ann", "ann", "", "ANN"))
    assert [parse_gcg(text).pragma(f"player{n}") for n in (1, 2, 3, 4)] == [
        "Ann Ann",
        "ann_2 ann",
        "player3 player3",
        "ANN_3 ANN",
    ]
