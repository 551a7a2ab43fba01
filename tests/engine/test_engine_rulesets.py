"""The rule numbers: tile sets, values, boards."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import RULESETS, UnknownRuleset, get_ruleset
from engine.rulesets import OUTSPELL_VALUES, STANDARD_LETTERS


def test_the_three_rulesets() -> None:
    assert set(RULESETS) == {"word-duel", "classic", "outspell"}
    assert get_ruleset("word-duel") is RULESETS["word-duel"]
    assert get_ruleset(RULESETS["classic"]) is RULESETS["classic"]


@pytest.mark.parametrize("name", ["", "Word-Duel", "scrabble", None, 3])
def test_unknown_ruleset(name: object) -> None:
    with pytest.raises(UnknownRuleset):
        get_ruleset(name)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "numbers"),
    [
        ("word-duel", (101, 3, 40, 15, 15)),
        ("classic", (100, 2, 50, 15, 15)),
        ("outspell", (98, 0, 40, 11, 11)),
    ],
)
def test_numbers(name: str, numbers: tuple[int, int, int, int, int]) -> None:
    tiles, blanks, bingo, size, max_len = numbers
    rules = get_ruleset(name)
    assert rules.tile_count == tiles
    assert rules.full_bag.count("?") == blanks
    assert rules.bingo_bonus == bingo
    assert rules.board_size == size
    assert rules.lexicon_max_len == max_len
    assert rules.lexicon_name == "enable"
    assert rules.rack_size == 7
    assert rules.scoreless_turns_to_end == 6
    letters = [tile for tile in rules.full_bag if tile != "?"]
    assert len(letters) == 98
    assert sum(rules.tile_value(tile) for tile in letters) == 187
    assert rules.tile_value("?") == 0


def test_standard_distribution() -> None:
    counts = Counter(get_ruleset("word-duel").full_bag)
    assert counts["E"] == 12
    assert counts["A"] == counts["I"] == 9
    assert counts["Q"] == counts["Z"] == counts["J"] == counts["X"] == counts["K"] == 1
    assert sum(count for _, count, _ in STANDARD_LETTERS) == 98


def test_outspell_values_are_seed_000s() -> None:
    rules = get_ruleset("outspell")
    assert rules.value_of == OUTSPELL_VALUES
    assert [rules.tile_value(letter) for letter in "AEDGBCMPFHVWYKJXQZ"] == [
        1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5, 8, 8, 10, 10,
    ]  # fmt: skip


def test_rule_differences() -> None:
    duel, classic, outspell = (get_ruleset(n) for n in ("word-duel", "classic", "outspell"))
    assert not duel.swap_whole_rack
    assert outspell.swap_whole_rack
    assert duel.swap_bag_needed(7) == classic.swap_bag_needed(7) == 7
    assert outspell.swap_bag_needed(7) == 7
    assert duel.out_gains_opponent_rack
    assert classic.out_gains_opponent_rack
    assert not outspell.out_gains_opponent_rack
    assert classic.tie_break_before_adjustments
    assert not duel.tie_break_before_adjustments
    assert not outspell.tie_break_before_adjustments


def _squares(layout: tuple[str, ...], kind: str) -> set[str]:
    return {
        f"{chr(ord('A') + c)}{r + 1}"
        for r, row in enumerate(layout)
        for c, char in enumerate(row)
        if char == kind
    }


def test_standard_premium_squares() -> None:
    layout = get_ruleset("word-duel").layout
    assert _squares(layout, "T") == {"A1", "H1", "O1", "A8", "O8", "A15", "H15", "O15"}
    assert _squares(layout, "D") == {
        *("B2", "C3", "D4", "E5", "K5", "L4", "M3", "N2"),
        *("B14", "C13", "D12", "E11", "K11", "L12", "M13", "N14", "H8"),
    }
    assert _squares(layout, "t") == {
        *("F2", "J2", "B6", "F6", "J6", "N6"),
        *("B10", "F10", "J10", "N10", "F14", "J14"),
    }
    assert len(_squares(layout, "d")) == 24
    assert get_ruleset("classic").layout == layout


@pytest.mark.parametrize("name", ["word-duel", "outspell"])
def test_boards_are_symmetric_with_a_double_word_star(name: str) -> None:
    rules = get_ruleset(name)
    layout = rules.layout
    n = rules.board_size
    assert all(len(row) == n for row in layout)
    assert list(layout) == list(reversed(layout))  # top-bottom mirror
    assert all(row == row[::-1] for row in layout)  # left-right mirror
    assert all(layout[r][c] == layout[c][r] for r in range(n) for c in range(n))  # diagonal
    centre_row, centre_col = rules.centre
    assert rules.premium(centre_row, centre_col) == "D"


def test_outspell_board_counts() -> None:
    layout = get_ruleset("outspell").layout
    counts = Counter("".join(layout))
    assert (counts["T"], counts["D"], counts["t"], counts["d"]) == (8, 13, 8, 16)
