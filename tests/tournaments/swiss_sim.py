"""A Swiss tournament simulated in memory on the pure pairing (tournaments/swiss.py): the
state each round's pairing sees, and results applied to it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import combinations

from tournaments.swiss import Entrant, Pairing, pair_round

BYE_SPREAD = 50


@dataclass
class Field:
    """The players' standing between rounds, as the pairing reads it."""

    entrants: dict[int, Entrant]
    rounds: int
    played_rounds: int = 0
    history: list[Pairing] = field(default_factory=list)

    @classmethod
    def of(cls, ratings: list[float], rounds: int) -> Field:
        return cls({i + 1: Entrant(id=i + 1, rating=r) for i, r in enumerate(ratings)}, rounds)

    @property
    def rounds_left(self) -> int:
        return self.rounds - self.played_rounds

    def pair(self, *, prize_places: int = 3) -> Pairing:
        pairing = pair_round(
            self.entrants.values(), rounds_left=self.rounds_left, prize_places=prize_places
        )
        self.history.append(pairing)
        return pairing

    def play(self, pairing: Pairing, outcomes: list[tuple[float, int]]) -> None:
        """``outcomes``: per pair, First's points (1, ½, 0) and First's spread."""
        for (first, second), (points, spread) in zip(pairing.pairs, outcomes, strict=True):
            a, b = self.entrants[first], self.entrants[second]
            self.entrants[first] = replace(
                a,
                points=a.points + points,
                spread=a.spread + spread,
                firsts=a.firsts + 1,
                games=a.games + 1,
                opponents=(*a.opponents, second),
            )
            self.entrants[second] = replace(
                b,
                points=b.points + 1 - points,
                spread=b.spread - spread,
                games=b.games + 1,
                opponents=(*b.opponents, first),
            )
        if pairing.bye is not None:
            e = self.entrants[pairing.bye]
            self.entrants[pairing.bye] = replace(
                e, points=e.points + 1, spread=e.spread + BYE_SPREAD, byes=e.byes + 1
            )
        self.played_rounds += 1


def all_pairings(ids: list[int]) -> list[list[tuple[int, int]]]:
    """Every way to pair ``ids`` (an even count) into unordered pairs."""
    if not ids:
        return [[]]
    first, rest = ids[0], ids[1:]
    found = []
    for i, other in enumerate(rest):
        for tail in all_pairings(rest[:i] + rest[i + 1 :]):
            found.append([(first, other), *tail])
    return found


def rematch_count(entrants: dict[int, Entrant], pairs: list[tuple[int, int]]) -> int:
    return sum(entrants[a].opponents.count(b) for a, b in pairs)


def crossing_count(entrants: dict[int, Entrant], pairs: list[tuple[int, int]]) -> int:
    return sum(entrants[a].points != entrants[b].points for a, b in pairs)


__all__ = ["Field", "all_pairings", "combinations", "crossing_count", "rematch_count"]
