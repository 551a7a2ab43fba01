"""An organiser runs a Swiss in a real browser: creates it on the Organise page (pairing by
hand: the form pairs automatically unless told not to; the season lives the automatic
Swiss), pairs its first round from the tournament page, sees the pairings and the bye, is
told the next round must wait for round 1's game, and pairs it anyway."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Tournament
from tests.e2e.browser import expect
from tournaments.models import SwissBye

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_organiser_creates_a_swiss_and_pairs_its_rounds(open_page, organiser, make_member):
    for name in ("ann", "ben", "cat"):
        make_member(name)
    desk = open_page("/organise/", organiser, wait=False, timezone_id="UTC", locale="en-GB")
    form = desk.locator("#swiss-form")
    form.locator("#id_swiss-name").fill("Winter Swiss")
    form.locator("#id_swiss-players").fill("ann\nben\ncat")
    form.locator("#id_swiss-rounds").fill("3")
    kickoff = timezone.now() + timedelta(hours=1)
    form.locator("#id_swiss-first_kickoff").fill(kickoff.strftime("%Y-%m-%dT%H:%M"))
    automatic = form.get_by_label("Pair rounds automatically")
    expect(automatic).to_be_checked()  # the form's default
    automatic.uncheck()
    form.get_by_role("button", name="Create Swiss").click()
    expect(desk.locator(".messages")).to_contain_text("Created Winter Swiss")
    expect(desk.locator("#swiss-heading")).to_contain_text("0 of 3 rounds paired")

    desk.get_by_role("button", name="Pair round 1").click()
    expect(desk.locator(".messages")).to_contain_text("Paired round 1: 1 fixture.")
    tournament = Tournament.objects.get(name="Winter Swiss")
    bye = SwissBye.objects.get(swiss__tournament=tournament, round_number=1)
    expect(desk.locator('#swiss-rounds tr[data-round="1"] .bye')).to_contain_text(
        f"{bye.member} (a win, +50)"
    )
    expect(desk.locator(".round-results tbody tr")).to_have_count(1)
    # The bye's win counts in the standings at once.
    expect(desk.locator(f'#standings tr[data-member="{bye.member.username}"]')).to_contain_text(
        "+50"
    )

    # Round 1's game has not been played: round 2 waits, unless the organiser says so.
    desk.get_by_role("button", name="Pair round 2").click()
    expect(desk.locator("#swiss-refusal")).to_contain_text(
        "Some games of the earlier rounds are not finished."
    )
    desk.get_by_label("Pair even though games are unfinished").check()
    desk.get_by_role("button", name="Pair round 2").click()
    expect(desk.locator(".messages")).to_contain_text("Paired round 2: 1 fixture.")
    expect(desk.locator('#swiss-rounds tr[data-round="2"]')).to_contain_text(
        "Before round 1 was complete (1 game played on)"
    )
    second_bye = SwissBye.objects.get(swiss__tournament=tournament, round_number=2)
    assert second_bye.member_id != bye.member_id  # nobody has a second bye
