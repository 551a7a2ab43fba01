"""The league rules (tournaments/league.py), pure: properties over random leagues and a
two-season league worked by hand.

Properties, for a season built from any last season (itself cut from a random ladder and
given random final standings), with random leavers and entrants:

- every continuing member (not a leaver) and every entrant is in exactly one division,
  and nobody else;
- sizes respected: every division but the bottom has exactly the league's size, the
  bottom from 2 to size (size + 1 only when one player would otherwise be left alone);
- the top division promotes nobody and the bottom relegates nobody; the others promote
  their top N and relegate their bottom N;
- nobody is placed lower than the rule puts them (promoted: one up; relegated: one down;
  stayed: where they were), but for the one documented exception;
- with no leavers, a promoted player goes up exactly one division and a stayer stays; and
  a relegated player goes down exactly one when the bottom division had at least N
  players;
- entrants start at the foot: no entrant is above a continuing member.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.depth import repetitions
from tournaments import league as league_module
from tournaments.league import (
    MAX_DIVISION_SIZE,
    EnteredTwice,
    Rules,
    RulesInvalid,
    TooFewPlayers,
    cut,
    first_season,
    next_season,
    zones,
)


@st.composite
def leagues(draw: st.DrawFn):
    size = draw(st.integers(2, 9))
    movers = draw(st.integers(1, size // 2))
    rules = Rules(division_size=size, movers=movers)
    count = draw(st.integers(2, 40))
    last = first_season(list(range(1, count + 1)), rules)
    final = tuple(tuple(draw(st.permutations(division))) for division in last)
    leavers = draw(st.sets(st.integers(1, count), max_size=count))
    entrants = list(range(1000, 1000 + draw(st.integers(0, 12))))
    return rules, final, leavers, entrants


def _rule_division(final, movers: int) -> dict[int, tuple[int, str]]:
    """Each player's division by the rule alone, and their zone."""
    placed = {}
    for rank, division in enumerate(final, start=1):
        split = zones(division, rank=rank, divisions=len(final), movers=movers)
        placed |= dict.fromkeys(split.promoted, (rank - 1, "promoted"))
        placed |= dict.fromkeys(split.stayed, (rank, "stayed"))
        placed |= dict.fromkeys(split.relegated, (rank + 1, "relegated"))
    return placed


def _pushed_down(final, rules: Rules, leavers, entrants) -> set[int]:
    """The documented exception: the last stayer of a bottom division of size + 1 when
    nobody leaves and entrants come."""
    bottom = final[-1]
    if len(bottom) == rules.division_size + 1 and not leavers and entrants:
        return {bottom[-1]}
    return set()


@settings(max_examples=repetitions(full=300, quick=60), deadline=None)
@given(leagues())
def test_every_member_once_and_sizes_respected(league) -> None:
    rules, final, leavers, entrants = league
    continuing = {pk for division in final for pk in division} - leavers
    if len(continuing) + len(entrants) < 2:
        with pytest.raises(TooFewPlayers):
            next_season(final, rules, leavers=leavers, entrants=entrants)
        return
    built = next_season(final, rules, leavers=leavers, entrants=entrants)
    everyone = [pk for division in built.divisions for pk in division]
    assert len(everyone) == len(set(everyone))
    assert set(everyone) == continuing | set(entrants)
    *upper, bottom = built.divisions
    assert all(len(division) == rules.division_size for division in upper)
    assert 2 <= len(bottom) <= rules.division_size + 1
    if len(bottom) > rules.division_size:
        assert len(everyone) % rules.division_size == 1
    assert len(built.divisions) == len(everyone) // rules.division_size + (
        len(everyone) % rules.division_size > 1
    )


@settings(max_examples=repetitions(full=300, quick=60), deadline=None)
@given(leagues())
def test_the_zones_of_the_top_and_bottom_divisions_and_the_others(league) -> None:
    rules, final, _, _ = league
    count = len(final)
    for rank, division in enumerate(final, start=1):
        split = zones(division, rank=rank, divisions=count, movers=rules.movers)
        assert split.promoted + split.stayed + split.relegated == division
        if rank == 1:
            assert split.promoted == ()
        else:
            assert split.promoted == division[: rules.movers]
        if rank == count:
            assert split.relegated == ()
        else:
            assert split.relegated == division[-rules.movers :]
            assert not set(split.promoted) & set(split.relegated)


@settings(max_examples=repetitions(full=300, quick=60), deadline=None)
@given(leagues())
def test_nobody_is_placed_lower_than_the_rule_puts_them(league) -> None:
    rules, final, leavers, entrants = league
    continuing = {pk for division in final for pk in division} - leavers
    assume(len(continuing) + len(entrants) >= 2)
    built = next_season(final, rules, leavers=leavers, entrants=entrants)
    ruled = _rule_division(final, rules.movers)
    pushed = _pushed_down(final, rules, leavers, entrants)
    for pk in continuing:
        placed = built.division_of(pk)
        assert placed is not None
        target, _ = ruled[pk]
        assert placed <= target + (pk in pushed)
    lowest_member = max((built.division_of(pk) or 0) for pk in continuing) if continuing else 1
    for pk in entrants:
        assert (built.division_of(pk) or 0) >= lowest_member


@settings(max_examples=repetitions(full=300, quick=60), deadline=None)
@given(leagues())
def test_with_no_leavers_promoted_go_up_one_relegated_down_one(league) -> None:
    rules, final, _, entrants = league
    built = next_season(final, rules, entrants=entrants)
    ruled = _rule_division(final, rules.movers)
    pushed = _pushed_down(final, rules, set(), entrants)
    bottom_holds_movers = len(final[-1]) >= rules.movers
    for pk, (target, zone) in ruled.items():
        placed = built.division_of(pk)
        if zone == "promoted":
            assert placed == target
        elif zone == "stayed":
            assert placed == target + (pk in pushed)
        elif bottom_holds_movers:
            assert placed == target
        else:
            assert placed in (target - 1, target)


def test_two_seasons_by_hand() -> None:
    """Ten players, divisions of four, one up and one down.

    Season 1 is the entry order cut in fours: (1 2 3 4) (5 6 7 8) (9 10). Its final
    standings: division 1: 3 1 4 2; division 2: 7 5 8 6; division 3: 10 9. So 2 goes down
    from division 1; 7 up and 6 down from division 2; 10 up from division 3.
    """
    rules = Rules(division_size=4, movers=1)
    season_1 = first_season(list(range(1, 11)), rules)
    assert season_1 == ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10))
    final = ((3, 1, 4, 2), (7, 5, 8, 6), (10, 9))

    # Everyone stays and 11 and 12 join: the ladder is 3 1 4 | 7 ; 2 | 5 8 | 10 ; 6 | 9 ;
    # then 11 12 at the foot.
    built = next_season(final, rules, entrants=[11, 12])
    assert built.divisions == ((3, 1, 4, 7), (2, 5, 8, 10), (6, 9, 11, 12))
    assert built.zones[1].promoted == (7,)
    assert built.zones[1].relegated == (6,)

    # 4 leaves: division 1's empty place goes to the ladder's next player, 2 (its own
    # relegated player, reprieved); division 2 so has room for 6, reprieved in turn.
    built = next_season(final, rules, leavers={4}, entrants=[11, 12])
    assert built.divisions == ((3, 1, 7, 2), (5, 8, 10, 6), (9, 11, 12))

    # Two entrants and a leaver of division 3: 9 leaves, so 6 (relegated) and the
    # entrants make a division of three.
    built = next_season(final, rules, leavers={9}, entrants=[11, 12])
    assert built.divisions == ((3, 1, 4, 7), (2, 5, 8, 10), (6, 11, 12))


def test_one_left_over_joins_the_bottom_division() -> None:
    rules = Rules(division_size=4, movers=2)
    assert cut([1, 2, 3, 4, 5], rules) == ((1, 2, 3, 4, 5),)
    assert cut(list(range(1, 10)), rules) == ((1, 2, 3, 4), (5, 6, 7, 8, 9))
    assert cut(list(range(1, 11)), rules) == ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10))


def test_refusals() -> None:
    for size, movers in ((1, 0), (MAX_DIVISION_SIZE + 1, 1), (4, 0), (4, 3), (5, 3)):
        with pytest.raises(RulesInvalid):
            Rules(division_size=size, movers=movers)
    rules = Rules(division_size=4, movers=1)
    with pytest.raises(TooFewPlayers):
        first_season([1], rules)
    with pytest.raises(EnteredTwice):
        first_season([1, 2, 1], rules)
    with pytest.raises(EnteredTwice):
        next_season(((1, 2, 3),), rules, entrants=[3])
    with pytest.raises(EnteredTwice):
        next_season(((1, 2), (2, 3)), rules)


def test_the_rules_are_pure() -> None:
    """tournaments/league.py imports nothing but the standard library (no Django, no app)."""
    source = Path(league_module.__file__).read_text(encoding="utf-8")
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"__future__", "collections", "dataclasses"}, imported
