"""Ratings in a real browser: a rated match ends on the board, and its players see their
rating change on the match page, the leaderboard and the player's chart and table."""

from __future__ import annotations

import re

import pytest

from engine import Pass
from matches.models import Match
from ratings.models import RatingChange
from tests.e2e.browser import expect
from tests.matches.helpers import commit_now
from tournaments import services as organising

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _pass(match: Match, member) -> None:
    commit_now(match, member, Pass(), assert_accepted=True)


def test_a_rated_match_ends_and_both_players_see_their_rating_change(
    open_page, organiser, alice, bob
) -> None:
    match = organising.create_fixture(
        organiser=organiser, name="Rated evening", first=alice, second=bob, rated=True
    )
    assert match.status == Match.Status.LIVE
    page = open_page(f"/matches/{match.id}/", alice)
    bobs = open_page(f"/matches/{match.id}/", bob)
    expect(page.locator("#rated-note")).to_contain_text("A rated match")

    # Five scoreless turns; Bob's pass, in his browser, is the sixth and ends the game.
    for member in (alice, bob, alice, bob, alice):
        _pass(match, member)
    # His page must have heard all five first: clicked while it shows an earlier turn of
    # his, the news of the passes after it closes the confirmation before he can answer it.
    expect(bobs.locator("#moves li")).to_have_count(5)
    expect(bobs.locator("#turn-line")).to_contain_text("Your turn")
    bobs.get_by_role("button", name="Pass…").click()
    bobs.get_by_role("button", name="Yes, pass").click()
    expect(page.locator("#match-ended-by")).to_have_text("Six scoreless turns")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED

    changes = {c.member_id: c for c in RatingChange.objects.filter(match=match)}
    assert set(changes) == {alice.pk, bob.pk}
    mine = round(changes[alice.pk].rating_after) - round(changes[alice.pk].rating_before)
    signed = f"{mine:+d}" if mine else "±0"

    # The result on the match page carries each player's change.
    page.reload()
    section = page.locator("#rating-changes")
    expect(section).to_contain_text("Rating changes")
    expect(section.locator("li").filter(has_text="alice")).to_contain_text(signed)
    expect(section.locator("li").filter(has_text="alice")).to_contain_text(
        f"1500? → {round(changes[alice.pk].rating_after)}?"
    )

    # Her name leads to her page: the chart, and the same change in its table.
    section.get_by_role("link", name="alice").click()
    expect(page).to_have_url(re.compile(r"/players/alice/$"))
    chart = page.get_by_role("img", name="Rating history in word-duel")
    expect(chart).to_be_visible()
    expect(chart.locator("path.mark")).to_have_count(2)
    row = page.locator("table.rating-history tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Rated evening")
    expect(row.locator("td.rating-change")).to_have_text(
        f"+{mine}" if mine > 0 else (str(mine) if mine else "±0")
    )

    # The leaderboard ranks both, each marked provisional after one game (nobody settled).
    page.get_by_role("link", name="Ratings", exact=True).click()
    for name in ("alice", "bob"):
        row = page.locator("#leaderboard tbody tr").filter(has_text=name)
        expect(row).to_contain_text("provisional")
        expect(row.locator("abbr[title=provisional]")).to_have_text(re.compile(r"^\d+\?$"))
