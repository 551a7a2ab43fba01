"""An organiser reschedules a fixture on the Fixtures page, in a real browser, and a player
with the match page open in another browser sees the new kick-off without reloading (the
service's ``fixture_changed`` over the real websocket and channel layer, then a sync).

The organiser's browser is in Berlin and the player's in UTC: the time typed is the
organiser's local time, sent with the browser's offset, and shown in the player's own zone.
"""

from __future__ import annotations

from datetime import UTC, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from matches.models import Match, OrganiserAction
from tests.e2e.browser import expect
from tests.e2e.test_board import match_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOCAL_TIME = """iso => new Date(iso).toLocaleString(undefined, {weekday: "short",
  day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZoneName: "short"})"""


def test_an_organiser_reschedules_and_the_player_sees_the_new_kickoff(
    open_page, make_fixture, organiser, alice, bob
):
    match = make_fixture(first=alice, second=bob, name="Alice v Bob",
                         kickoff_at=timezone.now() + timedelta(hours=3))  # fmt: skip
    new_kickoff = (timezone.now() + timedelta(days=2)).replace(minute=30, second=0,
                                                               microsecond=0)  # fmt: skip
    player = open_page(match_url(match), alice, timezone_id="UTC", locale="en-GB")
    banner = player.locator("#kickoff-banner")
    expect(banner).to_contain_text("This match begins")
    shown_new = player.evaluate(LOCAL_TIME, new_kickoff.isoformat())
    expect(banner).not_to_contain_text(shown_new)

    desk = open_page("/organise/", organiser, wait=False, timezone_id="Europe/Berlin",
                     locale="en-GB")  # fmt: skip
    desk.get_by_role("link", name="Fixtures: find, reschedule").click()
    row = desk.locator(f"#fixture-{match.id}")
    expect(row).to_contain_text("Alice v Bob")
    row.get_by_text("Reschedule", exact=True).first.click()  # the <summary>
    berlin = new_kickoff.astimezone(ZoneInfo("Europe/Berlin"))
    row.get_by_label("New kick-off").fill(berlin.strftime("%Y-%m-%dT%H:%M"))
    row.get_by_label("Reason").first.fill("The hall is booked")
    row.get_by_role("button", name="Reschedule").click()
    expect(desk.locator(".messages")).to_contain_text("Rescheduled Alice v Bob.")

    # The player's open page follows, in the player's own zone.
    expect(banner).to_contain_text(shown_new)
    match.refresh_from_db()
    assert match.kickoff_at == new_kickoff.astimezone(UTC)
    assert OrganiserAction.objects.get(match=match).reason == "The hall is booked"
    assert match.status == Match.Status.SCHEDULED


def test_the_member_picker_suggests_approved_members_as_the_organiser_types(
    open_page, organiser, make_member
):
    make_member("carol")
    make_member("casper")
    pending = make_member("cara")
    type(pending).objects.filter(pk=pending.pk).update(membership="pending")
    desk = open_page("/organise/", organiser, wait=False)
    first = desk.locator("#id_fixture-first")
    first.press_sequentially("ca", delay=50)
    options = desk.locator("#member-options option")
    expect(options).to_have_count(2)
    assert sorted(options.evaluate_all("els => els.map(e => e.value)")) == ["carol", "casper"]
    first.press_sequentially("r", delay=50)
    expect(options).to_have_count(1)
    expect(options.first).to_have_attribute("value", "carol")
    # The round robin's helper adds a picked name to the list of players.
    helper = desk.locator("#rr-add-player")
    expect(helper).to_be_visible()
    helper.fill("carol")
    helper.dispatch_event("change")
    expect(desk.locator("#id_rr-players")).to_have_value("carol")
