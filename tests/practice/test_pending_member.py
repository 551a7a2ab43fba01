"""A sign-up still waiting for an organiser (or a removed member) cannot start a practice match
or a challenge: refused with a clear message before anything is made, and not offered."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from accounts.models import Member
from challenges.models import Challenge
from challenges.services import MEMBERS_CHALLENGE
from matches.models import Match
from practice.services import MEMBERS_PRACTISE, PracticeRefused, start_practice

pytestmark = pytest.mark.django_db


@pytest.fixture(params=[Member.Membership.PENDING, Member.Membership.REMOVED])
def outsider(request, make_member) -> Member:
    member = make_member("pat")
    member.membership = request.param
    member.save(update_fields=["membership"])
    return member


def signed_in(member: Member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def test_no_practice_match_is_made_for_a_member_not_approved(outsider) -> None:
    with pytest.raises(PracticeRefused) as refused:
        start_practice(member=outsider, level="easy")
    assert refused.value.message == MEMBERS_PRACTISE
    client = signed_in(outsider)
    response = client.post("/practice/", {"level": "easy"}, follow=True)
    assert response.status_code == 200
    assert MEMBERS_PRACTISE in html.unescape(response.content.decode())
    assert not Match.objects.exists()  # nothing to get a 404 on


def test_the_home_page_offers_no_practice_or_challenge_to_a_member_not_approved(
    outsider, alice
) -> None:
    page = html.unescape(signed_in(outsider).get("/").content.decode())
    assert 'id="play-computer"' not in page
    assert MEMBERS_PRACTISE in page
    assert 'id="play-computer"' in signed_in(alice).get("/").content.decode()
    # A challenge is refused with its own message, and nothing is posted.
    response = signed_in(outsider).post(
        "/challenges/post/", {"ruleset": "word-duel", "rated": "no"}
    )
    assert response.status_code == 403
    assert MEMBERS_CHALLENGE in html.unescape(response.content.decode())
    assert not Challenge.objects.exists()
