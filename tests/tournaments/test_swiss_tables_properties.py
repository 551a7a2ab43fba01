"""Properties of a Swiss round of tables (tournaments/swiss_tables.py) over random fields,
checked against a brute force over every way to seat the same players at the same tables:

- the sizes: as few tables as seat everyone, at most the seat count, at least two, as even
  as they can be, the larger first;
- everyone seated once, at tables of exactly those sizes;
- no repeat while avoidable: the seating has the fewest repeats (pairs at a table who have
  met before) any seating has;
- grouped by the standings: with nobody having met, the tables are the ranking cut top down;
- a table game's points "by place" are also one per player placed below, a half per tie.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.pairwise import pairwise_score
from tournaments.swiss import Entrant, PairingImpossible, ranked
from tournaments.swiss_tables import pair_tables, table_sizes


@pytest.mark.parametrize(
    ("players", "seat_count", "sizes"),
    [
        (7, 4, [4, 3]),
        (8, 4, [4, 4]),
        (9, 4, [3, 3, 3]),
        (10, 4, [4, 3, 3]),
        (6, 4, [3, 3]),
        (5, 4, [3, 2]),
        (4, 3, [2, 2]),
        (7, 3, [3, 2, 2]),
        (3, 4, [3]),
        (2, 3, [2]),
    ],
)
def test_table_sizes(players: int, seat_count: int, sizes: list[int]) -> None:
    assert table_sizes(players, seat_count) == sizes


def test_fewer_than_two_cannot_be_seated() -> None:
    with pytest.raises(PairingImpossible):
        table_sizes(1, 4)
    with pytest.raises(PairingImpossible):
        pair_tables([Entrant(id=1), Entrant(id=1), Entrant(id=2)], seat_count=3)


@given(players=st.integers(2, 60), seat_count=st.integers(3, 4))
def test_sizes_seat_everyone_at_as_few_and_as_even_tables_as_can_be(
    players: int, seat_count: int
) -> None:
    sizes = table_sizes(players, seat_count)
    assert sum(sizes) == players
    assert all(2 <= size <= seat_count for size in sizes)
    assert len(sizes) == -(-players // seat_count)
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)


def _seatings(players: Sequence[int], sizes: Sequence[int]) -> Iterator[list[tuple[int, ...]]]:
    """Every way to seat ``players`` at tables of ``sizes`` (in that order)."""
    if not sizes:
        yield []
        return
    first, rest = players[0], players[1:]
    for others in combinations(rest, sizes[0] - 1):
        remaining = [p for p in rest if p not in others]
        for seating in _seatings(remaining, sizes[1:]):
            yield [(first, *others), *seating]


def _repeats(tables: Sequence[Sequence[int]], met: dict[int, Counter[int]]) -> int:
    return sum(met[a][b] for table in tables for a, b in combinations(table, 2))


def _fewest_repeats(players: list[int], sizes: list[int], met: dict[int, Counter[int]]) -> int:
    orders = set()
    best = None
    for order in _size_orders(sizes):
        if order in orders:
            continue
        orders.add(order)
        for seating in _seatings(players, list(order)):
            cost = _repeats(seating, met)
            best = cost if best is None else min(best, cost)
    assert best is not None
    return best


def _size_orders(sizes: list[int]) -> Iterator[tuple[int, ...]]:
    """A table of any size may be the top one: every order of the sizes."""
    yield from permutations(sizes)


@st.composite
def fields(draw: st.DrawFn) -> tuple[list[Entrant], int]:
    size = draw(st.integers(3, 9))
    seat_count = draw(st.integers(3, 4))
    ids = list(range(1, size + 1))
    meetings = draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)), max_size=20))
    met: dict[int, list[int]] = {pk: [] for pk in ids}
    for a, b in meetings:
        if a != b:
            met[a].append(b)
            met[b].append(a)
    points = draw(st.lists(st.integers(0, 6), min_size=size, max_size=size))
    entrants = [Entrant(id=pk, points=points[pk - 1] / 2, opponents=tuple(met[pk])) for pk in ids]
    return entrants, seat_count


@settings(max_examples=150, deadline=None)
@given(field=fields())
def test_a_round_of_tables_seats_everyone_with_the_fewest_repeats(
    field: tuple[list[Entrant], int],
) -> None:
    entrants, seat_count = field
    paired = pair_tables(entrants, seat_count=seat_count)
    seated = [pk for table in paired.tables for pk in table]
    assert sorted(seated) == sorted(e.id for e in entrants)
    sizes = sorted((len(table) for table in paired.tables), reverse=True)
    assert sizes == table_sizes(len(entrants), seat_count)
    met = {e.id: Counter(e.opponents) for e in entrants}
    assert paired.repeats == _repeats(paired.tables, met)
    ids = [e.id for e in ranked(entrants)]
    assert paired.repeats == _fewest_repeats(ids, [len(t) for t in paired.tables], met)
    # Each table opens with the highest-ranked player not seated at a table above it.
    rank = {pk: index for index, pk in enumerate(ids)}
    for number, table in enumerate(paired.tables):
        above = {pk for earlier in paired.tables[:number] for pk in earlier}
        assert rank[table[0]] == min(rank[pk] for pk in ids if pk not in above)
        assert list(table) == sorted(table, key=rank.__getitem__)


@given(size=st.integers(2, 30), seat_count=st.integers(3, 4))
def test_with_nobody_met_the_tables_are_the_ranking_cut_top_down(
    size: int, seat_count: int
) -> None:
    entrants = [Entrant(id=pk, points=float(pk % 3), spread=pk) for pk in range(1, size + 1)]
    ids = [e.id for e in ranked(entrants)]
    paired = pair_tables(entrants, seat_count=seat_count)
    cut, start = [], 0
    for table_size in table_sizes(size, seat_count):
        cut.append(tuple(ids[start : start + table_size]))
        start += table_size
    assert list(paired.tables) == cut
    assert paired.repeats == 0


def test_round_two_of_sixteen_at_tables_of_four_repeats_no_pair() -> None:
    """Round 1 seated 1-4, 5-8, 9-12 and 13-16, and the ranking after it is the same: cut
    top down, round 2 would repeat every table; seated, each table holds one player of each
    round-1 table."""
    groups = [tuple(range(start, start + 4)) for start in (1, 5, 9, 13)]
    group_of = {pk: group for group in groups for pk in group}
    entrants = [
        Entrant(id=pk, points=float(17 - pk), opponents=tuple(o for o in group_of[pk] if o != pk))
        for pk in range(1, 17)
    ]
    paired = pair_tables(entrants, seat_count=4)
    assert paired.repeats == 0
    assert paired.tables[0] == (1, 5, 9, 13)  # the top player with the nearest they can meet
    for table in paired.tables:
        assert len({group_of[pk] for pk in table}) == 4


@given(places=st.lists(st.integers(1, 4), min_size=2, max_size=4))
def test_by_place_is_a_point_per_player_below_and_a_half_per_tie(places: list[int]) -> None:
    """The two readings of "by place" give the same numbers for any places, ties included:
    N-1 for first ... 0 for last with tied players sharing the average of the points their
    positions would have had, and one point per player placed below plus a half per tie."""
    by_seat = dict(enumerate(places))
    n = len(places)
    order = sorted(by_seat, key=by_seat.__getitem__)
    position_points = {seat: n - 1 - index for index, seat in enumerate(order)}
    for seat, place in by_seat.items():
        tied = [other for other, p in by_seat.items() if p == place]
        average = sum(position_points[other] for other in tied) / len(tied)
        assert pairwise_score(by_seat, seat) == average
    # Every pair's point is shared out: the table's points are its pairs, N(N-1)/2.
    assert sum(pairwise_score(by_seat, seat) for seat in by_seat) == n * (n - 1) / 2
