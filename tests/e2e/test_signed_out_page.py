"""An open match page whose session or membership ends elsewhere tells its member at once.

Chromium keeps a match page open and idle; the session ends in another browser (signing out
everywhere else) or an organiser removes the member. The server closes the page's socket
(4401) with the reason, and the page acts on it without being touched: to the sign-in page
(it comes back to the match afterwards), or, removed from the club, it says so and stops.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts import services as account_services
from matches.models import Match
from tests.e2e.browser import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_signing_out_everywhere_else_sends_an_idle_page_to_sign_in(
    open_page, live_match, alice
) -> None:
    page = open_page(f"/matches/{live_match.id}/", alice)
    elsewhere = Client()
    elsewhere.force_login(alice)
    assert elsewhere.post("/accounts/sign-out-elsewhere/").status_code == 302
    expect(page).to_have_url(
        re.compile(r"/accounts/sign-in/\?next=%2Fmatches%2F\d+%2F&session=ended$")
    )


def test_a_member_removed_from_the_club_is_told_on_the_open_page(
    open_page, make_fixture, alice, bob, make_member, organiser
) -> None:
    carol = make_member("carol")
    match = make_fixture(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    page = open_page(f"/matches/{match.id}/", carol)
    account_services.membership_remove(organiser=organiser, member_id=carol.pk)
    expect(page.locator("#status")).to_have_text("You are no longer a member of the club.")
    expect(page.locator("#connection")).to_have_text("Disconnected")
