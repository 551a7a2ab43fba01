"""Glicko-2, as Glickman's "Example of the Glicko-2 system" (glicko.net) writes it: pure math.

A :class:`Glicko2` is a rating, a rating deviation (RD) and a volatility on the familiar
(Glicko) scale; :func:`rate` is steps 2-8 of the paper for one player and one rating period;
:func:`idle` is what step 6 does to a player with no games in a period. No Django, no time,
no database: the policy (which period, which τ, the RD ceiling) is :mod:`ratings.policy`'s.

The paper's worked example: a 1500/200/0.06 player who beats a 1400/30 player and loses to
1550/100 and 1700/300 in one period, τ = 0.5, ends at 1464.06 / 151.52 / 0.05999.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The factor between the Glicko scale and the Glicko-2 scale (400 / ln 10), step 2.
SCALE = 173.7178
#: The rating the Glicko-2 scale's zero stands for.
CENTRE = 1500.0
#: Convergence tolerance of the volatility iteration (step 5).
EPSILON = 0.000001


@dataclass(frozen=True)
class Glicko2:
    """A player's rating, rating deviation and volatility, on the Glicko scale."""

    rating: float
    deviation: float
    volatility: float

    @property
    def mu(self) -> float:
        return (self.rating - CENTRE) / SCALE

    @property
    def phi(self) -> float:
        return self.deviation / SCALE

    @classmethod
    def from_scaled(cls, mu: float, phi: float, volatility: float) -> Glicko2:
        return cls(rating=mu * SCALE + CENTRE, deviation=phi * SCALE, volatility=volatility)


@dataclass(frozen=True)
class Outcome:
    """One game of the period: the opponent as they stood before it, and the score
    (1 a win, 0.5 a draw, 0 a loss)."""

    opponent: Glicko2
    score: float

    def __post_init__(self) -> None:
        if self.score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game scores 0, 0.5 or 1, not {self.score!r}")


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the Illinois algorithm on f(x) for x = ln(σ'²)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(player: Glicko2, outcomes: Sequence[Outcome], *, tau: float) -> Glicko2:
    """The player after one rating period with ``outcomes`` (steps 2-8).

    Every opponent is taken as they stood at the start of the period. With no games this
    is :func:`idle` for one period (the deviation grows, the rating and volatility stay).
    """
    if tau <= 0:
        raise ValueError("τ must be positive")
    if not outcomes:
        return idle(player, periods=1.0)
    mu, phi, sigma = player.mu, player.phi, player.volatility
    # Step 3: the estimated variance of the rating from the game outcomes alone.
    weights = [
        (_g(o.opponent.phi), _expected(mu, o.opponent.mu, o.opponent.phi), o.score)
        for o in outcomes
    ]
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in weights)
    # Step 4: the estimated improvement.
    improvement = sum(g * (s - e) for g, e, s in weights)
    delta = v * improvement
    # Steps 5-7.
    new_sigma = _new_volatility(phi, sigma, delta, v, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    # Step 8.
    return Glicko2.from_scaled(new_mu, new_phi, new_sigma)


def idle(player: Glicko2, *, periods: float) -> Glicko2:
    """The player after ``periods`` rating periods without a game (step 6 for each):
    φ² grows by σ² a period; rating and volatility stay. ``periods`` may be fractional."""
    if periods < 0:
        raise ValueError("periods cannot be negative")
    phi = math.sqrt(player.phi**2 + periods * player.volatility**2)
    return Glicko2.from_scaled(player.mu, phi, player.volatility)
