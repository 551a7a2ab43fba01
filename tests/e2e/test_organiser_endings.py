"""An organiser's change as the board page shows it, in a real browser (issue 35): a fixture
an organiser ended reads as what happened (the page's script writes the ending: a cancelled
or voided match is neither "both seats empty" nor given a 0–0 score), and a substitute's
name replaces the player's in the title of a page already open."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.e2e.browser import expect
from tests.e2e.test_board import match_url
from tournaments import services as organising

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_cancelled_and_voided_matches_read_as_such_on_the_board(
    open_page, make_fixture, organiser, alice, bob
):
    cancelled = make_fixture(first=alice, second=bob, name="Rained off",
                             kickoff_at=timezone.now() + timedelta(days=1))  # fmt: skip
    organising.fixture_cancel(organiser=organiser, match_id=cancelled.id, reason="Rain")
    voided = make_fixture(first=alice, second=bob, name="Stalled")
    organising.match_adjudicate(organiser=organiser, match_id=voided.id, ruling="void", reason="x")

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


def test_an_open_page_renames_its_title_when_a_substitute_sits(
    open_page, make_fixture, make_member, organiser, alice, bob
):
    carol = make_member("carol")
    match = make_fixture(first=alice, second=bob, name="Cup",
                         kickoff_at=timezone.now() + timedelta(days=1))  # fmt: skip
    page = open_page(match_url(match), alice)
    expect(page.locator("#match-title")).to_have_text("Cup: alice v bob")
    organising.fixture_substitute(
        organiser=organiser, match_id=match.id, position=1, member_id=carol.pk, reason="Ill"
    )
    expect(page.locator("#match-title")).to_have_text("Cup: alice v carol")
    expect(page).to_have_title("Cup: alice v carol · Word Duel")
