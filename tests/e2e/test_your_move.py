"""Your move in the page, in a real browser: the tab's title and icon follow whose move it
is on the board (a browser notification when the tab is hidden and notifications are
allowed), and "Next match where it's my move" takes the player to the board waiting.

The moves come from the other member's browser (or the service, as the consumer makes
them) over the real websocket and channel layer (Daphne is started by ``conftest.py``).
"""

from __future__ import annotations

import re

import pytest

from matches.models import Match
from tests.e2e.browser import expect
from tests.e2e.test_board import match_url
from tests.matches.helpers import commit_now, title_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

YOUR_MOVE = re.compile(r"^Your move · ")

# The tab can be made "hidden" by the test, and every browser notification is recorded
# (with notifications allowed), as a real one would show on the desktop.
NOTIFICATION_SPY = """
window.__hidden = false;
Object.defineProperty(Document.prototype, "hidden", { get() { return window.__hidden; } });
window.__notifications = [];
window.Notification = class {
  static permission = "granted";
  static requestPermission() { return Promise.resolve("granted"); }
  constructor(title, options) { window.__notifications.push({ title, ...options }); }
  addEventListener() {}
  close() {}
};
"""


def _icon(page) -> str:
    return page.locator('link[rel="icon"]').get_attribute("data-your-move") or ""


def test_the_title_says_your_move_when_the_opponent_commits(open_page, live_match, alice, bob):
    match = live_match
    first = open_page(match_url(match), alice)
    second = open_page(match_url(match), bob, init_script=NOTIFICATION_SPY)
    spectator = open_page(match_url(match))
    expect(first).to_have_title(YOUR_MOVE)
    expect(first).to_have_title(f"Your move · {title_of(match)} · Word Duel")
    assert _icon(first) == "yes"
    expect(second).to_have_title(f"{title_of(match)} · Word Duel")
    assert _icon(second) == "no"

    # Bob's tab is in the background when alice passes (from her browser).
    second.evaluate("window.__hidden = true")
    first.get_by_role("button", name="Pass…").click()
    first.get_by_role("button", name="Yes, pass").click()
    expect(second).to_have_title(f"Your move · {title_of(match)} · Word Duel")
    expect(second.locator('link[rel="icon"]')).to_have_attribute("data-your-move", "yes")
    expect(first).to_have_title(f"{title_of(match)} · Word Duel")
    expect(first.locator('link[rel="icon"]')).to_have_attribute("data-your-move", "no")
    notes = second.evaluate("window.__notifications")
    assert len(notes) == 1
    assert notes[0]["title"] == f"Your move: {title_of(match)}"
    assert notes[0]["tag"] == f"wordduel-your_move-{match.id}"
    # A watcher is never told it is their move.
    expect(spectator).to_have_title(f"{title_of(match)} · Word Duel")

    # Bob's tab is in front when alice's turn comes back and goes again: no notification
    # while he is looking, only the title.
    second.evaluate("window.__hidden = false")
    second.get_by_role("button", name="Pass…").click()
    second.get_by_role("button", name="Yes, pass").click()
    expect(first).to_have_title(YOUR_MOVE)
    expect(second).not_to_have_title(YOUR_MOVE)
    commit_now(match, alice, {"kind": "pass"}, assert_accepted=True)
    expect(second).to_have_title(YOUR_MOVE)
    assert len(second.evaluate("window.__notifications")) == 1


def test_next_match_where_its_my_move_goes_to_the_board_waiting(
    open_page, make_fixture, alice, bob
):
    # Two boards: alice's move on "Ours", bob's on "Theirs" (bob moves first there).
    ours = make_fixture(first=alice, second=bob, name="Ours")
    theirs = make_fixture(first=bob, second=alice, name="Theirs")
    assert Match.objects.filter(status=Match.Status.LIVE).count() == 2

    page = open_page(match_url(ours), alice, clock=True)
    button = page.get_by_role("button", name=re.compile("Next match where it's my move"))
    expect(page).to_have_title(YOUR_MOVE)
    expect(button).to_be_hidden()  # nothing else waits for her

    # Bob moves on the other board: within a minute her button offers it.
    commit_now(theirs, bob, {"kind": "pass"}, assert_accepted=True)
    page.clock.fast_forward("01:01")
    expect(button).to_be_visible()
    expect(button).to_have_text("Next match where it's my move (1)")
    button.click()
    expect(page).to_have_url(re.compile(rf"/matches/{theirs.id}/$"))
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    expect(page).to_have_title(f"Your move · {title_of(theirs)} · Word Duel")

    # From there, the next board waiting is the first one again (the current one skipped).
    button.click()
    expect(page).to_have_url(re.compile(rf"/matches/{ours.id}/$"))
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")

    # She moves here: the button is hidden when no board but this one... and shown again
    # now that "Theirs" is the only board waiting and this one no longer is.
    page.get_by_role("button", name="Pass…").click()
    page.get_by_role("button", name="Yes, pass").click()
    expect(page).not_to_have_title(YOUR_MOVE)
    expect(button).to_have_text("Next match where it's my move (1)")
    button.click()
    expect(page).to_have_url(re.compile(rf"/matches/{theirs.id}/$"))
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    expect(button).to_be_hidden()
