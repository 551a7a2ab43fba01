"""Properties of the knockout bracket (tournaments/knockout.py) over random fields, each
played through to its final with random results:

- every entrant appears exactly once in round 1 (in a tie or with a bye);
- byes go only to the top seeds (as many as the bracket has empty slots), only in round 1;
- each round halves the field, and its ties hold exactly the winners of the round before;
- the top two seeds can meet only in the final (each half holds one), and seeds 1 to 4
  only from the semi-finals on;
- a best-of-N tie ends exactly when someone reaches the majority ((N + 1) / 2 points, a
  draw half each), or, only when the N games leave them level, after the N-th game; and a
  game added to a decided tie is refused.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.knockout import (
    Entry,
    Game,
    Side,
    Tie,
    TieDecided,
    bracket_size,
    draw,
    majority,
    next_round,
    score_tie,
)

fields = st.lists(st.integers(1, 10_000), min_size=2, max_size=40, unique=True)


def _play(seeding: list[int], pick: st.DataObject) -> list[tuple[Tie, ...]]:
    """Every round of the bracket, each tie won by a side the data picks."""
    bracket = draw(seeding)
    rounds = [bracket.first_round]
    while len(rounds[-1]) > 1 or any(tie.is_bye for tie in rounds[-1]):
        ties = rounds[-1]
        winners: dict[int, Entry] = {}
        for tie in ties:
            if tie.is_bye:
                assert tie.bye_winner is not None
                winners[tie.slot] = tie.bye_winner
            else:
                assert tie.top is not None
                assert tie.bottom is not None
                winners[tie.slot] = pick.draw(st.sampled_from([tie.top, tie.bottom]))
        if len(ties) == 1:
            break
        rounds.append(next_round(ties, winners))
    return rounds


@settings(deadline=None)  # a time limit fails under load, not for a reason
@given(fields)
def test_every_entrant_appears_once_in_round_one(seeding: list[int]) -> None:
    bracket = draw(seeding)
    drawn = [entry.id for tie in bracket.first_round for entry in (tie.top, tie.bottom) if entry]
    assert sorted(drawn) == sorted(seeding)
    assert bracket.size == bracket_size(len(seeding))
    assert len(bracket.first_round) == bracket.size // 2
    assert 2**bracket.rounds == bracket.size


@settings(deadline=None)  # a time limit fails under load, not for a reason
@given(fields)
def test_byes_go_only_to_the_top_seeds(seeding: list[int]) -> None:
    bracket = draw(seeding)
    empty = bracket.size - len(seeding)
    assert sorted(entry.seed for entry in bracket.byes) == list(range(1, empty + 1))
    assert all(tie.top or tie.bottom for tie in bracket.first_round)  # never an empty tie


@settings(deadline=None)  # a time limit fails under load, not for a reason
@given(fields, st.data())
def test_rounds_carry_exactly_the_winners_and_byes_only_in_round_one(
    seeding: list[int], data: st.DataObject
) -> None:
    rounds = _play(seeding, data)
    assert len(rounds) == draw(seeding).rounds
    for earlier, later in itertools.pairwise(rounds):
        assert len(later) * 2 == len(earlier)
        assert all(tie.top is not None and tie.bottom is not None for tie in later)
        assert not any(tie.is_bye for tie in later)
        previous = {entry.id for tie in earlier for entry in (tie.top, tie.bottom) if entry}
        now = [entry.id for tie in later for entry in (tie.top, tie.bottom) if entry]
        assert len(set(now)) == len(now)
        assert set(now) <= previous


@settings(deadline=None)  # a time limit fails under load, not for a reason
@given(fields, st.data())
def test_top_seeds_meet_only_late(seeding: list[int], data: st.DataObject) -> None:
    rounds = _play(seeding, data)
    last = len(rounds)
    for number, ties in enumerate(rounds, start=1):
        for tie in ties:
            if tie.top is None or tie.bottom is None:
                continue
            seeds = {tie.top.seed, tie.bottom.seed}
            if seeds == {1, 2}:
                assert number == last  # the final
            if seeds <= {1, 2, 3, 4}:
                assert number >= last - 1  # the semi-finals or the final


games = st.lists(
    st.builds(
        Game,
        winner=st.sampled_from([Side.TOP, Side.BOTTOM, None]),
        spread=st.integers(-300, 300),
    ),
    max_size=12,
)


@settings(deadline=None)  # a time limit fails under load, not for a reason
@given(st.sampled_from([1, 3, 5, 7]), games, st.booleans())
def test_a_tie_ends_exactly_when_someone_reaches_the_majority(
    best_of: int, played: list[Game], top_higher: bool
) -> None:
    seeds = {"top_seed": 1, "bottom_seed": 2} if top_higher else {"top_seed": 2, "bottom_seed": 1}
    need = majority(best_of)
    top = bottom = 0.0
    for count, game in enumerate(played, start=1):
        before = score_tie(best_of, played[: count - 1], **seeds)
        if before.decided:
            with pytest.raises(TieDecided):
                score_tie(best_of, played[:count], **seeds)
            break
        top += 1 if game.winner is Side.TOP else 0.5 if game.winner is None else 0
        bottom += 1 if game.winner is Side.BOTTOM else 0.5 if game.winner is None else 0
        after = score_tie(best_of, played[:count], **seeds)
        assert (after.top_points, after.bottom_points, after.games) == (top, bottom, count)
        reached = top >= need or bottom >= need
        assert count <= best_of
        if reached:
            assert after.winner is (Side.TOP if top >= need else Side.BOTTOM)
        elif count == best_of:
            assert top == bottom  # only draws leave the N games short of a majority
            spread = sum(g.spread for g in played[:count])
            expected = (
                (Side.TOP if spread > 0 else Side.BOTTOM)
                if spread
                else (Side.TOP if top_higher else Side.BOTTOM)
            )
            assert after.winner is expected
        else:
            assert not after.decided


def test_a_tie_with_no_draws_ends_at_the_majority_and_no_later() -> None:
    wins = [Game(Side.TOP), Game(Side.BOTTOM), Game(Side.TOP)]
    assert not score_tie(3, wins[:2], top_seed=1, bottom_seed=2).decided
    decided = score_tie(3, wins, top_seed=1, bottom_seed=2)
    assert (decided.winner, decided.text) == (Side.TOP, "2\u20131")


def test_a_drawn_best_of_one_goes_to_the_spread_then_the_higher_seed() -> None:
    assert score_tie(1, [Game(None, -5)], top_seed=1, bottom_seed=8).winner is Side.BOTTOM
    level = score_tie(1, [Game(None, 0)], top_seed=8, bottom_seed=1)
    assert (level.winner, level.text) == (Side.BOTTOM, "½\u2013½")
