"""After a game against the computer, in a real browser: its member finds "Your moves against
the computer's best" on the match page, a table a screen reader can name and read (caption,
column and row headers), with the points each move lost and the points left on the board;
the live page (board.js) leaves it in place. A member watching sees no such section.

The game is the one tests/practice/test_review.py plays (a fixed deal, the computer at Hard
answering each move in this process), so its figures are known before the page is opened.
"""

from __future__ import annotations

import pytest

from matches import services
from matches.models import Match
from tests.e2e.browser import expect
from tests.practice.fixtures import eager_tasks  # noqa: F401 (a fixture)
from tests.practice.test_review import PLAN, against_the_computer, members_turn

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_member_reads_her_moves_against_the_best(
    open_page,
    make_fixture,
    organiser,
    alice,
    bob,
    eager_tasks,  # noqa: F811
) -> None:
    match = against_the_computer(make_fixture, organiser, alice)
    # Outside a transaction each commit's queued turn of the computer runs at once.
    expected = [members_turn(match, alice, intent) for intent in PLAN]
    services.match_resign(match_id=match.id, member=alice, client_id="e2e-resign")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED

    page = open_page(f"/matches/{match.id}/", alice)
    section = page.get_by_role("region", name="Your moves against the computer's best")
    expect(section).to_be_visible()
    table = section.get_by_role("table", name="Each of your moves beside the computer's best")
    expect(table).to_be_visible()
    expect(table.get_by_role("columnheader")).to_have_count(7)
    body_rows = table.locator("tbody tr")
    expect(body_rows).to_have_count(len(expected))
    for index, turn in enumerate(expected):
        row = body_rows.nth(index)
        expect(row.get_by_role("rowheader")).to_have_text(str(turn.number))
        expect(row.locator("td").last).to_contain_text(str(turn.lost))
    total = sum(turn.lost for turn in expected)
    expect(section.locator("#points-left")).to_contain_text(f"Points left on the board: {total}")
    expect(table.locator("tfoot td")).to_have_text(str(total))

    watching = open_page(f"/matches/{match.id}/", bob)
    expect(watching.locator("#moves")).to_be_visible()
    expect(watching.locator("#practice-review")).to_have_count(0)


def test_a_game_that_ends_on_the_open_page_leads_to_the_review(
    open_page,
    make_fixture,
    organiser,
    alice,
    eager_tasks,  # noqa: F811
) -> None:
    match = against_the_computer(make_fixture, organiser, alice)
    first = members_turn(match, alice, "best")
    page = open_page(f"/matches/{match.id}/", alice)
    next_step = page.locator("#practice-review-next")
    expect(next_step).to_be_hidden()  # a promise for the end, not shown during the game
    expect(page.locator("#practice-review")).to_have_count(0)

    page.get_by_role("button", name="Resign…").click()
    page.get_by_role("button", name="Yes, resign").click()
    expect(next_step).to_be_visible()
    next_step.get_by_role("link", name="see your moves against the computer's best").click()
    section = page.get_by_role("region", name="Your moves against the computer's best")
    expect(section).to_be_visible()
    rows = section.locator("tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first.get_by_role("rowheader")).to_have_text(str(first.number))
    expect(rows.first.locator("td").last).to_contain_text("0 (as good as the best)")
    expect(page.locator("#practice-review-next")).to_have_count(0)
