"""The faster take search lists exactly what the search before it listed.

``tests/engine/reference_takegen.py`` is the take search as it was (every play of each take's
position generated, then filtered and re-checked through ``reword.evaluate_take_play``). On
seeded positions (a few plain plays into a Reword game, then racks with and without blanks)
``engine.takegen.take_plays`` must give the same moves, as sets of ``LegalMove`` (take
sequence, tiles, score, words, bingo, tiles taken), and the same best move.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import Game, LegalMove, get_ruleset, legal_plays, ranked
from engine.takegen import take_plays
from lexicon.lexicon import Lexicon
from tests.engine import reference_takegen

RULES = get_ruleset("reword")


def seeded_position(seed: int, lexicon: Lexicon, *, rack_size: int) -> Game:
    """A Reword game after two to four of the best plain plays, the player to move holding
    ``rack_size`` tiles of its rack; on odd seeds one of them is a blank (two on seeds that
    are 3 mod 4)."""
    rng = random.Random(seed)
    game = Game.new(ruleset="reword", seed=bytes([seed]) * 32)
    for _ in range(rng.randint(2, 4)):
        rack = game.racks[game.to_move]
        plays = legal_plays(game.board, rack, ruleset=RULES, lexicon=lexicon)
        game = game.apply(ranked(plays)[0].move, player=game.to_move, lexicon=lexicon)
    tiles = [tile for tile in game.racks[game.to_move] if tile != "?"]
    rng.shuffle(tiles)
    blanks = 0 if seed % 2 == 0 else (2 if seed % 4 == 3 else 1)
    rack = tuple(sorted(["?"] * blanks + tiles[: rack_size - blanks]))
    racks = list(game.racks)
    racks[game.to_move] = rack
    return replace(game, racks=(racks[0], racks[1]))


def same_search(game: Game, lexicon: Lexicon, *, max_takes: int) -> tuple[LegalMove, ...]:
    """Both searches' moves, unbounded; asserts they are the same set and the same best."""
    rack = game.racks[game.to_move]
    old = reference_takegen.take_plays(
        game.board, rack, ruleset=RULES, lexicon=lexicon, max_takes=max_takes
    )
    new = take_plays(game.board, rack, ruleset=RULES, lexicon=lexicon, max_takes=max_takes)
    assert len(set(new)) == len(new), "a move listed twice"
    assert set(new) == set(old)
    assert len(new) == len(old)
    assert ranked(new)[0] == ranked(old)[0]
    return new


@pytest.mark.parametrize("seed", range(12))
def test_one_take_moves_are_the_reference_searchs(seed: int, enable: Lexicon) -> None:
    game = seeded_position(seed, enable, rack_size=5)
    assert "?" in game.racks[game.to_move] or seed % 2 == 0
    moves = same_search(game, enable, max_takes=1)
    assert moves, "the position has take-plays to compare"


@pytest.mark.parametrize("seed", [20, 21, 23])
def test_two_take_moves_are_the_reference_searchs(seed: int, enable: Lexicon) -> None:
    game = seeded_position(seed, enable, rack_size=3)
    moves = same_search(game, enable, max_takes=2)
    assert any(len(move.taken) == 2 for move in moves), "two-take moves to compare"


def test_a_full_rack_with_a_blank_gives_the_reference_moves(enable: Lexicon) -> None:
    # A full rack: a steal widens it to eight; the bingo goes by the rack the turn began with.
    game = seeded_position(5, enable, rack_size=7)
    assert "?" in game.racks[game.to_move]
    same_search(game, enable, max_takes=1)
