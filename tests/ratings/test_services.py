"""Ratings move with rated results, once, in the result's own transaction; the rebuild from
the match log gives exactly what the live updates gave."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from matches import services
from matches.models import Match, Seat
from ratings import selectors
from ratings.models import Rating, RatingChange
from ratings.policy import START, Standing, rate_game
from ratings.services import apply_match_result, rebuild_ratings
from tests.ratings.season import at, fixture, forfeit, pass_out, play_out

pytestmark = pytest.mark.django_db

SEASON_START = datetime(2026, 3, 2, 19, tzinfo=UTC)


def _seats(match: Match) -> list[Seat]:
    return list(Seat.objects.filter(match=match).order_by("position"))


def _snapshot() -> tuple[list[tuple], list[tuple]]:
    """Every rating and every change, every number exactly as stored."""
    ratings = list(
        Rating.objects.order_by("member_id", "ruleset").values_list(
            "member_id",
            "ruleset",
            "rating",
            "deviation",
            "volatility",
            "games",
            "last_played_at",
        )
    )
    changes = list(
        RatingChange.objects.order_by("match_id", "member_id").values_list(
            "match_id",
            "member_id",
            "opponent_id",
            "ruleset",
            "score",
            "rating_before",
            "deviation_before",
            "volatility_before",
            "rating_after",
            "deviation_after",
            "volatility_after",
            "played_at",
        )
    )
    return ratings, changes


def test_a_rated_forfeit_moves_both_ratings_once(organiser, alice, bob) -> None:
    match = forfeit(fixture(organiser, alice, bob))
    assert match.result == Match.Result.SECOND  # alice, to move first, let the time pass
    expected = rate_game(Standing(), Standing(), result="second", at=match.finished_at)

    mine = Rating.objects.get(member=alice, ruleset="word-duel")
    theirs = Rating.objects.get(member=bob, ruleset="word-duel")
    assert mine.standing == expected[0].after
    assert theirs.standing == expected[1].after
    assert mine.rating < START.rating < theirs.rating
    assert (mine.games, theirs.games) == (1, 1)
    change = RatingChange.objects.get(match=match, member=bob)
    assert (change.opponent_id, change.score, change.before) == (alice.pk, 1.0, START)
    assert change.after == expected[1].after.value

    # Asked again (another sweep, a page load, a direct call): nothing more happens.
    before = _snapshot()
    services.match_apply_deadlines(match_id=match.id, now=match.finished_at + timedelta(days=9))
    assert apply_match_result(match=match, seats=_seats(match)) == ()
    assert _snapshot() == before
    assert RatingChange.objects.filter(match=match).count() == 2


def test_a_match_played_on_the_board_is_rated(organiser, alice, bob) -> None:
    match = pass_out(play_out(fixture(organiser, alice, bob), plays=4))
    assert match.end_reason == Match.EndReason.SIX_SCORELESS
    assert match.result in {Match.Result.FIRST, Match.Result.SECOND, Match.Result.DRAW}
    scores = dict(RatingChange.objects.filter(match=match).values_list("member_id", "score"))
    expected = {"first": (1.0, 0.0), "second": (0.0, 1.0), "draw": (0.5, 0.5)}[match.result]
    assert (scores[alice.pk], scores[bob.pk]) == expected


def test_unrated_no_show_and_abandoned_matches_move_no_rating(organiser, alice, bob) -> None:
    forfeit(fixture(organiser, alice, bob, rated=False))  # a friendly
    kickoff = datetime(2026, 5, 1, 18, tzinfo=UTC)
    with at(kickoff - timedelta(days=1)):
        no_show = fixture(organiser, alice, None, kickoff_at=kickoff)
        abandoned = fixture(organiser, None, None, kickoff_at=kickoff)
    for match in (no_show, abandoned):
        services.match_apply_deadlines(match_id=match.id, now=kickoff + timedelta(hours=1))
        match.refresh_from_db()
    assert no_show.end_reason == Match.EndReason.NO_SHOW  # alice won, against nobody
    assert no_show.result == Match.Result.FIRST
    assert abandoned.status == Match.Status.ABANDONED
    assert not RatingChange.objects.exists()
    assert not Rating.objects.exists()


def test_the_rating_is_written_in_the_transaction_that_records_the_result(
    organiser, alice, bob
) -> None:
    match = fixture(organiser, alice, bob)
    deadline = match.turn_deadline_at
    seen = []

    def forfeit_then_fail() -> None:
        with transaction.atomic():
            services.match_apply_deadlines(match_id=match.id, now=deadline + timedelta(minutes=1))
            seen.append(RatingChange.objects.filter(match=match).count())
            raise RuntimeError("undone")

    with pytest.raises(RuntimeError, match="undone"):
        forfeit_then_fail()
    assert seen == [2]  # the changes were there with the result...
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE  # ...and went when the result was undone
    assert not RatingChange.objects.exists()
    assert not Rating.objects.exists()


def test_ratings_are_kept_per_ruleset(organiser, alice, bob) -> None:
    forfeit(fixture(organiser, alice, bob, ruleset="classic"))
    forfeit(fixture(organiser, bob, alice))
    assert set(Rating.objects.filter(member=alice).values_list("ruleset", "games")) == {
        ("classic", 1),
        ("word-duel", 1),
    }


def test_a_rebuild_equals_the_live_ratings_after_a_random_season_of_30_matches(
    organiser, make_member
) -> None:
    """30 rated matches among six members in two rulesets, ended by forfeits, six scoreless
    turns after a few plays, and one game played out, with unrated matches and no-shows
    between them; then the log is rebuilt from the matches alone."""
    rng = random.Random(2026)
    members = [make_member(f"season{i}") for i in range(6)]
    rated = 0
    day = 0
    while rated < 30:
        day += 4
        moment = SEASON_START + timedelta(days=day, minutes=rng.randrange(600))
        first, second = rng.sample(members, 2)
        ruleset = rng.choice(["word-duel", "word-duel", "classic"])
        noise = rng.random()
        with at(moment):
            if noise < 0.12:  # a friendly: unrated
                pass_out(fixture(organiser, first, second, rated=False, ruleset=ruleset))
                continue
            if noise < 0.2:  # a no-show: rated, but nobody to be rated against
                kickoff = moment + timedelta(hours=1)
                match = fixture(organiser, first, None, ruleset=ruleset, kickoff_at=kickoff)
                services.match_apply_deadlines(match_id=match.id, now=kickoff + timedelta(hours=1))
                continue
            match = fixture(organiser, first, second, ruleset=ruleset)
            if rated == 7:
                play_out(match)
            elif rng.random() < 0.5:
                pass_out(play_out(match, plays=rng.randrange(0, 5)))
            else:
                play_out(match, plays=rng.randrange(0, 4))
        if not match.is_over:
            forfeit(match)
        assert match.status == Match.Status.FINISHED
        rated += 1

    live = _snapshot()
    assert len(live[1]) == 60
    assert sum(games for *_, games, _ in live[0]) == 60
    assert {row[1] for row in live[0]} == {"word-duel", "classic"}

    out = StringIO()
    call_command("ratings", "--rebuild", stdout=out)
    assert "from 30 rated matches" in out.getvalue()
    assert _snapshot() == live
    assert rebuild_ratings().matches == 30
    assert _snapshot() == live  # and again: deterministic

    # Each member's history runs on: every game starts where the last one left the rating.
    for member in members:
        for ruleset in ("word-duel", "classic"):
            lines = selectors.history(member, ruleset)
            for earlier, later in itertools.pairwise(lines):
                assert later.before.rating == earlier.after.rating
                assert later.before.volatility == earlier.after.volatility
                assert later.before.deviation >= earlier.after.deviation  # grown while away


def test_a_rebuild_follows_the_log_not_the_old_rows(organiser, alice, bob) -> None:
    match = forfeit(fixture(organiser, alice, bob))
    live = _snapshot()
    Rating.objects.filter(member=alice).update(rating=2999.0, games=40)
    RatingChange.objects.filter(member=bob).delete()
    Match.objects.filter(pk=match.pk).update(rated=False)
    rebuild_ratings()
    assert _snapshot() == ([], [])  # the match is no longer rated: nobody has a rating
    Match.objects.filter(pk=match.pk).update(rated=True)
    rebuild_ratings()
    assert _snapshot() == live


def test_the_command_lists_the_ratings_and_refuses_what_it_does_not_know(
    organiser, alice, bob
) -> None:
    out = StringIO()
    call_command("ratings", stdout=out)
    assert out.getvalue().strip() == "No ratings yet."
    forfeit(fixture(organiser, alice, bob))
    out = StringIO()
    call_command("ratings", stdout=out)
    assert "word-duel:" in out.getvalue()
    assert "bob" in out.getvalue()
    assert "?" in out.getvalue()  # one game: provisional
    with pytest.raises(CommandError, match="unrecognized arguments"):
        call_command("ratings", "--rebuld")
