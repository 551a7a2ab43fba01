"""A classic table of three under a challenge rule, played by clicking in real browsers over
the match's socket: a phony played, challenged from another player's page with the
Challenge button, the outcome in words on every page (the three players' and a spectator's),
the game going on in seat order, and its end with each seat's place and score."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine import Play
from matches.models import Match
from tests.e2e.browser import expect
from tests.e2e.test_board import stage_by_clicks
from tests.matches.table_helpers import good_play, phony_opening, table_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def tiles_of(play: Play) -> list[dict[str, Any]]:
    return [{"row": t.row, "col": t.col, "letter": t.letter, "blank": t.blank} for t in play.tiles]


def seat(page: Any, position: int) -> Any:
    return page.locator(f"#seats li[data-position='{position}']")


def test_three_members_play_a_table_with_a_challenge_while_a_spectator_watches(
    open_page, organiser, make_member
) -> None:
    members = [make_member(name) for name in ("ann", "ben", "cat")]
    match = table_match(organiser, members, seed=4, challenge="double")
    url = f"/matches/{match.id}/"
    pages = [open_page(url, member) for member in members]
    watcher = open_page(url, None)
    everyone = [*pages, watcher]
    names = [member.label for member in members]

    # Every seat in seat order, each with its score and count; only the player's own rack.
    for page in everyone:
        for position in range(3):
            expect(seat(page, position)).to_contain_text(names[position])
            expect(seat(page, position)).to_contain_text("7 tiles on the rack")
    for page in pages:
        expect(page.locator("#your-rack button[data-tile]")).to_have_count(7)
    expect(watcher.locator("#play-panel")).to_be_hidden()

    player = match.to_move
    assert player is not None
    challenger = (player + 2) % 3  # not the next player: any other player may challenge
    following = (player + 1) % 3
    phony = phony_opening(match)
    word = "".join(tile.letter for tile in phony.tiles)
    expect(pages[player].locator("#turn-line")).to_contain_text("Your turn")
    stage_by_clicks(pages[player], tiles_of(phony))
    pages[player].get_by_role("button", name="Play word").click()

    # The phony stands for now: everyone sees the window; only the others get a button.
    for page in everyone:
        expect(page.locator("#challenge-window")).to_contain_text(
            re.compile(rf"{re.escape(names[player])}'s {word} may be challenged until")
        )
    button = pages[challenger].get_by_role("button", name=f"Challenge {word}")
    expect(button).to_be_visible()
    expect(pages[player].locator("#challenge-button")).to_be_hidden()
    expect(watcher.locator("#challenge-button")).to_be_hidden()
    button.click()

    outcome = (
        f"{names[challenger]} challenged {word}: not a word \u2014 withdrawn,"
        f" {names[player]} loses the turn."
    )
    for page in everyone:
        expect(page.locator("#challenge-result")).to_have_text(outcome)
        expect(page.locator("#challenge-box")).to_be_hidden()
        expect(page.locator("#moves")).to_contain_text(f"played {word}")
        expect(page.locator("#moves")).to_contain_text("withdrawn")
        expect(page.locator("#board td.tile")).to_have_count(0)  # the board is empty again
    expect(pages[player].locator("#your-rack button[data-tile]")).to_have_count(7)  # back

    # The game goes on in seat order: the seat after the phony's player plays a word.
    match.refresh_from_db()
    assert match.to_move == following
    expect(pages[following].locator("#turn-line")).to_contain_text("Your turn")
    play = good_play(match)
    stage_by_clicks(pages[following], tiles_of(play))
    pages[following].get_by_role("button", name="Play word").click()
    nxt = (following + 1) % 3
    for page in everyone:
        expect(page.locator("#board td.tile")).to_have_count(len(play.tiles))
        expect(seat(page, nxt)).to_have_class(re.compile("to-move"))
    # The word may be challenged too: the last player resigns instead, and is placed last.
    resigner = pages[nxt]
    resigner.get_by_role("button", name="Resign…").click()
    expect(resigner.locator("#resign-box .resign-confirm")).to_contain_text("you are placed last")
    resigner.get_by_role("button", name="Yes, resign").click()

    for page in everyone:
        expect(page.locator("#match")).to_have_attribute("data-status", "finished")
    match.refresh_from_db()
    seats = list(match.seats.order_by("position"))
    assert match.result == "table"
    assert {s.position: s.place for s in seats}[nxt] == 3
    places = {1: "1st place", 2: "2nd place", 3: "3rd place"}
    for page in everyone:
        for s in seats:
            assert s.place is not None
            expect(seat(page, s.position).locator(".place")).to_have_text(places[s.place])
            expect(seat(page, s.position).locator(".score")).to_have_text(str(s.score))
        expect(page.locator("#end-line")).to_have_text(
            f"{names[nxt]} ({seats[nxt].get_position_display()}) resigned."
        )
        expect(page.locator("#match-result")).to_have_text(
            f"{names[following]} ({seats[following].get_position_display()}) won"
        )
    assert Match.objects.get(pk=match.pk).seats.get(position=following).place == 1

    # The replay: the step of the withdrawn phony shows the board without it and says why.
    watcher.locator('#moves a[data-turn="1"]').click()
    banner = watcher.locator("#replay-banner")
    expect(banner).to_contain_text("Replay: the board after move 1 of 2.")
    expect(banner).to_contain_text(outcome)
    expect(watcher.locator("#board td.tile")).to_have_count(0)
    expect(watcher.locator("#challenge-result")).to_have_text(outcome)
    watcher.get_by_role("button", name="Forward").click()
    expect(watcher.locator("#board td.tile")).to_have_count(len(play.tiles))
