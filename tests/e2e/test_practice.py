"""Play the computer, in a real browser, with a real Celery worker making the computer's moves.

A member chooses a level on the home page and is on the board at once; she plays a word with
the mouse, the computer's answer arrives over the socket (made by the worker through the
commit service), and she changes the level during the game.
"""

from __future__ import annotations

import random

import pytest

from engine import Play
from matches import services, visibility
from matches.models import Match, Turn
from practice.models import ComputerOpponent
from practice.opponent import computer_move
from practice.services import COMPUTER_USERNAME
from tests.e2e.browser import expect
from tests.e2e.test_board import stage_by_clicks, trade_in
from tests.matches.test_clock_celery import celery_worker_with_beat  # noqa: F401 (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def her_play(match: Match, member) -> list[dict[str, object]]:
    """The tiles of the best play from her own view (her rack topped up with A and T first if
    it has no word at all)."""
    for attempt in range(2):
        view = visibility.match_view(
            services.look_at_match(user=member, match_id=match.id, key=None)
        )
        choice = computer_move(view, level="hard", rng=random.Random(0))
        if isinstance(choice.move.move, Play):
            return [tile.to_dict() for tile in choice.move.move.tiles]
        assert attempt == 0
        trade_in(match, 0, "AT")
    raise AssertionError("no play")


def test_a_member_plays_the_computer_and_changes_its_level(
    open_page,
    alice,
    celery_worker_with_beat,  # noqa: F811
) -> None:
    process, log = celery_worker_with_beat
    page = open_page("/", alice, wait=False)
    page.get_by_label("Level").select_option("hard")
    page.get_by_role("button", name="Play the computer").click()
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    match = Match.objects.get(seats__member=alice)
    assert page.url.endswith(f"/matches/{match.id}/")
    assert ComputerOpponent.objects.get(match=match).level == "hard"
    expect(page.locator("#turn-line")).to_contain_text("Your turn")

    tiles = her_play(match, alice)
    page.reload()
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    stage_by_clicks(page, tiles)
    page.get_by_role("button", name="Play word").click()
    expect(page.locator("#status")).to_contain_text("You played")

    # The computer's answer, made by the worker, arrives without a reload.
    expect(page.locator("#moves")).to_contain_text(COMPUTER_USERNAME, timeout=30_000)
    expect(page.locator("#turn-line")).to_contain_text("Your turn")
    assert process.poll() is None, log.read_text()
    answer = Turn.objects.get(match=match, number=2)
    assert answer.position == 1

    page.get_by_label("The computer plays").select_option("easy")
    page.get_by_role("button", name="Change").click()
    expect(page.get_by_text("The computer now plays Easy.")).to_be_visible()
    assert ComputerOpponent.objects.get(match=match).level == "easy"
