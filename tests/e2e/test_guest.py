"""A visitor plays the computer in a real browser without an account, as a guest: "Play the
computer now" on the home page, a word played with the mouse over the guest's socket, the
computer's answer arriving live, a reload that continues the game, then a sign-up in the same
browser after which the game is in the new member's matches and they play on.

The computer's answer is made here by ``run_computer_turn``, the function its Celery task
runs (tests/e2e/test_practice.py runs it in a real worker), and reaches the browser through
the real channel layer like any move.
"""

from __future__ import annotations

import pytest

from accounts.models import Club, Member
from matches.models import Match, Turn
from practice.services import COMPUTER_USERNAME
from practice.tasks import run_computer_turn
from tests.e2e.browser import expect
from tests.e2e.test_board import stage_by_clicks
from tests.e2e.test_practice import her_play

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PASSWORD = "kq7-Vwz3-Pm9t-guest"


def test_a_guest_plays_reloads_signs_up_and_finds_the_game(open_page) -> None:
    Club.objects.update_or_create(pk=1, defaults={"sign_up": Club.SignUp.OPEN})
    page = open_page("/", wait=False)
    page.get_by_role("button", name="Play the computer now").click()
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    guest = Member.objects.get(membership=Member.Membership.GUEST)
    match = Match.objects.get(seats__member=guest)
    assert page.url.endswith(f"/matches/{match.id}/")
    assert match.rated is False
    expect(page.locator("#turn-line")).to_contain_text("Your turn")

    tiles = her_play(match, guest)
    page.reload()
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    stage_by_clicks(page, tiles)
    page.get_by_role("button", name="Play word").click()
    expect(page.locator("#status")).to_contain_text("You played")
    assert Turn.objects.get(match=match, number=1).position == 0  # over the guest's socket

    assert run_computer_turn(match.id) != "not the computer's turn"
    expect(page.locator("#moves")).to_contain_text(COMPUTER_USERNAME, timeout=30_000)
    expect(page.locator("#turn-line")).to_contain_text("Your turn")

    # A reload continues the game: the same board, both moves, the guest to play.
    page.reload()
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    expect(page.locator("#moves")).to_contain_text(COMPUTER_USERNAME)
    expect(page.locator("#turn-line")).to_contain_text("Your turn")

    page.goto("/accounts/sign-up/")
    page.locator("#id_username").fill("newcomer")
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_text("Your games as a guest are now yours")).to_be_visible()
    member = Member.objects.get(username="newcomer")
    assert not Member.objects.filter(pk=guest.pk).exists()

    page.goto("/me/matches/")
    page.locator(f'a[href="/matches/{match.id}/"]').first.click()
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    expect(page.locator("#turn-line")).to_contain_text("Your turn")
    assert match.seats.get(position=0).member == member
    # The member plays on, now over their own signed-in socket.
    tiles = her_play(match, member)
    page.reload()
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    stage_by_clicks(page, tiles)
    page.get_by_role("button", name="Play word").click()
    expect(page.locator("#status")).to_contain_text("You played")
    assert Turn.objects.get(match=match, number=3).position == 0
