"""Swiss pairing for one round: pure (no Django), so it is tested over random tournaments.

docs/RULES.md section 3 ("Swiss") is this module in words. Given every player's standing
(points, spread, rating), how often each went First, whom each has met and how many byes
each has had, :func:`pair_round` returns the round's pairs (First, Second), its bye and its
Gibsonized player, decided in this order:

1. **The ranking.** Points, then spread, then rating, then the lower member number
   (:func:`ranked`). Before any game all points are equal, so round 1 is paired by rating.
2. **Gibsonization**, as tsh (John Chew's tournament software, used at NASPA and ABSP
   events) does it. The leader is *Gibsonized* when they are mathematically certain of first
   place: their lead in points over every other player is greater than the points that
   player can still earn (one a round left, this one included, plus any game of theirs still
   unfinished). The rule implemented is tsh's, from its manual's pairing procedure (as
   excerpted for the 2007 Players' Championship, the-pc.poslfit.com/2007/pairing.html):
   "pair the last [Gibson] with either the highest-ranked player in the lowest prize band
   (if nonempty) or the lowest-ranked player overall, in each case choosing only from the
   candidate opponents who have played the Gibson least often"; and "if the number of
   unpaired players is odd, give an odd Gibson the bye". Here the prize band is the
   tournament's prize places: a player *cannot catch the prize places* when, winning every
   game left, they would still have fewer points than the player now placed last in the
   prizes. (Only points count: tsh can also weigh spread, we do not.) Only one player can
   be certain of first place, so there is at most one Gibson a round.
3. **The bye**, when the number of players is odd: to a player with the fewest byes (so no
   second bye while someone has had none): the Gibson if they are among them (tsh), else
   the lowest-ranked of them.
4. **The pairs**, by search with backtracking over the players in rank order: the
   highest-ranked unpaired player takes the first candidate that still lets everyone else
   be paired, candidates in this order: their own score group (the players on equal
   points), top half against bottom half (in a group of *g* the 1st meets the
   (1 + g/2)th, the 2nd the (2 + g/2)th, ...); then the lower groups, nearest first, from
   their top. A player left over in an odd group so *floats down* to the top of the next.
   The search finds the pairing with the fewest rematches (times two players have met
   before, summed), and among those the fewest pairs across score groups: it tries a
   budget of (rematches, crossings) from (0, 0) upwards and takes the first pairing within
   budget. No rematch while one is avoidable; no pair across groups unless needed (among
   the players left once the bye and the Gibson's pair are settled, which come first, as
   in tsh).
   Each search is bounded (:data:`SEARCH_LIMIT` steps); past it the budget is widened, so a
   very large field is still paired, only perhaps not optimally.
5. **First-move balance.** In each pair the player who has gone First less often relative
   to their games goes First; equal, the higher-ranked on odd boards (1, 3, ...) and the
   lower-ranked on even ones, so round 1 alternates.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: Steps one search may take before its budget is widened (a safety net for huge fields).
SEARCH_LIMIT = 20_000


@dataclass(frozen=True)
class Entrant:
    """One player as the pairing sees them. ``opponents`` lists each earlier opponent once
    per meeting; ``games`` counts games paired (finished or not; a bye is not a game);
    ``pending`` the games of theirs paired but not yet finished."""

    id: int
    points: float = 0.0
    spread: int = 0
    rating: float = 0.0
    firsts: int = 0
    games: int = 0
    opponents: tuple[int, ...] = ()
    byes: int = 0
    pending: int = 0

    @property
    def first_balance(self) -> int:
        """Times First minus times Second: positive when due to go Second."""
        return 2 * self.firsts - self.games


@dataclass(frozen=True)
class Pairing:
    """A round: its pairs as (First, Second) ids, board by board; the bye; the Gibson."""

    pairs: tuple[tuple[int, int], ...]
    bye: int | None = None
    gibson: int | None = None
    #: The search's result: rematches (summed) and pairs across score groups.
    rematches: int = 0
    crossings: int = 0
    notes: tuple[str, ...] = field(default=())


class PairingImpossible(ValueError):
    """Fewer than two players, or ids that repeat."""


def ranked(entrants: Iterable[Entrant]) -> list[Entrant]:
    """Points, then spread, then rating (highest first), then the lower id."""
    return sorted(entrants, key=lambda e: (-e.points, -e.spread, -e.rating, e.id))


def gibsonized(order: Sequence[Entrant], *, rounds_left: int) -> Entrant | None:
    """The leader, when no one else can reach their points with ``rounds_left`` rounds
    (this one included) and their unfinished games all won; else None."""
    if len(order) < 2 or rounds_left < 1:
        return None
    leader, others = order[0], order[1:]
    best_reach = max(e.points + e.pending + rounds_left for e in others)
    return leader if leader.points > best_reach else None


def cannot_catch_prizes(
    order: Sequence[Entrant], player: Entrant, *, rounds_left: int, prize_places: int
) -> bool:
    """Whether ``player``, winning every game left, would still have fewer points than the
    player now placed last in the prize places."""
    places = max(1, min(prize_places, len(order)))
    if order.index(player) < places:
        return False
    bar = order[places - 1].points
    return player.points + player.pending + rounds_left < bar


def _times_met(a: Entrant, b: Entrant) -> int:
    return Counter(a.opponents)[b.id]


def _gibson_opponent(
    order: Sequence[Entrant], gibson: Entrant, *, rounds_left: int, prize_places: int
) -> Entrant:
    """tsh's rule: among those who have met the Gibson least often, the highest-ranked who
    cannot catch the prize places, else the lowest-ranked."""
    others = [e for e in order if e.id != gibson.id]
    least = min(_times_met(gibson, e) for e in others)
    pool = [e for e in others if _times_met(gibson, e) == least]
    out_of_prizes = [
        e
        for e in pool
        if cannot_catch_prizes(order, e, rounds_left=rounds_left, prize_places=prize_places)
    ]
    return out_of_prizes[0] if out_of_prizes else pool[-1]


def _bye_for(order: Sequence[Entrant], gibson: Entrant | None) -> Entrant:
    fewest = min(e.byes for e in order)
    pool = [e for e in order if e.byes == fewest]
    if gibson is not None and gibson in pool:
        return gibson
    return pool[-1]


class _Search:
    """Backtracking over ``players`` (in rank order) within a budget of rematches and
    crossings (pairs of unequal points)."""

    def __init__(self, players: Sequence[Entrant]) -> None:
        self.players = list(players)
        self.met = {
            (a.id, b.id): _times_met(a, b) for a in self.players for b in self.players if a != b
        }
        self.steps = 0

    def _candidates(self, top: Entrant, unpaired: list[Entrant]) -> list[Entrant]:
        group = [e for e in unpaired if e.points == top.points]  # top is group[0]
        half = len(group) // 2
        same = sorted(group[1:], key=lambda e: (abs(group.index(e) - half), -group.index(e)))
        lower = [e for e in unpaired if e.points != top.points and e is not top]
        lower.sort(key=lambda e: (top.points - e.points, unpaired.index(e)))
        return same + lower

    @staticmethod
    def _least_crossings(unpaired: list[Entrant]) -> int:
        odd = sum(n % 2 for n in Counter(e.points for e in unpaired).values())
        return (odd + 1) // 2

    def run(self, rematches: int, crossings: int) -> list[tuple[Entrant, Entrant]] | None:
        self.steps = 0
        return self._pair(self.players, rematches, crossings)

    def _pair(
        self, unpaired: list[Entrant], rematches: int, crossings: int
    ) -> list[tuple[Entrant, Entrant]] | None:
        if not unpaired:
            return []
        if self._least_crossings(unpaired) > crossings:
            return None
        top, rest = unpaired[0], unpaired[1:]
        for other in self._candidates(top, unpaired):
            self.steps += 1
            if self.steps > SEARCH_LIMIT:
                return None
            cost = self.met[(top.id, other.id)]
            cross = int(other.points != top.points)
            if cost > rematches or cross > crossings:
                continue
            remaining = [e for e in rest if e is not other]
            found = self._pair(remaining, rematches - cost, crossings - cross)
            if found is not None:
                return [(top, other), *found]
        return None


def _best_pairs(players: Sequence[Entrant]) -> tuple[list[tuple[Entrant, Entrant]], int, int]:
    """The pairs with the fewest rematches, then the fewest crossings (module docstring)."""
    search = _Search(players)
    most = len(players) // 2
    for rematches in range(sum(len(e.opponents) for e in players) + 1):
        for crossings in range(most + 1):
            found = search.run(rematches, crossings)
            if found is not None:
                return found, rematches, crossings
    raise AssertionError("unreachable: any pairing fits the widest budget")  # pragma: no cover


def _seat(pair: tuple[Entrant, Entrant], board: int) -> tuple[int, int]:
    """(First, Second) ids: the player due to go First; equal, by the board's parity."""
    high, low = pair
    if high.first_balance != low.first_balance:
        first = high if high.first_balance < low.first_balance else low
    else:
        first = high if board % 2 == 1 else low
    second = low if first is high else high
    return (first.id, second.id)


def pair_round(
    entrants: Iterable[Entrant],
    *,
    rounds_left: int,
    prize_places: int = 3,
    gibsonization: bool = True,
) -> Pairing:
    """Pair one round (the module's docstring says how). ``rounds_left`` counts this round
    and the ones after it; ``prize_places`` how many places win a prize (for Gibsonization).
    """
    order = ranked(entrants)
    if len({e.id for e in order}) != len(order):
        raise PairingImpossible("Each player can be entered only once.")
    if len(order) < 2:
        raise PairingImpossible("A round needs at least two players.")
    notes: list[str] = []
    gibson = gibsonized(order, rounds_left=rounds_left) if gibsonization else None
    bye = _bye_for(order, gibson) if len(order) % 2 else None
    to_pair = [e for e in order if e is not bye]
    fixed: list[tuple[Entrant, Entrant]] = []
    if gibson is not None:
        notes.append("gibsonized")
        if gibson is not bye:
            opponent = _gibson_opponent(
                to_pair, gibson, rounds_left=rounds_left, prize_places=prize_places
            )
            fixed.append((gibson, opponent))
            to_pair = [e for e in to_pair if e is not gibson and e is not opponent]
    pairs, rematches, crossings = _best_pairs(to_pair)
    every = fixed + pairs
    rank = {e.id: i for i, e in enumerate(order)}
    every = [(a, b) if rank[a.id] < rank[b.id] else (b, a) for a, b in every]
    every.sort(key=lambda pair: rank[pair[0].id])
    return Pairing(
        pairs=tuple(_seat(pair, board) for board, pair in enumerate(every, start=1)),
        bye=bye.id if bye is not None else None,
        gibson=gibson.id if gibson is not None else None,
        rematches=rematches,
        crossings=crossings,
        notes=tuple(notes),
    )
