"""The word-skill ruleset against seed 002's own page: its tile table, bingo and board."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import Game, TableNotAllowed, get_ruleset
from engine.rulesets import RULESETS, STANDARD_LAYOUT, VARIANTS

from .word_skill_seed import word_skill_seed


def test_the_tile_set_is_the_seed_tables() -> None:
    seed = word_skill_seed()
    rules = get_ruleset("word-skill")
    counts = Counter(rules.full_bag)
    assert {tile: (rules.tile_value(tile), counts[tile]) for tile in counts} == seed.tiles
    assert counts["?"] == 4
    assert rules.tile_count == sum(count for _, count in seed.tiles.values())


def test_the_table_and_the_text_disagree_and_the_table_wins() -> None:
    """The page says 100 tiles; its own table adds up to 142 (138 letters and 4 blanks)."""
    seed = word_skill_seed()
    table_total = sum(count for _, count in seed.tiles.values())
    assert seed.stated_total == 100
    assert table_total == 142
    assert get_ruleset("word-skill").tile_count == table_total


def test_bingo_board_and_star() -> None:
    rules = get_ruleset("word-skill")
    assert rules.bingo_bonus == word_skill_seed().bingo == 50
    assert rules.rack_size == rules.bingo_tiles == 7
    # The page names the premium kinds but gives no layout: the standard board, whose
    # centre star doubles the first word as the page's does.
    assert rules.layout == STANDARD_LAYOUT
    assert rules.premium(*rules.centre) == "D"
    assert rules.board_size == 15


def test_it_is_played_in_rounds_only() -> None:
    rules = get_ruleset("word-skill")
    assert rules.shared_tray
    assert "word-skill" in VARIANTS
    assert "word-skill" not in RULESETS  # not offered for matches before the server has rounds
    assert not any(r.shared_tray for r in RULESETS.values())
    for players in (2, 3, 4):
        with pytest.raises(TableNotAllowed):
            Game.new(ruleset="word-skill", players=players)
