"""Each ending reads truthfully (issue 35): a cancelled or voided fixture is not "No result
(both seats empty), 0–0" when both seats were filled, on the match page and in the lists;
an adjudication names the winner and the ruling; and the organisers' trail writes the
kick-off it moved in the viewer's own zone, like every other time on the page."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from matches import services
from matches.models import Match
from tournaments import services as organising

pytestmark = pytest.mark.django_db


def _page(match: Match, member=None) -> str:
    client = Client()
    if member is not None:
        client.force_login(member)
    return client.get(f"/matches/{match.id}/").content.decode()


def _result_on_page(match: Match) -> str:
    found = re.search(r'<dd id="match-result">(.*?)</dd>', _page(match))
    assert found, "the page states the result"
    return found.group(1)


def _home_row(match: Match) -> str:
    home = Client().get("/").content.decode()
    rows = re.findall(r"<tr>(.*?)</tr>", home, re.DOTALL)
    [row] = [row for row in rows if f"/matches/{match.id}/" in row]
    return row


def test_a_cancelled_fixture_with_both_seated_reads_cancelled(make_fixture, organiser, alice, bob):
    match = make_fixture(
        first=alice, second=bob, kickoff_at=timezone.now() + timedelta(days=1), name="Cup"
    )
    organising.fixture_cancel(organiser=organiser, match_id=match.id, reason="Rained off")

    assert _result_on_page(match) == "Cancelled by an organiser: no result"
    row = _home_row(match)
    assert "Cancelled by an organiser: no result" in row
    assert "both seats empty" not in row
    assert "both seats empty" not in _page(match)
    lines = Client().get(f"/api/matches/{match.id}/").json()
    assert lines["end_reason"] == "cancelled"


def test_a_voided_match_reads_voided(make_fixture, organiser, alice, bob):
    match = make_fixture(first=alice, second=bob, name="Stalled")
    organising.match_adjudicate(organiser=organiser, match_id=match.id, ruling="void", reason="x")
    assert _result_on_page(match) == "Voided by an organiser: no result"
    assert "Voided by an organiser: no result" in _home_row(match)


def test_an_adjudicated_match_names_its_winner_and_the_ruling(make_fixture, organiser, alice, bob):
    match = make_fixture(first=alice, second=bob, name="Stalled")
    organising.match_adjudicate(organiser=organiser, match_id=match.id, ruling="first", reason="x")
    page = _page(match)
    assert '<dd id="match-result">alice (First) won</dd>' in page
    assert '<dd id="match-ended-by">Adjudicated by an organiser</dd>' in page


def test_a_fixture_nobody_sat_in_still_reads_both_seats_empty(make_fixture):
    start = datetime.now(tz=UTC) + timedelta(minutes=5)
    match = make_fixture(kickoff_at=start, name="Nobody came")
    services.match_apply_deadlines(match_id=match.id, now=start + timedelta(hours=1))
    assert _result_on_page(match) == "No result (both seats empty)"


def test_the_trail_writes_a_moved_kick_off_in_the_viewers_zone(make_fixture, organiser, alice):
    old = datetime(2031, 3, 1, 18, 0, tzinfo=UTC)
    new = datetime(2031, 3, 4, 18, 30, tzinfo=UTC)
    match = make_fixture(first=alice, kickoff_at=old, name="Far ahead")
    organising.fixture_reschedule(
        organiser=organiser, match_id=match.id, kickoff_at=new, reason="Hall booked"
    )
    page = _page(match, organiser)
    [line] = re.findall(r'<li data-kind="reschedule">(.*?)</li>', page, re.DOTALL)
    # Every moment in the line is a <time> the page's script writes in the viewer's zone ...
    for moment in (old, new):
        assert f'<time datetime="{moment.isoformat()}" data-localise>' in line
    # ... and none is written out in UTC beside it.
    outside = re.sub(r"<time .*?</time>", "", line, flags=re.DOTALL)
    assert "UTC" not in outside
    assert "kick-off moved from" in outside
