"""The word checker page in a real browser, signed out: several words at once, each verdict
the board's, another board's longest word, and a bad word refused with its reason."""

from __future__ import annotations

import pytest

from tests.e2e.browser import expect
from tests.e2e.conftest import PHONE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_visitor_checks_words_and_is_told_what_is_wrong(open_page) -> None:
    page = open_page("/words/", wait=False)
    expect(page.get_by_role("heading", name="Check words")).to_be_visible()

    page.get_by_label("Words").fill("cat, qat zzz abbreviation")
    page.get_by_role("button", name="Check").click()
    verdicts = page.locator("#verdicts li")
    expect(verdicts).to_have_count(4)
    expect(page.locator('li[data-word="CAT"]')).to_have_attribute("data-accepted", "yes")
    expect(page.locator('li[data-word="QAT"]')).to_have_attribute("data-accepted", "yes")
    expect(page.locator('li[data-word="ZZZ"]')).to_have_attribute("data-accepted", "no")
    expect(page.locator('li[data-word="ZZZ"]')).to_contain_text("not accepted")
    expect(page.locator('li[data-word="ABBREVIATION"]')).to_have_attribute("data-accepted", "yes")
    expect(page.get_by_label("Words")).to_have_value("cat, qat zzz abbreviation")

    # The same words for an outspell match: its 11 x 11 board holds no 12-letter word.
    page.get_by_label("Rules (the board's size sets the longest word)").select_option("outspell")
    page.get_by_role("button", name="Check").click()
    expect(page.locator('li[data-word="ABBREVIATION"]')).to_have_attribute("data-accepted", "no")
    expect(page.locator('li[data-word="CAT"]')).to_have_attribute("data-accepted", "yes")
    assert "ruleset=outspell" in page.url

    page.get_by_label("Words").fill("cat d0g")
    page.get_by_role("button", name="Check").click()
    expect(page.get_by_role("alert")).to_have_text("'d0g' is not a word: use letters A-Z.")
    expect(page.locator("#verdicts")).to_have_count(0)


def test_the_checker_fits_a_phone(open_page) -> None:
    page = open_page("/words/?q=cat+dog", wait=False, viewport=PHONE)
    expect(page.locator("#verdicts li")).to_have_count(2)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
