"""The last play shown again, tile by tile, and the unseen-tiles tracker, in a real browser.

Two members play over the real websocket and channel layer while a signed-out spectator
watches (Daphne is started by ``conftest.py``); the moves go through the services, as the
consumer makes them. What each page's tracker must show is worked out here from the
database's rows: the ruleset's tiles less the board (a blank as a blank) and less the
viewer's own rack (a spectator: the board only).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from playwright.sync_api import Page

from engine import get_ruleset
from matches.models import Match, Turn
from tests.e2e.browser import expect
from tests.e2e.conftest import PHONE
from tests.e2e.test_board import cell, legal_play, match_url, square, trade_in
from tests.matches.helpers import commit_now, rack_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TILE = re.compile(r"\btile\b")
LAST = re.compile(r"\blast\b")

#: First's opening: AT across the star, the A a blank.
BLANK_OPENING = {
    "kind": "play",
    "tiles": [
        {"row": 7, "col": 7, "letter": "A", "blank": True},
        {"row": 7, "col": 8, "letter": "T", "blank": False},
    ],
}

# Records, for the squares given, the order in which they become tiles, and each appearing
# tile's animation as the browser computes it.
WATCH_SQUARES = """
(squares) => {
  window.__appeared = [];
  window.__animations = [];
  const observer = new MutationObserver(() => {
    for (const name of squares) {
      const td = document.querySelector(`td[data-square="${name}"]`);
      const isTile = td.classList.contains("tile");
      if (isTile && !window.__appeared.includes(name)) window.__appeared.push(name);
      if (!isTile) window.__appeared = window.__appeared.filter((n) => n !== name);
      if (td.classList.contains("appearing")) {
        window.__animations.push(getComputedStyle(td).animationName);
      }
    }
  });
  observer.observe(document.getElementById("board"), { subtree: true, attributes: true,
                                                        attributeFilter: ["class"] });
}
"""


# ------------------------------------------------------------------ helpers


def open_with_a_blank(match: Match, first: Any) -> None:
    """First opens with AT, the A a blank (the rack given a blank and a T first)."""
    trade_in(match, 0, "?T")
    commit_now(match, first, BLANK_OPENING, assert_accepted=True)


def a_longer_play(match: Match) -> dict[str, Any]:
    """A legal play of three tiles or more for the player to move."""
    for seed in range(60):
        play = legal_play(match, seed)
        if len(play["tiles"]) >= 3:
            return play
    raise AssertionError("no play of three tiles or more")


def expected_unseen(match: Match, position: int | None) -> list[list[Any]]:
    """What the seat ``position`` (None: a spectator) may count as unseen, A to Z then ?."""
    unseen = Counter(dict(get_ruleset(match.ruleset).distribution))
    for turn in Turn.objects.filter(match=match, kind=Turn.Kind.PLAY):
        unseen.subtract("?" if tile["blank"] else tile["letter"] for tile in turn.placement)
    if position is not None:
        unseen.subtract(rack_of(match, position))
    order = [*"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "?"]
    return [[tile, unseen[tile]] for tile in order if unseen[tile] > 0]


def tracker(page: Page) -> list[list[Any]]:
    return page.evaluate(
        "[...document.querySelectorAll('#unseen-tiles li')]"
        ".map((li) => [li.dataset.tile, Number(li.dataset.count)])"
    )


def expect_tracker(page: Page, expected: list[list[Any]]) -> None:
    """The page's tracker comes to show ``expected`` (it follows the news without a reload)."""
    try:
        page.wait_for_function(
            "(expected) => JSON.stringify([...document.querySelectorAll('#unseen-tiles li')]"
            ".map((li) => [li.dataset.tile, Number(li.dataset.count)]))"
            " === JSON.stringify(expected)",
            arg=expected,
            timeout=15_000,
        )
    except Exception:
        assert tracker(page) == expected  # says what differs
        raise


def expect_summary(page: Page, expected: list[list[Any]]) -> None:
    counts = dict(expected)
    total = sum(counts.values())
    vowels = sum(counts.get(tile, 0) for tile in "AEIOU")
    blanks = counts.get("?", 0)

    def n(count: int, word: str) -> str:
        return f"{count} {word}{'' if count == 1 else 's'}"

    consonants = n(total - vowels - blanks, "consonant")
    expect(page.locator("#unseen-summary")).to_have_text(
        f"{total} unseen: {n(vowels, 'vowel')}, {consonants}, {n(blanks, 'blank')}."
    )


# ------------------------------------------------------------------ the last play, again


def test_the_opponents_last_play_is_shown_again_tile_by_tile_from_the_keyboard(
    open_page, live_match, alice, bob
) -> None:
    match = live_match
    open_with_a_blank(match, alice)
    play = a_longer_play(match)
    commit_now(match, bob, play, assert_accepted=True)
    squares = [
        square(t["row"], t["col"])
        for t in sorted(play["tiles"], key=lambda t: (t["row"], t["col"]))
    ]
    word = Turn.objects.get(match=match, number=2).words[0]["tiles"].upper()
    page = open_page(match_url(match), alice)

    line = page.locator("#last-move")
    expect(line).to_contain_text(f"Last move: bob played {word}")
    button = page.get_by_role("button", name=f"Show again: bob's {word}", exact=False)
    expect(button).to_be_visible()
    for name in squares:
        expect(cell(page, name)).to_have_class(LAST)

    page.evaluate(WATCH_SQUARES, squares)
    button.focus()
    page.keyboard.press("Enter")
    # The board as it was before the play: its squares empty, the opening still there.
    for name in squares:
        expect(cell(page, name)).not_to_have_class(TILE)
    expect(cell(page, "H8")).to_have_class(TILE)
    expect(page.locator("#status")).to_contain_text(f"Showing bob's {word} again: ")
    expect(page.get_by_role("button", name=re.compile(r"^Stop showing"))).to_be_focused()
    # Then its tiles, one at a time, in the order they spell; then the live board again.
    expect(page.locator("#match")).not_to_have_class(re.compile(r"showing-last"), timeout=20_000)
    assert page.evaluate("window.__appeared") == squares
    animations = page.evaluate("window.__animations")
    assert animations, "no tile appeared"
    assert set(animations) == {"tile-appear"}, animations
    for name in squares:
        expect(cell(page, name)).to_have_class(LAST)
    expect(button).to_be_focused()

    # Escape stops it at once, the live board back.
    button.press("Enter")
    for name in squares:
        expect(cell(page, name)).not_to_have_class(TILE)
    page.keyboard.press("Escape")
    for name in squares:
        expect(cell(page, name)).to_have_class(TILE)
    expect(page.locator("#match")).not_to_have_class(re.compile(r"showing-last"))


def test_under_reduced_motion_the_tiles_appear_without_animation(
    open_page, live_match, alice, bob
) -> None:
    match = live_match
    open_with_a_blank(match, alice)
    play = a_longer_play(match)
    commit_now(match, bob, play, assert_accepted=True)
    squares = [
        square(t["row"], t["col"])
        for t in sorted(play["tiles"], key=lambda t: (t["row"], t["col"]))
    ]
    page = open_page(match_url(match), reduced_motion="reduce")  # a spectator, too

    page.evaluate(WATCH_SQUARES, squares)
    page.get_by_role("button", name=re.compile(r"Show again: bob's")).click()
    expect(page.locator("#match")).to_have_class(re.compile(r"showing-last"))
    expect(page.locator("#match")).not_to_have_class(re.compile(r"showing-last"), timeout=20_000)
    assert page.evaluate("window.__appeared") == squares
    animations = page.evaluate("window.__animations")
    assert animations, "no tile appeared"
    assert set(animations) == {"none"}, animations


def test_news_during_the_showing_brings_the_live_board_back(
    open_page, live_match, alice, bob
) -> None:
    match = live_match
    open_with_a_blank(match, alice)
    page = open_page(match_url(match), alice)
    bob_page = open_page(match_url(match), bob)
    bob_page.get_by_role("button", name=re.compile(r"Show again: alice's AT")).click()
    expect(cell(bob_page, "H8")).not_to_have_class(TILE)
    play = a_longer_play(match)
    commit_now(match, bob, play, assert_accepted=True)
    expect(bob_page.locator("#match")).not_to_have_class(re.compile(r"showing-last"))
    expect(cell(bob_page, "H8")).to_have_class(TILE)
    for tile in play["tiles"]:
        expect(cell(bob_page, square(tile["row"], tile["col"]))).to_have_class(LAST)
    expect(page.locator("#last-move")).to_contain_text("Last move: bob played")


# ------------------------------------------------------------------ the unseen tiles


def test_each_viewer_sees_the_tiles_they_have_not_seen_and_no_more(
    open_page, live_match, alice, bob
) -> None:
    match = live_match
    first = open_page(match_url(match), alice)
    second = open_page(match_url(match), bob)
    spectator = open_page(match_url(match))
    for page, position in ((first, 0), (second, 1), (spectator, None)):
        expect_tracker(page, expected_unseen(match, position))

    # Moves arrive as news: each tracker follows without a reload. The blank on the board
    # counts as a blank, not as the A it stands for.
    open_with_a_blank(match, alice)
    commit_now(match, bob, a_longer_play(match), assert_accepted=True)
    match.refresh_from_db()
    for page, position in ((first, 0), (second, 1), (spectator, None)):
        expected = expected_unseen(match, position)
        expect_tracker(page, expected)
        expect_summary(page, expected)
    whole = Counter(dict(get_ruleset(match.ruleset).distribution))
    assert dict(tracker(spectator))["?"] == whole["?"] - 1

    # The count is what the table shows as counts: the bag and the opponent's rack (a
    # spectator: the bag and both racks).
    opponents = {0: len(rack_of(match, 1)), 1: len(rack_of(match, 0))}
    for page, position in ((first, 0), (second, 1)):
        total = sum(count for _, count in tracker(page))
        assert total == match.bag_count + opponents[position]
        name = "bob" if position == 0 else "alice"
        expect(page.locator("#unseen-where")).to_have_text(
            f"In the bag ({match.bag_count}) and on {name}'s rack ({opponents[position]})."
        )
    racks = opponents[0] + opponents[1]
    assert sum(count for _, count in tracker(spectator)) == match.bag_count + racks
    expect(spectator.locator("#unseen-where")).to_have_text(
        f"In the bag ({match.bag_count}) and on the racks ({racks})."
    )

    # Readable by a screen reader: a headed region, a labelled list, the blank named.
    region = spectator.get_by_role("region", name="Unseen tiles")
    expect(region.get_by_role("list", name="Unseen tiles by letter")).to_be_visible()
    expect(spectator.locator('#unseen-tiles li[data-tile="?"]')).to_contain_text("? (blank) ×")

    # The page as the server first draws it says the same (a reload, before the socket).
    spectator.reload()
    expect(spectator.locator("#match")).to_have_attribute("data-synced", "yes")
    assert tracker(spectator) == expected_unseen(match, None)


def test_the_tracker_and_the_last_move_fit_a_phone(open_page, live_match, alice, bob) -> None:
    match = live_match
    open_with_a_blank(match, alice)
    commit_now(match, bob, a_longer_play(match), assert_accepted=True)
    page = open_page(match_url(match), alice, viewport=PHONE)
    expect(page.locator("#unseen-tiles li").first).to_be_visible()
    expect(page.locator("#show-last-play")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.locator("#unseen").scroll_into_view_if_needed()
    box = page.locator("#unseen-tiles").bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= PHONE["width"]
