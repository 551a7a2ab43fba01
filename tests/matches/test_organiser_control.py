"""An organiser's control of scheduled fixtures (issue 19, item 3): reschedule, cancel,
adjudicate and void. Each is one service with its lock, its news, its audit record, and
refusals that change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from matches import services, visibility
from matches.integrity import match_problems
from matches.models import Match, OrganiserAction, Seat
from ratings.models import RatingChange
from tests.matches.test_ws_helpers import socket_opener
from tournaments import services as organising

db = database_sync_to_async


def _state(match: Match) -> tuple:
    match.refresh_from_db()
    seats = tuple(Seat.objects.filter(match=match).values_list("member_id", "score"))
    return (match.status, match.result, match.end_reason, match.kickoff_at, match.no_show_at,
            seats, OrganiserAction.objects.filter(match=match).count())  # fmt: skip


@pytest.fixture
def upcoming(make_fixture, alice, bob) -> Match:
    return make_fixture(first=alice, second=bob, kickoff_at=timezone.now() + timedelta(hours=2))


@pytest.mark.django_db
def test_reschedule_moves_the_kickoff_and_the_no_show_and_records_why(organiser, upcoming):
    new = timezone.now() + timedelta(days=2)
    organising.fixture_reschedule(
        organiser=organiser, match_id=upcoming.id, kickoff_at=new, reason="  Bob is away  "
    )
    upcoming.refresh_from_db()
    assert upcoming.kickoff_at == new
    assert upcoming.no_show_at == new + upcoming.no_show_window
    action = OrganiserAction.objects.get(match=upcoming)
    assert (action.kind, action.organiser_id, action.reason) == ("reschedule", organiser.pk,
                                                                 "Bob is away")  # fmt: skip
    assert action.details["kickoff_after"] == new.isoformat()


@pytest.mark.django_db
def test_reschedule_refusals_change_nothing(organiser, alice, upcoming, live_match):
    before = _state(upcoming)
    soon = timezone.now() + timedelta(days=1)
    with pytest.raises(services.NotAllowed):
        organising.fixture_reschedule(organiser=alice, match_id=upcoming.id, kickoff_at=soon,
                                    reason="x")  # fmt: skip
    with pytest.raises(services.InvalidFixture, match="Give a reason"):
        organising.fixture_reschedule(organiser=organiser, match_id=upcoming.id, kickoff_at=soon,
                                    reason=" ")  # fmt: skip
    with pytest.raises(services.InvalidFixture, match="must be in the future"):
        organising.fixture_reschedule(organiser=organiser, match_id=upcoming.id,
                                    kickoff_at=timezone.now() - timedelta(minutes=1),
                                    reason="late")  # fmt: skip
    assert _state(upcoming) == before
    live = _state(live_match)
    with pytest.raises(services.FixtureUnchangeable) as started:
        organising.fixture_reschedule(organiser=organiser, match_id=live_match.id,
                                    kickoff_at=soon, reason="too late")  # fmt: skip
    assert started.value.code == "fixture_unchangeable"
    assert _state(live_match) == live


@pytest.mark.django_db
def test_a_kickoff_that_passed_first_stands(organiser, upcoming):
    later = timezone.now() + timedelta(hours=3)
    with pytest.raises(services.FixtureUnchangeable):
        organising.fixture_reschedule(
            organiser=organiser,
            match_id=upcoming.id,
            kickoff_at=later,
            reason="x",
            now=upcoming.kickoff_at + timedelta(seconds=1),
        )
    upcoming.refresh_from_db()
    assert upcoming.status == Match.Status.LIVE  # opened at its kick-off, on the way


@pytest.mark.django_db
def test_cancel_before_kickoff_ends_with_no_result(organiser, upcoming, live_match):
    organising.fixture_cancel(organiser=organiser, match_id=upcoming.id, reason="Hall closed")
    upcoming.refresh_from_db()
    assert (upcoming.status, upcoming.result, upcoming.end_reason) == ("abandoned", "",
                                                                       "cancelled")  # fmt: skip
    assert match_problems(upcoming) == []
    assert OrganiserAction.objects.get(match=upcoming).kind == "cancel"
    over = _state(upcoming)
    with pytest.raises(services.FixtureUnchangeable):
        organising.fixture_cancel(organiser=organiser, match_id=upcoming.id, reason="again")
    assert _state(upcoming) == over
    live = _state(live_match)
    with pytest.raises(services.FixtureUnchangeable, match="not kicked off"):
        organising.fixture_cancel(organiser=organiser, match_id=live_match.id, reason="late")
    assert _state(live_match) == live


@pytest.mark.django_db
def test_cancel_refusals_change_nothing(organiser, alice, upcoming):
    """The service's own refusals (not only the page's): a player who is no organiser, and
    a blank reason, cancel nothing."""
    before = _state(upcoming)
    with pytest.raises(services.NotAllowed) as refused:
        organising.fixture_cancel(organiser=alice, match_id=upcoming.id, reason="Hall closed")
    assert refused.value.code == "not_allowed"
    with pytest.raises(services.InvalidFixture, match="Give a reason"):
        organising.fixture_cancel(organiser=organiser, match_id=upcoming.id, reason="  ")
    assert _state(upcoming) == before
    assert upcoming.status == Match.Status.SCHEDULED


@pytest.mark.django_db
def test_adjudication_awards_a_rated_result_and_everyone_sees_why(
    organiser, alice, bob, make_member
):
    match = organising.create_fixture(organiser=organiser, name="Rated", first=alice, second=bob,
                                    rated=True)  # fmt: skip
    organising.match_adjudicate(organiser=organiser, match_id=match.id, ruling="second",
                              reason="Alice cannot continue this season")  # fmt: skip
    match.refresh_from_db()
    assert (match.status, match.result, match.end_reason) == ("finished", "second", "adjudicated")
    assert RatingChange.objects.filter(match=match).count() == 2
    assert match_problems(match) == []
    carol = make_member("carol")
    for viewer in (carol, organiser):
        page = visibility.match_page(services.look_at_match(user=viewer, match_id=match.id,
                                                             key=None))  # fmt: skip
        assert [(a.kind, a.reason) for a in page.audit] == [
            ("adjudicate", "Alice cannot continue this season")
        ]
        assert page.end_reason_label == "Adjudicated by an organiser"


@pytest.mark.django_db
def test_void_is_no_result_and_unrated_and_bad_rulings_change_nothing(organiser, alice, bob):
    match = organising.create_fixture(organiser=organiser, name="Rated", first=alice, second=bob,
                                    rated=True)  # fmt: skip
    before = _state(match)
    with pytest.raises(services.InvalidFixture, match="A ruling is"):
        organising.match_adjudicate(organiser=organiser, match_id=match.id, ruling="alice",
                                  reason="x")  # fmt: skip
    with pytest.raises(services.NotAllowed):
        organising.match_adjudicate(organiser=alice, match_id=match.id, ruling="first", reason="x")
    assert _state(match) == before
    organising.match_adjudicate(organiser=organiser, match_id=match.id, ruling="void",
                              reason="Played under the wrong rules")  # fmt: skip
    match.refresh_from_db()
    assert (match.status, match.result, match.end_reason) == ("abandoned", "", "voided")
    assert not RatingChange.objects.filter(match=match).exists()
    with pytest.raises(services.FixtureUnchangeable, match="Only a live match"):
        organising.match_adjudicate(organiser=organiser, match_id=match.id, ruling="draw",
                                  reason="again")  # fmt: skip


@pytest.mark.django_db
def test_reschedules_are_for_organisers_only_in_the_trail(organiser, upcoming, make_member):
    organising.fixture_reschedule(
        organiser=organiser,
        match_id=upcoming.id,
        kickoff_at=timezone.now() + timedelta(days=3),
        reason="Venue",
    )
    carol = make_member("carol")
    seen = visibility.match_page(services.look_at_match(user=carol, match_id=upcoming.id, key=None))
    assert seen.audit == []
    own = visibility.match_page(services.look_at_match(user=organiser, match_id=upcoming.id,
                                                        key=None))  # fmt: skip
    assert [a.kind for a in own.audit] == ["reschedule"]


@pytest.mark.django_db(transaction=True)
async def test_a_watcher_is_told_the_fixture_changed_and_syncs_the_new_kickoff(
    organiser, make_fixture, alice, bob
):
    match = await db(make_fixture)(first=alice, second=bob,
                                   kickoff_at=timezone.now() + timedelta(hours=2))  # fmt: skip
    new = timezone.now() + timedelta(days=1)
    async with socket_opener() as connect:
        watcher, _ = await connect(match.id, name="visitor")
        await db(organising.fixture_reschedule)(organiser=organiser, match_id=match.id,
                                              kickoff_at=new, reason="Rain")  # fmt: skip
        changed = await watcher.event("fixture_changed")
        assert changed == {"type": "fixture_changed", "match_id": match.id, "data": {}}
        view = await watcher.sync()
        assert view["kickoff_at"] == new.isoformat()
