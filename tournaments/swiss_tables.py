"""A Swiss round of tables: pure (no Django), so it is tested over random tournaments.

docs/RULES.md section 3 ("A Swiss of tables") is this module in words. Given every player's
standing and whom each has met (:class:`tournaments.swiss.Entrant`), :func:`pair_tables`
seats the round at tables of at most ``seat_count``:

1. **The sizes** (:func:`table_sizes`): as few tables as seat everyone, their sizes as even
   as they can be, the larger first: 7 players at tables of 4 are 4 + 3, 9 are 3 + 3 + 3, 10
   are 4 + 3 + 3; 5 at tables of 4 are 3 + 2 (a duel, when no split into 3s and 4s exists);
   at tables of 3, 4 players are 2 + 2. Everyone plays: no byes (a Swiss needs at least
   three players for tables; two left are one duel).
2. **The ranking**, as a Swiss of duels ranks (:func:`tournaments.swiss.ranked`): points,
   spread, rating, the lower member number.
3. **The groups**, top down: the highest-ranked player not yet seated opens the next table
   (a larger one first, a smaller one if that avoids a repeat) and takes the players nearest
   below them in the ranking, by a search with backtracking that finds the seating with the
   fewest *repeats* (pairs at one table who have met before, each meeting counted) and,
   within that, the first in rank order: a budget of repeats from 0 upwards, the first
   seating within budget taken. No
   repeat while one is avoidable. Each search is bounded (:data:`SEARCH_LIMIT` steps); one
   cut off widens the budget faster (doubling), so a large field is still seated quickly,
   only perhaps not optimally.
4. **The seats** at each table in rank order: who starts is drawn at the table (RULES.md
   section 18), so a seat's position gives no first move to balance.

No Gibsonization at tables: a leader's lead over a table is not one opponent's to protect.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from tournaments.swiss import Entrant, PairingImpossible, ranked

#: Steps one search may take before its budget is widened (a safety net for huge fields).
SEARCH_LIMIT = 20_000
#: The smallest table: a duel.
SMALLEST = 2


def table_sizes(players: int, seat_count: int) -> list[int]:
    """As few tables as seat ``players`` at most ``seat_count`` each, as even as they can be,
    the larger first (the module's docstring)."""
    if players < SMALLEST:
        raise PairingImpossible("A round needs at least two players.")
    if seat_count < SMALLEST:
        raise PairingImpossible("A table seats at least two.")
    tables = -(-players // seat_count)
    small, larger = divmod(players, tables)
    return [small + 1] * larger + [small] * (tables - larger)


@dataclass(frozen=True)
class TableRound:
    """A round of tables: each table's player ids in seat order, tables top down; and the
    repeats the search settled for (pairs at a table who had met before, summed)."""

    tables: tuple[tuple[int, ...], ...]
    repeats: int = 0


class _Search:
    """Backtracking over ``players`` (in rank order) within a budget of repeats."""

    def __init__(self, players: Sequence[Entrant], sizes: Sequence[int]) -> None:
        self.players = list(players)
        self.sizes = list(sizes)
        met = {e.id: Counter(e.opponents) for e in self.players}
        self.met = {(a.id, b.id): met[a.id][b.id] for a in self.players for b in self.players}
        self.steps = 0

    def cost(self, table: Sequence[Entrant]) -> int:
        return sum(self.met[(a.id, b.id)] for a, b in combinations(table, 2))

    def run(self, budget: int) -> list[list[Entrant]] | None:
        self.steps = 0
        return self._seat(self.players, tuple(self.sizes), budget)

    def _seat(
        self, unseated: list[Entrant], sizes: tuple[int, ...], budget: int
    ) -> list[list[Entrant]] | None:
        if not unseated:
            return []
        top, rest = unseated[0], unseated[1:]
        for size in dict.fromkeys(sizes):  # each size left once, the larger first
            left = list(sizes)
            left.remove(size)
            for others in combinations(rest, size - 1):
                self.steps += 1
                if self.steps > SEARCH_LIMIT:
                    return None
                group = [top, *others]
                cost = self.cost(group)
                if cost > budget:
                    continue
                remaining = [e for e in rest if e not in others]
                found = self._seat(remaining, tuple(left), budget - cost)
                if found is not None:
                    return [group, *found]
        return None


def pair_tables(entrants: Iterable[Entrant], *, seat_count: int) -> TableRound:
    """Seat one round at tables of at most ``seat_count`` (the module's docstring)."""
    order = ranked(entrants)
    if len({e.id for e in order}) != len(order):
        raise PairingImpossible("Each player can be entered only once.")
    sizes = table_sizes(len(order), seat_count)
    search = _Search(order, sizes)
    widest = sum(len(e.opponents) for e in order)
    budget = 0
    while True:
        found = search.run(budget)
        if found is not None:
            return TableRound(
                tables=tuple(tuple(e.id for e in table) for table in found),
                repeats=sum(search.cost(table) for table in found),
            )
        if budget >= widest:  # pragma: no cover - the first seating fits the widest budget
            raise AssertionError("unreachable: any seating fits the widest budget")
        # A search cut off by its limit proved nothing: widen faster than one at a time.
        budget = min(widest, budget * 2 + 1 if search.steps > SEARCH_LIMIT else budget + 1)
