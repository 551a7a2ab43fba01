"""A challenge in real browsers: a member posts one on the challenges page, another accepts it
in a browser of her own, and both land on the live board (plain form posts, then the socket)."""

from __future__ import annotations

import pytest

from challenges.models import Challenge
from matches.models import Match
from tests.e2e.browser import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_challenge_posted_and_accepted_puts_both_on_the_live_board(open_page, alice, bob):
    poster = open_page("/", alice, wait=False)
    poster.get_by_role("link", name="Challenges").click()
    expect(poster.get_by_role("heading", name="Post a challenge")).to_be_visible()
    poster.get_by_label("Ruleset").select_option("word-duel")
    poster.get_by_label("No: a friendly").check()
    poster.get_by_role("button", name="Post the challenge").click()
    expect(poster.locator(".messages")).to_contain_text("Your challenge is posted.")
    challenge = Challenge.objects.get()
    expect(poster.locator(f'[data-challenge-id="{challenge.pk}"]')).to_contain_text("Withdraw")

    accepter = open_page("/challenges/", bob, wait=False)
    row = accepter.locator(f'[data-challenge-id="{challenge.pk}"]')
    expect(row).to_contain_text("alice challenges any member")
    row.get_by_role("button", name="Accept").click()
    expect(accepter.locator("#match")).to_have_attribute("data-synced", "yes")
    match = Match.objects.get()
    assert match.status == Match.Status.LIVE
    assert accepter.url.endswith(f"/matches/{match.id}/")
    expect(accepter.locator("#your-seat")).to_contain_text("Second")

    poster.reload()
    poster.locator("#accepted-challenges").get_by_role("link", name="go to the match").click()
    expect(poster.locator("#match")).to_have_attribute("data-synced", "yes")
    assert poster.url.endswith(f"/matches/{match.id}/")
    expect(poster.locator("#your-seat")).to_contain_text("First")
    expect(poster.locator("#turn-line")).to_contain_text("Your turn")


def test_a_rematch_offered_and_accepted_on_the_match_page(open_page, make_fixture, alice, bob):
    from matches import services as match_services

    match = make_fixture(first=alice, second=bob, name="Friendly")
    match_services.match_resign(match_id=match.id, member=alice, client_id="resign")

    offerer = open_page(f"/matches/{match.id}/", bob)
    offerer.locator("#rematch").get_by_role("button", name="Offer a rematch").click()
    expect(offerer.locator("#rematch-offered-by-you")).to_be_visible()

    other = open_page(f"/matches/{match.id}/", alice)
    expect(other.locator("#rematch-offered-to-you")).to_be_visible()
    other.locator("#rematch").get_by_role("button", name="Accept the rematch").click()
    expect(other.locator("#match")).to_have_attribute("data-synced", "yes")
    rematch = Match.objects.exclude(pk=match.pk).get()
    assert other.url.endswith(f"/matches/{rematch.id}/")
    expect(other.locator("#your-seat")).to_contain_text("Second")

    offerer.reload()
    offerer.locator("#rematch-accepted").get_by_role("link", name="go to the rematch").click()
    expect(offerer.locator("#match")).to_have_attribute("data-synced", "yes")
    expect(offerer.locator("#your-seat")).to_contain_text("First")
    expect(offerer.locator("#turn-line")).to_contain_text("Your turn")
