"""The How to play page in a real browser: reached from the nav of every page (the home page
and a match page, signed in or not), readable on a desktop and on a phone without the page
scrolling sideways.

With ``SAVE_SCREENSHOTS=1`` the pictures replace ``docs/screenshots/how-to-play-*.png``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.e2e.browser import expect
from tests.e2e.conftest import PHONE
from wordduel import guide

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


def nav_link(page: Page):
    return page.get_by_role("navigation", name="Main").get_by_role("link", name="How to play")


def assert_guide(page: Page) -> None:
    expect(page).to_have_url(re.compile(r"/how-to-play/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("How to play Word Duel")
    expect(page.locator("table.board.diagram")).to_have_count(len(guide.SCORING_EXAMPLES))
    expect(page.locator('[data-check="opening.total"]')).to_be_visible()
    expect(nav_link(page)).to_have_attribute("href", "/how-to-play/")


def no_sideways_scroll(page: Page) -> None:
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    wide = page.evaluate(
        """(width) => [...document.querySelectorAll("main *")].filter((el) => {
             const box = el.getBoundingClientRect();
             if (box.width === 0 || el.closest(".board-wrap, .table-wrap")) return false;
             return box.right > width + 1;
           }).map((el) => el.tagName + "." + el.className)""",
        width,
    )
    assert wide == [], wide


def test_the_home_page_nav_leads_to_how_to_play(open_page) -> None:
    page = open_page("/", wait=False)
    nav_link(page).click()
    assert_guide(page)


def test_a_match_page_nav_leads_to_how_to_play(open_page, live_match, alice) -> None:
    for member in (alice, None):  # a player, and a visitor watching
        page = open_page(f"/matches/{live_match.id}/", member)
        nav_link(page).click()
        assert_guide(page)


def test_the_page_fits_a_phone_and_its_contents_link_within(open_page, tmp_path) -> None:
    page = open_page("/how-to-play/", viewport=PHONE, is_mobile=True, has_touch=True, wait=False)
    assert_guide(page)
    no_sideways_scroll(page)
    # The example boards scroll in their own frames if they need to, never the page.
    for board in page.locator(".example-board .board-wrap").all():
        assert board.evaluate("el => el.getBoundingClientRect().right") <= PHONE["width"]
    page.get_by_role("navigation", name="On this page").get_by_role(
        "link", name="The three deadlines"
    ).click()
    expect(page).to_have_url(re.compile(r"#deadlines$"))
    expect(page.get_by_role("heading", name="The three deadlines")).to_be_in_viewport()
    question = page.get_by_text("Why was QI (or ZA) refused?")
    question.click()
    expect(page.get_by_text("They are not in ENABLE")).to_be_visible()
    no_sideways_scroll(page)
    _screenshot(page, tmp_path, "how-to-play-phone.png")


def test_the_page_on_a_desktop(open_page, tmp_path) -> None:
    page = open_page("/how-to-play/", wait=False)
    assert_guide(page)
    no_sideways_scroll(page)
    _screenshot(page, tmp_path, "how-to-play-desktop.png")


def _screenshot(page: Page, tmp_path: Path, name: str) -> None:
    folder = ROOT / "docs" / "screenshots" if os.environ.get("SAVE_SCREENSHOTS") else tmp_path
    page.screenshot(path=str(folder / name), full_page=True)
