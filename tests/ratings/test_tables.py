"""A rated table of 3-4 is rated as the pairwise results between its players, from the seats'
places (docs/RATINGS.md, "Tables"): each player in one rating period against every other,
the better place a win, the same place a draw; the rebuild gives the live values exactly.

Finished tables are stored directly (as tests/matches/test_standings.py stores finished
duels): the services that end a table have their own tests.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest
from django.db import transaction

from accounts.models import Member
from matches.models import Match, Seat
from matches.pairwise import pairwise, pairwise_score
from matches.services.creation import create_match
from ratings import selectors
from ratings.glicko2 import Glicko2, Outcome, rate
from ratings.models import Rating, RatingChange
from ratings.policy import START, TAU, Standing, rate_game, rate_table
from ratings.services import apply_match_result, is_rated_result, rebuild_ratings

pytestmark = pytest.mark.django_db

FINISHED_AT = datetime(2026, 4, 6, 20, tzinfo=UTC)
_names = itertools.count()


def finished_table(
    organiser: Member,
    players: Sequence[Member],
    *,
    places: Sequence[int | None],
    scores: Sequence[int] | None = None,
    rated: bool = True,
    at: datetime = FINISHED_AT,
) -> Match:
    """A classic table of ``len(players)`` made by ``create_match`` and stored as finished:
    each seat's place and score as given, in seat order."""
    with transaction.atomic():
        match = create_match(
            name=f"Table {next(_names)}",
            organiser=organiser,
            kickoff_at=datetime(2031, 1, 1, tzinfo=UTC),
            ruleset="classic",
            lexicon="enable",
            visibility_=Match.Visibility.PUBLIC,
            no_show_window=None,
            seat_count=len(players),
            rated=rated,
        )
    scores = scores or [300 - 10 * (place or 0) for place in places]
    for position, (member, place, score) in enumerate(zip(players, places, scores, strict=True)):
        Seat.objects.filter(match=match, position=position).update(
            member=member, place=place, score=score
        )
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED,
        result=Match.Result.TABLE,
        end_reason=Match.EndReason.PLAYED_OUT,
        finished_at=at,
    )
    match.refresh_from_db()
    return match


def seats_of(match: Match) -> list[Seat]:
    return list(Seat.objects.filter(match=match).order_by("position"))


def players(make_member, count: int) -> list[Member]:
    return [make_member(f"p{next(_names)}") for _ in range(count)]


def test_pairwise_results_of_places() -> None:
    places = {10: 2, 11: 1, 12: 2, 13: 4}
    assert [(p.better, p.worse, p.score) for p in pairwise(places)] == [
        (11, 10, 1.0),
        (10, 12, 0.5),
        (10, 13, 1.0),
        (11, 12, 1.0),
        (11, 13, 1.0),
        (12, 13, 1.0),
    ]
    # N-1 for first ... 0 for last, tied places sharing the average: the same numbers.
    assert [pairwise_score(places, p) for p in places] == [1.5, 3.0, 1.5, 0.0]


def test_a_table_of_three_rates_each_against_both_others(organiser, make_member) -> None:
    ann, ben, cat = players(make_member, 3)
    match = finished_table(organiser, [ann, ben, cat], places=[2, 1, 3])
    changes = apply_match_result(match=match, seats=seats_of(match))
    assert [change.member_id for change in changes] == [ann.pk, ben.pk, cat.pk]  # seat order

    won, lost = [Outcome(START, 1.0)] * 2, [Outcome(START, 0.0)] * 2
    split = [Outcome(START, 1.0), Outcome(START, 0.0)]
    expected = {ben.pk: rate(START, won, tau=TAU), ann.pk: rate(START, split, tau=TAU)}
    expected[cat.pk] = rate(START, lost, tau=TAU)
    for change in changes:
        assert change.after == expected[change.member_id]
        assert (change.opponent_id, change.opponents) == (None, 2)
    assert {c.member_id: c.score for c in changes} == {ann.pk: 1.0, ben.pk: 2.0, cat.pk: 0.0}
    rows = {row.member_id: row for row in Rating.objects.filter(ruleset="classic")}
    assert rows[ben.pk].rating > rows[ann.pk].rating > rows[cat.pk].rating
    assert rows[ann.pk].rating == pytest.approx(START.rating)  # one win, one loss, all equal
    assert {row.games for row in rows.values()} == {1}


def test_a_table_of_four_with_a_tie_draws_the_tied_pair(organiser, make_member) -> None:
    ann, ben, cat, dan = players(make_member, 4)
    match = finished_table(organiser, [ann, ben, cat, dan], places=[1, 2, 2, 4])
    changes = {c.member_id: c for c in apply_match_result(match=match, seats=seats_of(match))}
    assert {pk: c.score for pk, c in changes.items()} == {
        ann.pk: 3.0,
        ben.pk: 1.5,
        cat.pk: 1.5,
        dan.pk: 0.0,
    }
    tied = [Outcome(START, 0.0), Outcome(START, 0.5), Outcome(START, 1.0)]
    assert changes[ben.pk].after == changes[cat.pk].after == rate(START, tied, tau=TAU)
    assert (
        changes[ann.pk].rating_after > changes[ben.pk].rating_after > changes[dan.pk].rating_after
    )
    line = selectors.history(ben, "classic")[0]
    assert (line.opponent, line.outcome, line.opponent_has_page) == (
        "a table of 4",
        "1½ of 3 pairwise",
        False,
    )


def test_each_opponent_counts_as_they_stood_going_in(organiser, make_member) -> None:
    """A table's players are rated at once: a later pair does not see an earlier pair's
    change (one rating period, like a duel's)."""
    ann, ben, cat = players(make_member, 3)
    strong = Standing(value=Glicko2(1800.0, 80.0, 0.06), games=30, last_played_at=None)
    standings = {ann.pk: strong, ben.pk: Standing(), cat.pk: Standing()}
    updates = rate_table(standings, {ann.pk: 3, ben.pk: 1, cat.pk: 2}, at=FINISHED_AT)
    expected = rate(START, [Outcome(strong.value, 1.0), Outcome(START, 1.0)], tau=TAU)
    assert updates[ben.pk].after.value == expected
    assert updates[ann.pk].before == strong.value


def test_a_duel_is_the_table_of_two(organiser, alice, bob) -> None:
    for result, places in (("first", (1, 2)), ("second", (2, 1)), ("draw", (1, 1))):
        duel = rate_game(Standing(), Standing(), result=result, at=FINISHED_AT)
        table = rate_table(
            {1: Standing(), 2: Standing()}, dict(zip((1, 2), places, strict=True)), at=FINISHED_AT
        )
        assert (table[1], table[2]) == duel


def test_unrated_or_unplaced_tables_move_no_rating(organiser, make_member) -> None:
    ann, ben, cat = players(make_member, 3)
    friendly = finished_table(organiser, [ann, ben, cat], places=[1, 2, 3], rated=False)
    unplaced = finished_table(organiser, [ann, ben, cat], places=[None, None, None])
    for match in (friendly, unplaced):
        assert not is_rated_result(match, seats_of(match))
        assert apply_match_result(match=match, seats=seats_of(match)) == ()
    assert not RatingChange.objects.exists()
    # Applied twice, a table is rated once.
    rated = finished_table(organiser, [ann, ben, cat], places=[1, 1, 3])
    assert len(apply_match_result(match=rated, seats=seats_of(rated))) == 3
    assert apply_match_result(match=rated, seats=seats_of(rated)) == ()
    assert RatingChange.objects.count() == 3


def test_the_rebuild_gives_the_live_values_with_tables(organiser, make_member) -> None:
    field = players(make_member, 5)
    live = []
    for day, (seated, places) in enumerate(
        [
            (field[:4], [1, 2, 3, 4]),
            (field[1:4], [3, 1, 1]),
            (field[:2], [2, 1]),
            (field[2:], [1, 2, 2]),
            (field[::2], [2, 3, 1]),
        ]
    ):
        at = FINISHED_AT + timedelta(days=3 * day)
        live.append(finished_table(organiser, seated, places=places, at=at))
        apply_match_result(match=live[-1], seats=seats_of(live[-1]))
    before = sorted(
        RatingChange.objects.values_list(
            "match_id", "member_id", "score", "rating_after", "deviation_after", "volatility_after"
        )
    )
    ratings = sorted(Rating.objects.values_list("member_id", "rating", "deviation", "games"))
    rebuilt = rebuild_ratings()
    assert (rebuilt.matches, rebuilt.ratings) == (5, 5)
    assert (
        sorted(
            RatingChange.objects.values_list(
                "match_id",
                "member_id",
                "score",
                "rating_after",
                "deviation_after",
                "volatility_after",
            )
        )
        == before
    )
    assert (
        sorted(Rating.objects.values_list("member_id", "rating", "deviation", "games")) == ratings
    )
