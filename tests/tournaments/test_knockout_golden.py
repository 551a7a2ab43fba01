"""Golden knockout brackets worked by hand from the rules (tournaments/knockout.py,
RULES.md section 3, "Knockout"). Entrants are ids 101, 102, ... given in seed order.

Eight entrants, bracket of 8, no byes. The usual order top to bottom is
1, 8, 4, 5, 2, 7, 3, 6: round 1 is 1 v 8, 4 v 5, 2 v 7, 3 v 6. If the higher seed always
wins, the semi-finals are 1 v 4 and 2 v 3 and the final 1 v 2.

Five entrants, bracket of 8: seeds 6, 7 and 8 are absent, so seeds 1, 2 and 3 have byes
and the only game of round 1 is 4 v 5 (slot 1). Round 2: 1 v (4 or 5), 2 v 3.

Three entrants, bracket of 4 (order 1, 4, 2, 3): seed 1 has a bye, 2 v 3 plays; the final
is 1 against the winner.
"""

from __future__ import annotations

import pytest

from tournaments.knockout import (
    EnteredTwice,
    Entry,
    NotBestOfOdd,
    RoundUndecided,
    TooFewEntrants,
    draw,
    majority,
    next_round,
    placement,
    seeded_by_rating,
)


def _seeds(ties) -> list[tuple[int | None, int | None]]:
    return [
        (tie.top.seed if tie.top else None, tie.bottom.seed if tie.bottom else None) for tie in ties
    ]


def test_placement_is_the_usual_bracket_order() -> None:
    assert placement(2) == (1, 2)
    assert placement(4) == (1, 4, 2, 3)
    assert placement(8) == (1, 8, 4, 5, 2, 7, 3, 6)
    assert placement(16) == (1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11)


def test_eight_entrants() -> None:
    bracket = draw(list(range(101, 109)))
    assert (bracket.size, bracket.rounds, bracket.byes) == (8, 3, ())
    assert _seeds(bracket.first_round) == [(1, 8), (4, 5), (2, 7), (3, 6)]
    assert bracket.first_round[0].top == Entry(101, 1)
    higher = {tie.slot: tie.higher_seed for tie in bracket.first_round}
    semis = next_round(bracket.first_round, higher)
    assert _seeds(semis) == [(1, 4), (2, 3)]
    final = next_round(semis, {tie.slot: tie.higher_seed for tie in semis})
    assert _seeds(final) == [(1, 2)]


def test_five_entrants() -> None:
    bracket = draw(list(range(101, 106)))
    assert (bracket.size, bracket.rounds) == (8, 3)
    assert _seeds(bracket.first_round) == [(1, None), (4, 5), (2, None), (3, None)]
    assert [entry.seed for entry in bracket.byes] == [1, 2, 3]
    assert [tie.is_bye for tie in bracket.first_round] == [True, False, True, True]
    upset = {0: Entry(101, 1), 1: Entry(105, 5), 2: Entry(102, 2), 3: Entry(103, 3)}
    second = next_round(bracket.first_round, upset)
    assert _seeds(second) == [(1, 5), (2, 3)]
    assert not any(tie.is_bye for tie in second)


def test_three_entrants() -> None:
    bracket = draw([101, 102, 103])
    assert _seeds(bracket.first_round) == [(1, None), (2, 3)]
    final = next_round(bracket.first_round, {0: Entry(101, 1), 1: Entry(103, 3)})
    assert _seeds(final) == [(1, 3)]


def test_seeding_by_rating_keeps_the_given_order_on_equal_ratings() -> None:
    ratings = {1: 1500.0, 2: 1700.0, 3: 1500.0, 4: 1900.0}
    assert seeded_by_rating([1, 2, 3, 4], ratings) == (4, 2, 1, 3)


def test_refusals() -> None:
    with pytest.raises(TooFewEntrants):
        draw([101])
    with pytest.raises(EnteredTwice):
        draw([101, 102, 101])
    with pytest.raises(NotBestOfOdd):
        majority(2)
    bracket = draw([101, 102, 103, 104])
    with pytest.raises(RoundUndecided):
        next_round(bracket.first_round, {0: Entry(101, 1)})
    assert majority(1) == 1
    assert majority(5) == 3
