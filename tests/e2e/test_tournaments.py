"""Tournaments in a real browser, from the main navigation: the list, a tournament's table
and results round by round, and a player's page reached from the table."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match, Seat
from tests.e2e.browser import expect
from tournaments import services as organising

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _finish(match: Match, *, first_score: int, second_score: int) -> None:
    """Store a played-out result, First winning (the table reads outcomes however they came)."""
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED,
        result=Match.Result.FIRST,
        end_reason=Match.EndReason.PLAYED_OUT,
        finished_at=timezone.now(),
    )
    Seat.objects.filter(match=match, position=0).update(score=first_score)
    Seat.objects.filter(match=match, position=1).update(score=second_score)


def test_from_the_navigation_to_a_players_page(open_page, organiser, alice, bob) -> None:
    cup = organising.create_round_robin(
        organiser=organiser,
        name="Autumn cup",
        players=[alice, bob],
        first_kickoff=timezone.now() + timedelta(days=1),
        interval=timedelta(hours=1),
    )
    match = cup.matches.get()
    _finish(match, first_score=402, second_score=377)
    winner = match.seats.get(position=0).member
    loser = match.seats.get(position=1).member

    page = open_page("/", wait=False)  # an anonymous visitor
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Tournaments").click()
    expect(page).to_have_url(re.compile(r"/tournaments/$"))
    expect(page.locator("#past")).to_contain_text("Autumn cup")
    page.locator("#past").get_by_role("link", name="Autumn cup").click()
    expect(page).to_have_url(re.compile(rf"/tournaments/{cup.id}/$"))

    table = page.locator("#standings tbody tr")
    expect(table).to_have_count(2)
    expect(table.nth(0)).to_contain_text(winner.username)
    expect(table.nth(0)).to_contain_text("+25")
    results = page.locator(f'table.round-results tr[data-match="{match.id}"]')
    expect(results.locator("td.score")).to_have_text("402–377")
    expect(results).to_contain_text(f"{winner.username} (First) won")

    table.nth(1).get_by_role("link", name=loser.username).click()
    expect(page).to_have_url(re.compile(rf"/players/{loser.username}/$"))
    row = page.locator(f'#results tr[data-match="{match.id}"]')
    expect(row.locator("td.score")).to_have_text("377–402")
    expect(row.locator("td.outcome")).to_contain_text("lost")
    h2h = page.locator("#head-to-head tbody tr")
    expect(h2h).to_have_count(1)
    expect(h2h).to_contain_text("-25")
    expect(page.locator("#ratings-for-members")).to_be_visible()
