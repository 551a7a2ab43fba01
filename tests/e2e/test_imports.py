"""Importing a game in a real browser: upload a record, see its page at once and the best
plays appear when the import's task has run, step through the replay, see a phony flagged and
the best play beside it; another member sees it only through the share link."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from imports import tasks
from imports.models import ImportedGame
from tests.e2e.browser import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RECORD = Path(__file__).resolve().parents[1] / "fixtures" / "gcg" / "phonies_formed.gcg"


def test_upload_replay_and_share(open_page, make_member) -> None:
    owner, other = make_member(), make_member()
    page = open_page("/", owner, wait=False)
    page.get_by_role("link", name="Import a game").first.click()
    page.get_by_label("GCG file").set_input_files(str(RECORD))
    page.get_by_label("Rules").select_option("classic")
    page.get_by_role("button", name="Import").click()

    game = ImportedGame.objects.get(owner=owner)
    url = f"/imports/{game.pk}/"
    expect(page).to_have_url(re.compile(rf"{re.escape(url)}$"))
    # The page opens at once; the best plays follow when the import's task has run.
    expect(page.locator("#import-status")).to_contain_text("Finding the best play of each rack")
    assert tasks.analyse_import(game.pk) == "done"  # as the import worker does
    expect(page.locator("#import-status")).to_have_count(0, timeout=20_000)  # it reloads itself
    expect(page.locator("#imported")).to_have_attribute("data-ready", "yes")
    expect(page.locator("#replay-position")).to_have_text("Turn 23 of 23")
    first = page.locator("#turn-1")
    expect(first.locator(".flag")).to_have_text("Not in ENABLE: CRAMESY.")
    expect(first.locator(".best")).to_contain_text("Best play: H3 CYMARS +34")

    # Stepping happens in the page: a value set now survives every step (no reload).
    page.evaluate("window.__samePage = true")
    page.get_by_role("link", name="First").click()
    expect(page.locator("#replay-position")).to_have_text("Before the first turn")
    expect(page.locator("#board td.tile")).to_have_count(0)
    page.get_by_role("link", name="Forward").click()
    expect(page.locator("#replay-position")).to_have_text("Turn 1 of 23")
    expect(page.locator("#board td.tile.last")).to_have_count(7)
    expect(page.locator('#board td[data-square="D8"]')).to_have_text("C")
    expect(page.locator("#turn-1")).to_have_attribute("aria-current", "step")
    expect(page.locator("#total-0")).to_have_text("84")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-position")).to_have_text("Turn 2 of 23")
    expect(page.locator("#board td.tile")).to_have_count(11)
    expect(page.locator("#total-1")).to_have_text("33")
    expect(page).to_have_url(re.compile(r"turn=2$"))
    assert page.evaluate("window.__samePage") is True
    page.locator("#turn-22 a[data-step]").click()
    expect(page.locator("#replay-position")).to_have_text("Turn 22 of 23")

    # Private: another member is told there is nothing there.
    outsider = open_page(url, other, wait=False)
    expect(outsider.get_by_role("heading", name="Not found")).to_be_visible()
    assert "CRAMESY" not in outsider.content()

    page.get_by_role("button", name="Share by link").click()
    link = page.locator("#share-link").input_value()
    assert "key=" in link
    guest = open_page(link, other, wait=False)
    expect(guest.get_by_role("heading", name="New Player 1 vs Quackle")).to_be_visible()
    expect(guest.locator("#turn-1 .flag")).to_have_text("Not in ENABLE: CRAMESY.")
    expect(guest.locator("#share")).to_have_count(0)  # only the owner manages the link

    page.get_by_role("button", name="New link").click()
    expect(page.locator("#share-link")).not_to_have_value(link)
    stale = open_page(link, other, wait=False)
    expect(stale.get_by_role("heading", name="Not found")).to_be_visible()
