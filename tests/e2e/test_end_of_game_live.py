"""The end of a game, live on pages already open: the revealed seed, "Check this game's bag"
(the whole record, the same for a player and a spectator), the rematch offer, its acceptance
and the way to the new match, all without a reload, in real browsers over the match's socket.
"""

from __future__ import annotations

import re

import pytest

from matches.models import Match
from tests.e2e.browser import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def run_check(page):
    page.get_by_role("button", name="Check this game's bag").click()
    box = page.locator("#fairness-check")
    expect(box).not_to_have_attribute("data-state", re.compile("ready|running"), timeout=20_000)
    return box


def test_the_end_of_a_friendly_arrives_live_on_open_pages(
    open_page, make_fixture, alice, bob
) -> None:
    match = make_fixture(first=alice, second=bob, name="Friendly")
    resigner = open_page(f"/matches/{match.id}/", alice)
    other = open_page(f"/matches/{match.id}/", bob)
    watcher = open_page(f"/matches/{match.id}/", None)
    for page in (other, watcher):
        expect(page.locator("#bag-seed-box")).to_be_hidden()
        expect(page.get_by_role("button", name="Check this game's bag")).to_be_hidden()
        expect(page.locator("#seats .rack-letters")).to_have_count(0)
    expect(other.locator("#rematch")).to_be_hidden()

    resigner.get_by_role("button", name="Resign…").click()
    resigner.get_by_role("button", name="Yes, resign").click()
    expect(other.locator("#match")).to_have_attribute("data-status", "finished")
    seed = Match.objects.get(pk=match.id).bag_seed
    racks = list(Match.objects.get(pk=match.id).seats.order_by("position").values_list("rack"))
    for page in (other, watcher):
        expect(page.locator("#bag-seed")).to_have_text(seed)
        expect(page.locator("#bag-seed-box")).to_be_visible()
        # The whole record is public now: both racks show, with no reload.
        for position, (rack,) in enumerate(racks):
            letters = page.locator(f"#seats li[data-position='{position}'] .rack-letters")
            expect(letters).to_have_text(" ".join("blank" if t == "?" else t for t in rack))

    # The bag check runs on the record the news brought, the whole record for everyone: no
    # move was made, so the two racks dealt (and still held) are every draw.
    for page in (other, watcher):
        box = run_check(page)
        expect(box).to_have_attribute("data-state", "passed")
        expect(box).to_contain_text("All 14 draws of both seats match the seed")

    # The rematch: offered on one page, answered on the other, agreed on the first.
    expect(watcher.locator("#rematch")).to_have_count(0)  # the players' alone
    other.locator("#rematch").get_by_role("button", name="Offer a rematch").click()
    expect(other.locator("#rematch-offered-by-you")).to_be_visible()
    expect(resigner.locator("#rematch-offered-to-you")).to_be_visible()  # no reload
    resigner.locator("#rematch").get_by_role("button", name="Accept the rematch").click()
    expect(resigner.locator("#match")).to_have_attribute("data-synced", "yes")
    rematch = Match.objects.exclude(pk=match.pk).get()
    assert resigner.url.endswith(f"/matches/{rematch.id}/")

    link = other.locator("#rematch-accepted").get_by_role("link", name="go to the rematch")
    expect(link).to_be_visible()  # no reload
    link.click()
    expect(other.locator("#match")).to_have_attribute("data-synced", "yes")
    assert other.url.endswith(f"/matches/{rematch.id}/")
    expect(other.locator("#your-seat")).to_contain_text("First")


def test_a_declined_rematch_shows_live(open_page, make_fixture, alice, bob) -> None:
    from challenges import services as challenges

    match = make_fixture(first=alice, second=bob, name="Friendly")
    other = open_page(f"/matches/{match.id}/", bob)
    offerer = open_page(f"/matches/{match.id}/", alice)
    offerer.get_by_role("button", name="Resign…").click()
    offerer.get_by_role("button", name="Yes, resign").click()
    offerer.locator("#rematch").get_by_role("button", name="Offer a rematch").click()
    expect(other.locator("#rematch-offered-to-you")).to_be_visible()
    challenges.rematch_decline(match_id=match.id, member=alice)  # called off elsewhere
    expect(other.locator("#rematch-declined")).to_be_visible()
    expect(other.locator("#rematch").get_by_role("button")).to_have_count(0)
