"""The choices around Glicko-2 (docs/RATINGS.md says why each): τ, the rating period, the
ceiling on the deviation, when a rating is provisional, what a result scores.

A **game is a rating period** of its own for both players, as on the live sites: each rated
match updates both players at once, from where each stood before it. Between a player's
games their deviation grows as Glicko-2 grows it over empty rating periods, one for each
:data:`IDLE_PERIOD` without a rated game in the ruleset (counted fractionally, to the second),
up to :data:`MAX_DEVIATION`. Everything here is pure: the same log gives the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from matches.pairwise import pairwise
from ratings.glicko2 import Glicko2, Outcome, idle, rate

#: Glicko-2's system constant: how far a surprise may move the volatility (0.3-1.2 in the
#: paper; 0.5 is its example's and lichess's value).
TAU = 0.5
#: Where every member starts in every ruleset (the paper's values for an unrated player).
START = Glicko2(rating=1500.0, deviation=350.0, volatility=0.06)
#: A stretch this long without a rated game counts as one empty rating period.
IDLE_PERIOD = timedelta(days=7)
#: The deviation never grows past a newcomer's.
MAX_DEVIATION = 350.0
#: A rating whose deviation is at least this is provisional (marked "?", not on the
#: leaderboard): its 95% interval is still wider than about ±220 points.
PROVISIONAL_DEVIATION = 110.0

#: What each result scores for the First and the Second seat.
SCORES: dict[str, tuple[float, float]] = {
    "first": (1.0, 0.0),
    "second": (0.0, 1.0),
    "draw": (0.5, 0.5),
}


def is_provisional(deviation: float) -> bool:
    return deviation >= PROVISIONAL_DEVIATION


def idle_periods(since: datetime | None, until: datetime) -> float:
    """Empty rating periods between a player's last rated game and ``until`` (never < 0)."""
    if since is None or until <= since:
        return 0.0
    return (until - since) / IDLE_PERIOD


@dataclass(frozen=True)
class Standing:
    """Where a member stands in a ruleset after their last rated game (or never rated)."""

    value: Glicko2 = START
    games: int = 0
    last_played_at: datetime | None = None

    def at(self, when: datetime) -> Glicko2:
        """The rating as it stands at ``when``: the deviation grown over the idle periods."""
        grown = idle(self.value, periods=idle_periods(self.last_played_at, when))
        if grown.deviation <= MAX_DEVIATION:
            return grown
        return Glicko2(self.value.rating, MAX_DEVIATION, self.value.volatility)


@dataclass(frozen=True)
class GameUpdate:
    """One player's side of a rated game: where they stood going in, and after."""

    before: Glicko2
    after: Standing
    #: The game's score: a duel's 1, ½ or 0; at a table the pairwise results summed (one
    #: for each player placed below, a half for each tie).
    score: float


def rate_table(
    standings: Mapping[int, Standing], places: Mapping[int, int], *, at: datetime
) -> dict[int, GameUpdate]:
    """Every player of one game after it, by member id: one rating period each, rated on
    the pairwise results between them (the better place wins, the same place is a draw),
    each opponent as they stood going in. A duel is the one pair."""
    going_in = {player: standings[player].at(at) for player in places}
    outcomes: dict[int, list[Outcome]] = {player: [] for player in places}
    for pair in pairwise(places):
        outcomes[pair.better].append(Outcome(going_in[pair.worse], pair.score))
        outcomes[pair.worse].append(Outcome(going_in[pair.better], 1.0 - pair.score))
    updates = {}
    for player, games in outcomes.items():
        after = rate(going_in[player], games, tau=TAU)
        standing = standings[player]
        updates[player] = GameUpdate(
            before=going_in[player],
            after=Standing(value=after, games=standing.games + 1, last_played_at=at),
            score=sum(outcome.score for outcome in games),
        )
    return updates


def rate_game(
    first: Standing, second: Standing, *, result: str, at: datetime
) -> tuple[GameUpdate, GameUpdate]:
    """A duel's two players after it ended in ``result`` (First's and Second's): the
    table of two (:func:`rate_table`)."""
    first_score, _ = SCORES[result]
    places = {0: 1 if first_score >= 0.5 else 2, 1: 1 if first_score <= 0.5 else 2}
    updates = rate_table({0: first, 1: second}, places, at=at)
    return updates[0], updates[1]
