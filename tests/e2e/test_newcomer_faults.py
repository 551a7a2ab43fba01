"""The ten board-page faults a newcomer met (issue 20), each as a browser would meet it.

Every test here failed against the page before its fix. Two members play over the real
websocket and channel layer (Daphne is started by ``conftest.py``); moves the test makes
itself go through the services, as the consumer makes them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.utils import timezone
from playwright.sync_api import Page

from accounts.models import Member
from engine import Pass, best_play, get_ruleset, legal_plays
from lexicon.lexicon import get_lexicon
from matches import services
from matches.models import Match, Seat
from tests.e2e.browser import expect
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.test_board import (
    STAGED,
    cell,
    legal_play,
    match_url,
    not_a_word_below,
    opening,
    rack_tile,
    sign_in,
    stage_by_clicks,
)
from tests.matches.helpers import assert_tiles_conserved, commit_now, game_of, rack_of, title_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


# ------------------------------------------------------------------ helpers


def play_greedily_until(
    match: Match, players: tuple[Member, Member], done: Callable[[Any], bool]
) -> Any:
    """Commit the best-scoring play (a pass when there is none) for whoever is to move until
    ``done(game)`` holds; the game then. The deal is seeded, so every run plays the same."""
    lexicon = get_lexicon("enable")
    for _ in range(200):
        game = game_of(match)
        assert not game.is_over, "the game ended before the position the test needs"
        if done(game):
            return game
        rack = game.racks[game.to_move]
        best = best_play(legal_plays(game.board, rack, ruleset=game.ruleset, lexicon=lexicon))
        move = best.move if best is not None else Pass()
        commit_now(match, players[game.to_move], move.to_dict(), assert_accepted=True)
    raise AssertionError("no such position in 200 moves")


def going_out_play(game: Any) -> dict[str, Any] | None:
    """A play of every tile on the mover's rack, once the bag is empty; else None."""
    if game.bag:
        return None
    rack = game.racks[game.to_move]
    plays = legal_plays(game.board, rack, ruleset=game.ruleset, lexicon=get_lexicon("enable"))
    outs = [play for play in plays if len(play.tiles) == len(rack)]
    return best_play(outs).move.to_dict() if outs else None


def rack_value(match: Match, position: int) -> int:
    return get_ruleset(match.ruleset).rack_value(tuple(rack_of(match, position)))


def page_width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


# ------------------------------------------------------------------ 1. the end's deductions


def test_1_the_end_shows_each_racks_deduction_on_the_page_and_in_the_replay(
    open_page, live_match, alice, bob
) -> None:
    match = live_match
    watcher = open_page(match_url(match))
    commit_now(match, alice, opening(match), assert_accepted=True)
    for turn in range(6):  # six scoreless turns in a row end the game
        commit_now(match, bob if turn % 2 == 0 else alice, {"kind": "pass"}, assert_accepted=True)
    match.refresh_from_db()
    assert match.end_reason == Match.EndReason.SIX_SCORELESS
    last = match.turns.order_by("number").last()
    before = (last.first_total, last.second_total)
    lost = (rack_value(match, 0), rack_value(match, 1))
    final = tuple(
        Seat.objects.filter(match=match).order_by("position").values_list("score", flat=True)
    )
    assert final == (before[0] - lost[0], before[1] - lost[1])
    tiles = (len(rack_of(match, 0)), len(rack_of(match, 1)))

    def shows_the_breakdown(page: Page) -> None:
        table = page.locator("#final-score")
        expect(table).to_be_visible()
        expect(table.locator("tr[data-row=before] td")).to_have_text(
            [str(before[0]), str(before[1])]
        )
        expect(table.locator("tr[data-row=adjustment]")).to_have_count(2)
        first, second = table.locator("tr[data-row=adjustment]").all()
        expect(first.locator("th")).to_have_text(
            f"alice (First): {tiles[0]} tiles left on the rack"
        )
        expect(first.locator("td")).to_have_text([f"−{lost[0]}", ""])
        expect(second.locator("th")).to_have_text(
            f"bob (Second): {tiles[1]} tiles left on the rack"
        )
        expect(second.locator("td")).to_have_text(["", f"−{lost[1]}"])
        expect(table.locator("tr[data-row=final] td")).to_have_text([str(final[0]), str(final[1])])

    # Live, as the game ends; then on a fresh page (the server's own rendering, redrawn).
    shows_the_breakdown(watcher)
    shows_the_breakdown(open_page(match_url(match)))
    # The replay's last step explains the final scores too; an earlier step does not.
    replay = open_page(f"{match_url(match)}?turn=7")
    expect(replay.locator("#replay-banner")).to_contain_text(
        f"Final score after the end-of-game rack adjustments: alice {final[0]}, bob {final[1]}."
    )
    shows_the_breakdown(replay)
    replay.get_by_role("button", name="Back").click()
    expect(replay.locator("#replay-banner")).to_contain_text("after move 6 of 7")
    expect(replay.locator("#final-score")).to_be_hidden()


# ------------------------------------------------------------------ 2. two tabs


def test_2_a_move_made_in_another_tab_is_reported_and_the_staged_tiles_come_back(
    open_page, live_match, alice, bob
) -> None:
    match = live_match
    commit_now(match, alice, opening(match), assert_accepted=True)
    commit_now(match, bob, {"kind": "pass"}, assert_accepted=True)
    tab_a = open_page(match_url(match), alice)
    expect(tab_a.locator("#status")).to_have_text("")
    tab_b = tab_a.context.new_page()
    tab_b.goto(match_url(match))
    expect(tab_b.locator("#match")).to_have_attribute("data-synced", "yes")

    tile = next(t for t in rack_of(match, 0) if t != "?")
    rack_tile(tab_a, tile).click()
    cell(tab_a, "H10").click()
    expect(cell(tab_a, "H10")).to_have_class(STAGED)

    tab_b.get_by_role("button", name="Pass…").click()
    tab_b.get_by_role("button", name="Yes, pass").click()
    expect(tab_b.locator("#status")).to_have_text("You passed.")

    expect(tab_a.locator("#status")).to_have_text("You passed, in another tab or window.")
    expect(tab_a.locator("td.staged")).to_have_count(0)
    expect(tab_a.locator("#hint")).to_have_text("Your tiles are back on the rack.")
    expect(tab_a.locator("#turn-line")).to_contain_text("bob (Second) to move")


# ------------------------------------------------------------------ 3. the fair bag's value


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_3_the_fair_bag_value_wraps_within_the_window(
    open_page, make_fixture, alice, bob, viewport
) -> None:
    match = make_fixture(first=alice, second=bob, kickoff_at=timezone.now() + timedelta(days=1))
    page = open_page(match_url(match), alice, viewport=viewport)
    value = page.locator("#fair-bag-value")
    expect(value).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    assert page_width(page) <= viewport["width"], page_width(page)


# ------------------------------------------------------------------ 4. the project's own 404


def test_4_a_members_only_match_without_a_key_shows_the_sites_page_and_offers_the_sign_in(
    open_page, make_fixture, alice, bob
) -> None:
    match = make_fixture(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    visitor = open_page(match_url(match), wait=False)
    assert visitor.goto(match_url(match)).status == 404
    expect(visitor.locator("h1")).to_have_text("Not found")
    expect(visitor.locator("body")).not_to_contain_text("URLconf")
    main = visitor.locator("#main")
    offer = main.get_by_role("link", name="Sign in")
    expect(offer).to_have_attribute("href", f"/accounts/sign-in/?next=%2Fmatches%2F{match.id}%2F")
    # A match that does not exist reads the same: the page reveals nothing more.
    said = main.inner_text().replace(str(match.id), "N")
    assert visitor.goto(f"/matches/{match.id + 1000}/").status == 404
    assert main.inner_text().replace(str(match.id + 1000), "N") == said
    # An address the site does not have: its own page too, not Django's list of patterns.
    assert visitor.goto("/no-such-page/").status == 404
    expect(visitor.locator("h1")).to_have_text("Not found")
    expect(visitor.locator("body")).not_to_contain_text("URLconf")

    visitor.goto(match_url(match))
    main.get_by_role("link", name="Sign in").click()
    sign_in(visitor, alice)
    expect(visitor).to_have_url(re.compile(rf"{match_url(match)}$"))
    expect(visitor.locator("#match-title")).to_have_text(title_of(match))


# ------------------------------------------------------------------ 5. the bag after kick-off


def test_5_the_fair_bag_button_goes_away_at_kick_off(open_page, make_fixture, alice, bob) -> None:
    kickoff = timezone.now() + timedelta(hours=1)
    match = make_fixture(first=alice, second=bob, kickoff_at=kickoff)
    page = open_page(match_url(match), alice)
    button = page.get_by_role("button", name="Add my value to the bag")
    expect(button).to_be_visible()
    for _ in range(100):  # a sweep skips a row another request holds locked: retry
        if match.id in services.open_due_matches(now=kickoff + timedelta(seconds=1)):
            break
        page.wait_for_timeout(50)
    expect(page.locator("#status")).to_have_text("The match has begun. It is your turn.")
    expect(button).to_be_hidden()
    expect(page.locator("#fair-bag-contribute")).to_be_hidden()


# ------------------------------------------------------------------ 6. the hint line


def test_6_the_hint_no_longer_describes_tiles_that_went_back(
    open_page, live_match, alice, bob
) -> None:
    match = live_match
    rack = rack_of(match, 0)
    first, second = not_a_word_below("", rack)  # two tiles that are no word
    page = open_page(match_url(match), alice)
    stage_by_clicks(
        page,
        [
            {"row": 7, "col": 7, "letter": first, "blank": False},
            {"row": 7, "col": 8, "letter": second, "blank": False},
        ],
    )
    expect(page.locator("#hint")).to_have_text(f"{second} on I8.")
    page.get_by_role("button", name="Play word").click()
    expect(page.locator("#status")).to_have_text(f"{first}{second} is not in the dictionary.")
    expect(page.locator("td.staged")).to_have_count(0)
    expect(page.locator("#hint")).to_have_text("Your tiles are back on the rack.")

    # Tiles the opponent's move sends back: the hint says so as well.
    commit_now(match, alice, opening(match), assert_accepted=True)
    expect(page.locator("#turn-line")).to_contain_text("bob (Second) to move")
    tile = next(t for t in rack_of(match, 0) if t != "?")
    stage_by_clicks(page, [{"row": 0, "col": 0, "letter": tile, "blank": False}])
    expect(page.locator("#hint")).to_have_text(f"{tile} on A1.")
    commit_now(match, bob, legal_play(match, seed=1), assert_accepted=True)
    expect(page.locator("#status")).to_have_text("Your opponent moved. Board updated.")
    expect(page.locator("td.staged")).to_have_count(0)
    expect(page.locator("#hint")).to_have_text("Your tiles are back on the rack.")


# ------------------------------------------------------------------ 7. going out


def test_7_the_player_who_goes_out_sees_the_result(open_page, live_match, alice, bob) -> None:
    match = live_match
    players = (alice, bob)
    game = play_greedily_until(match, players, lambda g: going_out_play(g) is not None)
    play = going_out_play(game)
    mover, other = game.to_move, 1 - game.to_move
    page = open_page(match_url(match), players[mover])
    spectator = open_page(match_url(match))
    stage_by_clicks(page, play["tiles"])
    page.get_by_role("button", name="Play word").click()
    expect(spectator.locator("#match")).to_have_attribute("data-status", "finished")

    match.refresh_from_db()
    assert match.end_reason == Match.EndReason.PLAYED_OUT
    winner = Seat.objects.get(match=match, position=0 if match.result == "first" else 1)
    result = f"{winner.member.label} ({winner.get_position_display()}) won"
    expect(spectator.locator("#status")).to_have_text(f"The match is over. {result}.")
    expect(page.locator("#status")).to_contain_text(f"The match is over. {result}.")
    expect(page.locator("#status")).to_contain_text("You went out")
    # The breakdown shows the going-out gain beside the opponent's deduction.
    gain = match.game_state["adjustments"][0]
    assert gain["player"] == mover
    assert gain["points"] > 0
    rows = page.locator("#final-score tr[data-row=adjustment]")
    expect(rows).to_have_count(2)
    names = [s.member.label for s in Seat.objects.filter(match=match).order_by("position")]
    count = len(gain["rack"])
    expect(rows.nth(0).locator("th")).to_have_text(
        f"{names[mover]} ({Seat.Position(mover).label}): went out, gains "
        f"{names[other]}'s {count} tile{'s' if count != 1 else ''}"
    )
    expect(rows.nth(0).locator("td").nth(mover)).to_have_text(f"+{gain['points']}")
    assert_tiles_conserved(match)


# ------------------------------------------------------------------ 8. dark mode everywhere


def test_8_dark_mode_chosen_on_a_match_page_holds_on_every_page(
    open_page, live_match, alice
) -> None:
    page = open_page(match_url(live_match), alice)
    background = "getComputedStyle(document.body).backgroundColor"
    light = page.evaluate(background)
    page.get_by_role("button", name="Dark mode").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    dark = page.evaluate(background)
    assert dark != light
    for path in ("/", "/me/matches/", "/no-such-page/"):
        page.goto(path)
        expect(page.locator("html")).to_have_attribute("data-theme", "dark")
        assert page.evaluate(background) == dark, path
    # And it can be turned back from any page.
    page.get_by_role("button", name="Dark mode").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    page.goto(match_url(live_match))
    expect(page.locator("html")).to_have_attribute("data-theme", "light")


# ------------------------------------------------------------------ 9. why sign in again


def test_9_the_sign_in_page_after_a_lapsed_session_says_why(open_page, live_match, bob) -> None:
    page = open_page(match_url(live_match), bob)
    for session in Session.objects.all():
        if session.get_decoded().get("_auth_user_id") == str(bob.pk):
            session.delete()
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")  # back on the tab
    expect(page).to_have_url(re.compile(r"/accounts/sign-in/"))
    expect(page.locator("#session-ended")).to_have_text(
        "Your session has ended, so you were signed out. Sign in again to go back to the match."
    )
    sign_in(page, bob)
    expect(page).to_have_url(re.compile(rf"{match_url(live_match)}$"))
    # An ordinary visit to the sign-in page says nothing of the kind.
    page.goto("/accounts/sign-in/")
    expect(page.locator("#session-ended")).to_have_count(0)


# ------------------------------------------------------------------ 10. a refused swap


def test_10_a_refused_swap_closes_the_swap_panel(open_page, live_match, alice, bob) -> None:
    match = live_match
    game = play_greedily_until(
        match, (alice, bob), lambda g: len(g.bag) < 7 and g.to_move == 0 and len(g.racks[0]) > 1
    )
    page = open_page(match_url(match), alice)
    page.get_by_role("button", name="Swap…").click()
    tile = next(t for t in game.racks[0] if t != "?")
    rack_tile(page, tile).click()
    expect(page.locator('#your-rack button[aria-pressed="true"]')).to_have_count(1)
    page.get_by_role("button", name="Swap 1 tile").click()
    expect(page.locator("#status")).to_have_text(
        "There are not enough tiles left in the bag to swap."
    )
    expect(page.locator("#controls .controls-swap")).to_be_hidden()
    expect(page.locator("#controls .controls-main")).to_be_visible()
    expect(page.locator('#your-rack button[aria-pressed="true"]')).to_have_count(0)
    match.refresh_from_db()
    assert match.turn_number == game.turn_number
