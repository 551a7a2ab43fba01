"""The fairness check in a real browser: a finished game's page checks its own bag and turn
chain with Web Crypto, every draw of both seats for anyone who may watch (the whole record
is public after the end); served from a database where a draw, a swap or a past turn was
changed, the same page shows the failure and names the turn. And the replay of a finished
game shows every seat's rack."""

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


def every_draw(match: Match) -> int:
    """How many tiles left the bag: both racks dealt, then every turn's draw."""
    return 14 + sum(len(turn.drawn) for turn in match.turns.all())


def test_a_finished_games_check_verifies_every_draw_for_a_spectator_and_a_player(
    open_page, finished: Match, alice
) -> None:
    """The whole record is public after the end: a spectator's browser checks every draw of
    both seats, as a player's does."""
    draws = every_draw(finished)
    swaps = finished.turns.filter(kind=Turn.Kind.SWAP).count()
    plays = finished.turns.filter(kind=Turn.Kind.PLAY).count()
    assert swaps, "the fixture game should hold a swap"
    for member in (None, alice):
        page = open_page(f"/matches/{finished.id}/", member)
        box = run_check(page)
        expect(box).to_have_attribute("data-state", "passed")
        expect(box).to_contain_text("The seed matches the commitment published before the game.")
        expect(box).to_contain_text(
            f"All {draws} draws of both seats match the seed committed before the game."
        )
        expect(box).to_contain_text(
            f"All {plays} plays and {swaps} swaps used only tiles from the racks the seed dealt."
        )
        expect(box).to_contain_text(f"All {finished.turn_number} turns are chained")
        expect(page.locator("#fairness-download")).to_have_attribute(
            "href", f"/matches/{finished.id}/verify.py"
        )


def test_an_altered_draw_fails_for_a_spectator_and_names_the_turn(
    open_page, finished: Match
) -> None:
    turn = finished.turns.filter(position=1).exclude(drawn="").order_by("number").first()
    assert turn is not None
    Turn.objects.filter(pk=turn.pk).update(drawn="Z" * len(turn.drawn))
    page = open_page(f"/matches/{finished.id}/", None)
    box = run_check(page)
    expect(box).to_have_attribute("data-state", "failed")
    expect(box.locator(f"li.error[data-turn='{turn.number}']")).to_contain_text(
        f"Turn {turn.number}: Second drew"
    )


def test_an_altered_swap_fails_for_a_spectator(open_page, finished: Match) -> None:
    """The letters a swap returned are in the record after the end: rewritten, the swapper
    held other tiles than the seed dealt, which the check names at their next turn."""
    swap = finished.turns.filter(kind=Turn.Kind.SWAP).order_by("number").first()
    assert swap is not None
    rack = list(swap.rack_before)
    for letter in swap.swapped:
        rack.remove(letter)
    other = "".join(rack[: len(swap.swapped)])
    if len(other) < len(swap.swapped) or sorted(other) == sorted(swap.swapped):
        other = "Q" * len(swap.swapped)
    Turn.objects.filter(pk=swap.pk).update(swapped=other)
    following = (
        finished.turns.filter(position=swap.position, number__gt=swap.number)
        .order_by("number")
        .first()
    )
    assert following is not None
    page = open_page(f"/matches/{finished.id}/", None)
    box = run_check(page)
    expect(box).to_have_attribute("data-state", "failed")
    who = ("First", "Second")[swap.position]
    expect(box.locator(f"li.error[data-turn='{following.number}']")).to_contain_text(
        f"Turn {following.number}: {who}'s rack was"
    )


def spelled(tiles: str) -> str:
    """Tiles as the page reads them out: "A E blank"."""
    return " ".join("blank" if tile == "?" else tile for tile in tiles)


def test_a_spectator_steps_through_a_finished_games_racks(open_page, finished: Match) -> None:
    """The replay of a finished game shows every seat's rack at each step, the rack each move
    was made from and each swap's letters; the live view, the racks left at the end."""
    swap = finished.turns.filter(kind=Turn.Kind.SWAP).order_by("number").first()
    assert swap is not None
    seats = list(finished.seats.order_by("position"))
    page = open_page(f"/matches/{finished.id}/?turn={swap.number}", None)
    expect(page.locator("#replay-banner")).to_contain_text(f"after move {swap.number} of")
    move = page.locator(f"#moves li[value='{swap.number}']")
    expect(move).to_contain_text(f"swapped {spelled(swap.swapped)}")
    expect(move).to_contain_text(f"from {spelled(swap.rack_before)}")
    later = list(finished.turns.filter(number__gt=swap.number).order_by("number"))
    for seat in seats:
        held = next((t.rack_before for t in later if t.position == seat.position), seat.rack)
        letters = page.locator(f"#seats li[data-position='{seat.position}'] .rack-letters")
        expect(letters).to_have_text(spelled(held))
    page.get_by_role("button", name="Last").click()
    expect(page.locator("#replay-banner")).to_be_hidden()
    for seat in seats:
        letters = page.locator(f"#seats li[data-position='{seat.position}'] .rack-letters")
        expect(letters).to_have_text(spelled(seat.rack) or "none")
    expect(move).to_contain_text(f"swapped {spelled(swap.swapped)}")


def test_while_a_game_is_played_a_spectator_sees_no_rack(
    open_page, live_match: Match, alice, bob
) -> None:
    """Before the end nothing of the record shows: no rack, a swap as a count, in the live
    view and in the replay, for a spectator and for the opponent of the swapper."""
    match = play_out(live_match, (alice, bob), seed=8, turns=4)
    assert match.status == Match.Status.LIVE
    swap = match.turns.get(number=4)
    assert (swap.kind, swap.position) == (Turn.Kind.SWAP, 1)
    for member in (None, alice):
        for path in (f"/matches/{match.id}/", f"/matches/{match.id}/?turn=4"):
            page = open_page(path, member)
            move = page.locator("#moves li[value='4']")
            expect(move).to_contain_text(f"swapped {swap.swap_count} tiles")
            expect(move.locator(".rack-before")).to_have_count(0)
            expect(page.locator("#seats .rack-letters")).to_have_count(0)


def test_an_altered_past_turn_fails_and_names_the_turn(open_page, finished: Match, bob) -> None:
    Turn.objects.filter(match=finished, number=6).update(score=77)
    page = open_page(f"/matches/{finished.id}/", bob)
    box = run_check(page)
    expect(box).to_have_attribute("data-state", "failed")
    expect(box.locator("li.error[data-turn='6']")).to_contain_text(
        "Turn 6's record does not match the hash published with it."
    )
