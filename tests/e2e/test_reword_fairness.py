"""Reword's bag check in a real browser: a finished Reword game with steals, swaps and a turn
of two takes, played through the commit service with the engine's own moves
(tests/matches/reword_helpers.py), is checked by the page's "Check this game's bag"
(matches/static/fairness.js), which applies each play's takes to the rack the seed dealt
before the play; every turn's tiles the page shows agree with the stored turns. Served from
a database where one take was changed, the same page fails and names the turn: with the
chain as stored (the turn's hash no longer matches), and with the chain rewritten to match
(only the bag check, replaying the takes, can tell)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from matches.chain import chain_hashes
from matches.models import Match, Turn
from matches.schemas import TakeView
from matches.visibility.pages import take_text
from tests.e2e.browser import expect
from tests.e2e.test_fairness_check import run_check, spelled
from tests.matches.helpers import commit_now, game_of
from tests.matches.reword_helpers import planned_move, reword_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def finished(make_fixture, alice, bob) -> Match:
    """A whole Reword game (seed 3: the plan's steals, swaps and a two-take turn)."""
    match = reword_match(make_fixture, alice, bob, seed=3)
    for _ in range(80):
        match.refresh_from_db()
        if match.is_over:
            break
        assert match.to_move is not None
        player = (alice, bob)[match.to_move]
        commit_now(match, player, planned_move(game_of(match)), assert_accepted=True)
    assert match.is_over
    takes = [take for turn in match.turns.all() for take in turn.takes]
    assert sum(take["take"] == "steal" for take in takes) >= 2, "the game should hold steals"
    assert sum(take["take"] == "swap" for take in takes) >= 2, "the game should hold swaps"
    assert any(len(turn.takes) == 2 for turn in match.turns.all()), "and a turn of two takes"
    return match


def used_tiles(turn: Turn) -> Counter[str]:
    """The tiles a turn took from its rack after its takes (a blank as ``?``)."""
    if turn.kind == Turn.Kind.PLAY:
        return Counter("?" if tile["blank"] else tile["letter"] for tile in turn.placement)
    return Counter(turn.swapped)


def after_takes(turn: Turn) -> Counter[str]:
    """The rack a turn played from: its rack before, each swap's rack tile put down and each
    taken board tile brought up (a blank as ``?``)."""
    rack = Counter(turn.rack_before)
    for take in turn.takes:
        if take["take"] == "swap":
            rack -= Counter("?" if take["placed_blank"] else take["placed"])
        rack += Counter("?" if take["blank"] else take["letter"])
    return rack


def test_a_finished_reword_games_check_applies_the_takes_and_verifies(
    open_page, finished: Match, alice
) -> None:
    turns = list(finished.turns.order_by("number"))
    seats = list(finished.seats.order_by("position"))
    # The stored tiles agree among themselves: each seat's next rack is the one before, after
    # its takes, less what it played or swapped, with what it drew.
    for turn in turns:
        following = next(
            (t for t in turns if t.position == turn.position and t.number > turn.number), None
        )
        held = following.rack_before if following else seats[turn.position].rack
        assert after_takes(turn) >= used_tiles(turn), turn.number
        left = after_takes(turn) - used_tiles(turn) + Counter(turn.drawn)
        assert left == Counter(held), turn.number
    draws = 14 + sum(len(turn.drawn) for turn in turns)
    plays = sum(turn.kind == Turn.Kind.PLAY for turn in turns)
    swaps = sum(turn.kind == Turn.Kind.SWAP for turn in turns)
    for member in (None, alice):
        page = open_page(f"/matches/{finished.id}/", member)
        box = run_check(page)
        expect(box).to_have_attribute("data-state", "passed")
        expect(box.locator("li.error")).to_have_count(0)
        expect(box).to_contain_text(
            f"All {draws} draws of both seats match the seed committed before the game."
        )
        expect(box).to_contain_text(
            f"All {plays} plays and {swaps} swaps used only tiles from the racks the seed dealt."
        )
        expect(box).to_contain_text(f"All {len(turns)} turns are chained")
    # Every turn's tiles as the page shows them: the rack it was made from, its takes in the
    # server's words, a swap's letters.
    for turn in turns:
        move = page.locator(f"#moves li[value='{turn.number}']")
        expect(move.locator(".rack-before")).to_have_text(f"from {spelled(turn.rack_before)}")
        if turn.takes:
            said = ", ".join(take_text(TakeView(**take)) for take in turn.takes)
            expect(move).to_contain_text(f"{said}, then played")
        if turn.kind == Turn.Kind.SWAP:
            expect(move).to_contain_text(f"swapped {spelled(turn.swapped)}")


def tamper_a_swap_take(match: Match) -> tuple[Turn, str]:
    """One Reword swap rewritten in the stored row: it put down a letter its mover never
    held. The turn and the letter."""
    turn = next(t for t in match.turns.order_by("number") if any(
        take["take"] == "swap" for take in t.takes))  # fmt: skip
    letter = next(c for c in "QZXJKVWYFH" if c not in turn.rack_before)
    takes = [dict(take) for take in turn.takes]
    swap = next(take for take in takes if take["take"] == "swap")
    swap.update(placed=letter, placed_blank=False)
    Turn.objects.filter(pk=turn.pk).update(takes=takes)
    return turn, letter


def test_an_altered_take_fails_and_names_the_turn_even_with_the_chain_rewritten(
    open_page, finished: Match
) -> None:
    turn, letter = tamper_a_swap_take(finished)
    who = ("First", "Second")[turn.position]
    bag_failure = (
        f"Turn {turn.number}: {who} swapped {letter} onto the board, "
        f"but the rack the seed dealt held no {letter}."
    )
    chain_failure = f"Turn {turn.number}'s record does not match the hash published with it."

    page = open_page(f"/matches/{finished.id}/", None)
    box = run_check(page)
    expect(box).to_have_attribute("data-state", "failed")
    errors = box.locator(f"li.error[data-turn='{turn.number}']")
    expect(errors.filter(has_text=chain_failure)).to_have_count(1)
    expect(errors.filter(has_text=bag_failure)).to_have_count(1)

    # A server rewriting its history would rehash the chain from the altered turn on: every
    # turn then chains, and only the bag check, which replays the takes, names the turn.
    turns = list(finished.turns.order_by("number"))
    for stored, new in zip(turns, chain_hashes(turns, finished.bag_commitment), strict=True):
        if stored.record_hash != new:
            Turn.objects.filter(pk=stored.pk).update(record_hash=new)
    page = open_page(f"/matches/{finished.id}/", None)
    box = run_check(page)
    expect(box).to_have_attribute("data-state", "failed")
    expect(box).to_contain_text(f"All {len(turns)} turns are chained")
    expect(box.locator("li.error")).to_have_count(1)
    expect(box.locator(f"li.error[data-turn='{turn.number}']")).to_have_text(
        re.compile(re.escape(bag_failure))
    )
