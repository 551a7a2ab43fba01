"""A member has at most ``PRACTICE_MAX_UNFINISHED`` practice matches unfinished at once: the next
is refused with a clear message and nothing is made; finishing one (a resignation) frees a
place. Other members' games, and fixtures against people, do not count."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from matches import services as match_services
from matches.models import Match
from practice.services import PracticeRefused, start_practice, unfinished_practice_message

pytestmark = pytest.mark.django_db


def test_the_next_practice_match_past_the_cap_is_refused(alice, bob, settings) -> None:
    settings.PRACTICE_MAX_UNFINISHED = 3
    started = [start_practice(member=alice, level="easy") for _ in range(3)]
    with pytest.raises(PracticeRefused) as refused:
        start_practice(member=alice, level="easy")
    assert refused.value.message == unfinished_practice_message(3)
    assert "3 practice matches unfinished" in refused.value.message
    assert Match.objects.count() == 3
    start_practice(member=bob, level="easy")  # bob's place is his own

    match_services.match_resign(match_id=started[0].id, member=alice, client_id="give-up")
    start_practice(member=alice, level="easy")  # one finished: a place is free
    assert Match.objects.filter(seats__member=alice).count() == 4


def test_the_page_says_why(alice, settings) -> None:
    settings.PRACTICE_MAX_UNFINISHED = 1
    client = Client()
    client.force_login(alice)
    assert client.post("/practice/", {"level": "easy"}).status_code == 302
    refused = client.post("/practice/", {"level": "easy"}, follow=True)
    assert refused.status_code == 200
    assert unfinished_practice_message(1) in html.unescape(refused.content.decode())
    assert Match.objects.count() == 1


def test_a_fixture_against_a_person_does_not_count(alice, live_match, settings) -> None:
    settings.PRACTICE_MAX_UNFINISHED = 1
    assert live_match.status == Match.Status.LIVE  # alice sits in it
    start_practice(member=alice, level="easy")
