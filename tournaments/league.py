"""A league's seasons of divisions: pure (no Django), so it is tested over random leagues.

docs/RULES.md section 3 ("Leagues") is this module in words. A season is its divisions in
order, the top first (division 1); each division is a round robin whose players are given
here as member ids, and each division's *final standings* are its players in the order of
the tournament table (:mod:`tournaments.standings`: its tie-breaks decide every tie, so
none is left here).

1. **The first season** (:func:`first_season`): the entrants, in the order given (the
   service passes them as the organiser listed them, or by rating), cut into divisions.
2. **Cutting into divisions** (:func:`cut`): the ladder (everyone in order, best first) is
   cut into divisions of the league's size from the top; the bottom division takes the
   rest: from 2 to ``size`` players, or ``size + 1`` when exactly one would be left over
   (no division of one).
3. **Zones** (:func:`zones`): with N the league's *movers*, the top N of each division but
   the top are promoted and the bottom N of each division but the bottom are relegated
   (a bottom division smaller than N promotes all of its players). ``2 * N <= size``, so
   a division's two zones never overlap.
4. **The next season** (:func:`next_season`): the ladder is built division by division,
   each new division's group being, in this order, those relegated into it from the
   division above, the players of that division who stayed (in their finishing order),
   and those promoted into it from the division below; leavers are then taken out, and
   the new entrants are added at the ladder's foot (the bottom division, or new divisions
   below it when they are many; the service orders them by rating). The ladder is then cut
   as in 2, so every division is *filled to size*: a place left empty above (by a leaver,
   or by a bottom division smaller than N) is taken by the next player down the ladder,
   which is first a player relegated from that division (a reprieve, best-placed first),
   then the best-placed stayer of the division below (an extra promotion).

So, with no leavers, a promoted player goes up exactly one division and a stayer stays;
a relegated player goes down exactly one unless the bottom division had fewer than N
players (then some are reprieved). Nobody is ever placed lower than the rule puts them,
with one exception: when the previous bottom division had ``size + 1`` players and new
entrants come, its last stayer starts the new bottom division with them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: The largest division: a double round robin of 24 is 552 games.
MAX_DIVISION_SIZE = 24

#: A season's divisions, top first, each its players' member ids in order.
Divisions = tuple[tuple[int, ...], ...]


class LeagueRuleError(ValueError):
    """A league's rules or a season's players that cannot make a season."""


class RulesInvalid(LeagueRuleError):
    """A division size or a number of movers out of range."""


class TooFewPlayers(LeagueRuleError):
    """Fewer than two players for a season."""


class EnteredTwice(LeagueRuleError):
    """A player in two divisions, or entered twice, or entered while already a member."""


@dataclass(frozen=True)
class Rules:
    """A league's shape: players a division (``division_size``) and how many go up from
    each division but the top and down from each but the bottom (``movers``)."""

    division_size: int
    movers: int

    def __post_init__(self) -> None:
        if not 2 <= self.division_size <= MAX_DIVISION_SIZE:
            raise RulesInvalid(f"A division has from 2 to {MAX_DIVISION_SIZE} players.")
        if self.movers < 1 or 2 * self.movers > self.division_size:
            raise RulesInvalid(
                "From 1 to half a division's players go up, and as many down, "
                "so the two zones of a division never overlap."
            )


@dataclass(frozen=True)
class Zones:
    """One division's final standings split three ways, each in finishing order."""

    promoted: tuple[int, ...]
    stayed: tuple[int, ...]
    relegated: tuple[int, ...]


@dataclass(frozen=True)
class NextSeason:
    """The next season's divisions, and each previous division's zones (top first)."""

    divisions: Divisions
    zones: tuple[Zones, ...]

    def division_of(self, member: int) -> int | None:
        """The member's division (1 is the top), or None when they are not in it."""
        for rank, players in enumerate(self.divisions, start=1):
            if member in players:
                return rank
        return None


def _unique(ids: Iterable[int]) -> list[int]:
    ids = list(ids)
    if len(set(ids)) != len(ids):
        raise EnteredTwice("Each player can be in a league season only once.")
    return ids


def cut(ladder: Sequence[int], rules: Rules) -> Divisions:
    """``ladder`` (best first) in divisions of the league's size from the top; the bottom
    division takes the rest, or ``size + 1`` players rather than leave one alone."""
    players = _unique(ladder)
    if len(players) < 2:
        raise TooFewPlayers("A league season needs at least two players.")
    size = rules.division_size
    divisions = [tuple(players[i : i + size]) for i in range(0, len(players), size)]
    if len(divisions) > 1 and len(divisions[-1]) == 1:
        divisions[-2:] = [divisions[-2] + divisions[-1]]
    return tuple(divisions)


def first_season(entrants: Sequence[int], rules: Rules) -> Divisions:
    """The first season: the entrants, in the order given, cut into divisions."""
    return cut(entrants, rules)


def zones(final: Sequence[int], *, rank: int, divisions: int, movers: int) -> Zones:
    """Division ``rank`` (of ``divisions``; 1 is the top) split by its ``final`` standings:
    the top ``movers`` promoted unless it is the top division, then the bottom ``movers``
    of the rest relegated unless it is the bottom division."""
    final = tuple(final)
    up = min(movers, len(final)) if rank > 1 else 0
    promoted, rest = final[:up], final[up:]
    down = min(movers, len(rest)) if rank < divisions else 0
    stayed, relegated = rest[: len(rest) - down], rest[len(rest) - down :]
    return Zones(promoted=promoted, stayed=stayed, relegated=relegated)


def next_season(
    final: Sequence[Sequence[int]],
    rules: Rules,
    *,
    leavers: Iterable[int] = (),
    entrants: Sequence[int] = (),
) -> NextSeason:
    """The next season from the last one's ``final`` standings (each division's players in
    table order, top division first): promotion and relegation by the rules, ``leavers``
    out, ``entrants`` (in the order given) in at the foot, every division filled to size
    (the module's docstring says how)."""
    _unique(player for division in final for player in division)
    count = len(final)
    split = tuple(
        zones(division, rank=rank, divisions=count, movers=rules.movers)
        for rank, division in enumerate(final, start=1)
    )
    ladder: list[int] = []
    for index, zone in enumerate(split):
        if index > 0:
            ladder += split[index - 1].relegated
        ladder += zone.stayed
        if index + 1 < count:
            ladder += split[index + 1].promoted
    gone = set(leavers)
    staying = [player for player in ladder if player not in gone]
    newcomers = _unique(entrants)
    if set(newcomers) & set(staying):
        raise EnteredTwice("A new entrant is already in the league.")
    return NextSeason(divisions=cut([*staying, *newcomers], rules), zones=split)
