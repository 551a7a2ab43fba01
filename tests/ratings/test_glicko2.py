"""Glicko-2 against Glickman's worked example, and the rating periods with no games."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from ratings.glicko2 import SCALE, Glicko2, Outcome, idle, rate
from ratings.policy import (
    IDLE_PERIOD,
    MAX_DEVIATION,
    START,
    TAU,
    Standing,
    is_provisional,
    rate_game,
)

# "Example of the Glicko-2 system" (Glickman): the player and the three opponents.
PLAYER = Glicko2(rating=1500, deviation=200, volatility=0.06)
OPPONENTS = [
    Outcome(Glicko2(1400, 30, 0.06), 1.0),
    Outcome(Glicko2(1550, 100, 0.06), 0.0),
    Outcome(Glicko2(1700, 300, 0.06), 0.0),
]
T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)


def test_the_papers_worked_example() -> None:
    after = rate(PLAYER, OPPONENTS, tau=0.5)
    # The paper's figures, to the places it prints them: μ' = -0.2069, φ' = 0.8722,
    # σ' = 0.05999 (0.059996), so r' = 1464.06 and RD' = 151.52. (The paper converts the
    # rounded μ'; from the unrounded one r' is 1464.0507, within its last place.)
    assert round(after.mu, 4) == -0.2069
    assert round(after.phi, 4) == 0.8722
    # σ' to the paper's five places, which it cuts rather than rounds (exp(A/2) with its
    # final A is 0.0599960): the update moves σ by 4e-6, so a tolerance of 1e-5 around
    # 0.05999 also passed σ' = 0.06, the volatility not updated at all.
    assert math.floor(after.volatility * 1e5) / 1e5 == 0.05999
    assert round(after.volatility, 6) == 0.059996
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(after.deviation, 2) == 151.52


def test_the_scale_is_the_papers() -> None:
    assert PLAYER.mu == 0
    assert PLAYER.phi == pytest.approx(1.1513, abs=1e-4)
    assert OPPONENTS[0].opponent.mu == pytest.approx(-0.5756, abs=1e-4)
    assert OPPONENTS[2].opponent.phi == pytest.approx(1.7269, abs=1e-4)
    assert SCALE == 173.7178


def test_a_period_with_no_games_grows_the_deviation_only() -> None:
    after = rate(PLAYER, [], tau=0.5)
    expected_phi = math.sqrt(PLAYER.phi**2 + PLAYER.volatility**2)
    assert after.deviation == pytest.approx(expected_phi * SCALE)
    assert after.deviation > PLAYER.deviation
    assert after.rating == PLAYER.rating
    assert after.volatility == PLAYER.volatility
    assert idle(PLAYER, periods=1) == after


def test_empty_periods_keep_growing_the_deviation() -> None:
    deviations = [idle(PLAYER, periods=n).deviation for n in range(6)]
    assert deviations[0] == PLAYER.deviation
    assert deviations == sorted(deviations)
    assert len(set(deviations)) == 6
    # Twice one empty period is two: φ² grows by σ² a period.
    assert idle(idle(PLAYER, periods=1), periods=1).deviation == pytest.approx(
        idle(PLAYER, periods=2).deviation
    )


def test_a_win_raises_a_loss_lowers_and_a_draw_between_equals_leaves_the_rating() -> None:
    one, other = Glicko2(1500, 100, 0.06), Glicko2(1500, 100, 0.06)
    assert rate(one, [Outcome(other, 1.0)], tau=TAU).rating > 1500
    assert rate(one, [Outcome(other, 0.0)], tau=TAU).rating < 1500
    drawn = rate(one, [Outcome(other, 0.5)], tau=TAU)
    assert drawn.rating == pytest.approx(1500)
    assert drawn.deviation < 100


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match=r"0, 0\.5 or 1"):
        Outcome(PLAYER, 2.0)
    with pytest.raises(ValueError, match="τ"):
        rate(PLAYER, OPPONENTS, tau=0)
    with pytest.raises(ValueError, match="negative"):
        idle(PLAYER, periods=-1)


def test_idle_time_grows_the_deviation_a_period_a_week_up_to_the_ceiling() -> None:
    standing = Standing(value=Glicko2(1620, 80, 0.06), games=20, last_played_at=T0)
    assert standing.at(T0).deviation == 80
    a_week = standing.at(T0 + IDLE_PERIOD).deviation
    assert a_week == pytest.approx(idle(standing.value, periods=1).deviation)
    half = standing.at(T0 + IDLE_PERIOD / 2).deviation
    assert 80 < half < a_week
    assert standing.at(T0 + timedelta(days=365 * 50)).deviation == MAX_DEVIATION
    assert standing.at(T0 - timedelta(days=1)).deviation == 80  # never shrinks
    assert not is_provisional(80)
    assert is_provisional(standing.at(T0 + timedelta(days=365 * 3)).deviation)


def test_a_game_rates_both_players_from_where_each_stood() -> None:
    first, second = Standing(), Standing(Glicko2(1700, 60, 0.06), 30, T0)
    at = T0 + timedelta(days=14)
    up, down = rate_game(first, second, result="first", at=at)
    assert up.before == START
    assert down.before == second.at(at)
    assert up.after.value == rate(START, [Outcome(second.at(at), 1.0)], tau=TAU)
    assert down.after.value == rate(second.at(at), [Outcome(START, 0.0)], tau=TAU)
    assert (up.score, down.score) == (1.0, 0.0)
    assert (up.after.games, down.after.games) == (1, 31)
    assert up.after.last_played_at == down.after.last_played_at == at
    # The newcomer moves a lot, the settled player a little.
    assert up.after.value.rating - 1500 > 5 * (1700 - down.after.value.rating)
