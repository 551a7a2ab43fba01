"""A fixture an organiser ended reads as what happened on the board page, in a real browser
(issue 35): the page's script writes the ending, and a cancelled or voided match is neither
"both seats empty" nor given a 0–0 score."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from matches import services
from tests.e2e.test_board import match_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_cancelled_and_voided_matches_read_as_such_on_the_board(
    open_page, make_fixture, organiser, alice, bob
):
    cancelled = make_fixture(first=alice, second=bob, name="Rained off",
                             kickoff_at=timezone.now() + timedelta(days=1))  # fmt: skip
    services.fixture_cancel(organiser=organiser, match_id=cancelled.id, reason="Rain")
    voided = make_fixture(first=alice, second=bob, name="Stalled")
    services.match_adjudicate(organiser=organiser, match_id=voided.id, ruling="void", reason="x")

    page = open_page(match_url(cancelled), alice)
    expect(page.locator("#turn-line")).to_have_text(
        "Match over: Cancelled by an organiser: no result."
    )
    expect(page.locator("#match-result")).to_have_text("Cancelled by an organiser: no result")
    expect(page.locator("#match")).not_to_contain_text("both seats empty")

    page = open_page(match_url(voided))
    expect(page.locator("#turn-line")).to_have_text(
        "Match over: Voided by an organiser: no result."
    )
    expect(page.locator("#match-result")).to_have_text("Voided by an organiser: no result")
