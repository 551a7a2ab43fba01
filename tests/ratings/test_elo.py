"""Word Skill's Elo (ratings/elo.py) against seed 002's numbers, read from its page."""

from __future__ import annotations

import pytest

from ratings import elo
from tests.engine.word_skill_seed import word_skill_seed


def test_start_and_clamp_are_the_seeds() -> None:
    seed = word_skill_seed()
    assert (seed.start, seed.floor, seed.ceiling) == (elo.START, elo.FLOOR, elo.CEILING)
    assert (seed.start, seed.floor, seed.ceiling) == (1200, 800, 2000)


@pytest.mark.parametrize("outcome", ["win", "loss", "tie"])
def test_a_game_against_gramma_ana_moves_the_seeds_points(outcome) -> None:
    change = word_skill_seed().changes[outcome]
    assert change == {"win": 16, "loss": -16, "tie": 0}[outcome]
    for rating in (elo.START, 800 + 16, 1000, 1537, 2000 - 16):
        assert elo.rate_against_gramma_ana(rating, outcome) == rating + change


def test_a_rating_stays_within_the_floor_and_the_ceiling() -> None:
    assert elo.rate_against_gramma_ana(2000, "win") == 2000
    assert elo.rate_against_gramma_ana(1990, "win") == 2000
    assert elo.rate_against_gramma_ana(800, "loss") == 800
    assert elo.rate_against_gramma_ana(810, "loss") == 800
    rating = elo.START
    for _ in range(100):
        rating = elo.rate_against_gramma_ana(rating, "win")
    assert rating == elo.CEILING


def test_against_someone_else_it_is_ordinary_elo() -> None:
    # 400 points apart: the favourite is expected to take 10/11 of the point.
    assert elo.expected_score(1600, 1200) == pytest.approx(10 / 11)
    assert elo.rate(1600, 1200, "win") == 1603  # 32 x 1/11 = 2.9
    assert elo.rate(1200, 1600, "win") == 1229  # 32 x 10/11 = 29.1
    with pytest.raises(ValueError, match="a win, a loss or a tie"):
        elo.rate(1200, 1200, "draw")  # type: ignore[arg-type]
