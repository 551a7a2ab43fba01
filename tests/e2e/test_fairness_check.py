"""The fairness check in a real browser: a finished game's page checks its own bag and turn
chain with Web Crypto; served from a database where a draw or a past turn was changed, the
same page shows the failure and names the turn."""

from __future__ import annotations

import re

import pytest

from matches.models import Match, Turn
from tests.e2e.browser import expect
from tests.matches.test_records import play_out

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def finished(live_match: Match, alice, bob) -> Match:
    match = play_out(live_match, (alice, bob), seed=3)
    assert match.is_over
    return match


def run_check(page):
    page.get_by_role("button", name="Check this game's bag").click()
    box = page.locator("#fairness-check")
    expect(box).not_to_have_attribute("data-state", re.compile("ready|running"), timeout=20_000)
    return box


def test_a_finished_games_check_passes_for_a_player_and_a_spectator(
    open_page, finished: Match, alice
) -> None:
    page = open_page(f"/matches/{finished.id}/", alice)
    box = run_check(page)
    expect(box).to_have_attribute("data-state", "passed")
    expect(box).to_contain_text("The seed matches the commitment published before the game.")
    expect(box).to_contain_text(re.compile(r"All \d+ draws you can see match the seed"))
    expect(box).to_contain_text(f"All {finished.turn_number} turns are chained")
    expect(page.locator("#fairness-download")).to_have_attribute(
        "href", f"/matches/{finished.id}/verify.py"
    )

    watcher = open_page(f"/matches/{finished.id}/", None)
    box = run_check(watcher)
    expect(box).to_have_attribute("data-state", "passed")
    expect(box).to_contain_text(re.compile(r"All \d+ plays you can check used only tiles"))


def test_an_altered_draw_fails_and_names_the_turn(open_page, finished: Match, alice) -> None:
    turn = finished.turns.filter(position=0).exclude(drawn="").order_by("number").first()
    assert turn is not None
    Turn.objects.filter(pk=turn.pk).update(drawn="Z" * len(turn.drawn))
    page = open_page(f"/matches/{finished.id}/", alice)
    box = run_check(page)
    expect(box).to_have_attribute("data-state", "failed")
    expect(box.locator(f"li.error[data-turn='{turn.number}']")).to_contain_text(
        f"Turn {turn.number}: you drew"
    )


def test_an_altered_past_turn_fails_and_names_the_turn(open_page, finished: Match, bob) -> None:
    Turn.objects.filter(match=finished, number=6).update(score=77)
    page = open_page(f"/matches/{finished.id}/", bob)
    box = run_check(page)
    expect(box).to_have_attribute("data-state", "failed")
    expect(box.locator("li.error[data-turn='6']")).to_contain_text(
        "Turn 6's record does not match the hash published with it."
    )
