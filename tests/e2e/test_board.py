"""The match page in a real browser: staging and committing, live news, replay, the session.

Two members play in two browser contexts while a signed-out spectator watches, all over
the real websocket and channel layer (Daphne is started by ``conftest.py``). The tests read
racks from the database to choose their words; the pages never get another seat's rack.

Screenshots of the board go to ``tmp_path``; with ``SAVE_SCREENSHOTS=1`` they replace the
ones in ``docs/screenshots/``.
"""

from __future__ import annotations

import os
import random
import re
import string
import time
from datetime import timedelta
from functools import cache
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.utils import timezone
from playwright.sync_api import Page

from accounts.models import Member
from engine import Pass, Play, Swap, TakePlay, get_ruleset
from engine.randomplay import AnagramIndex, find_play
from lexicon.lexicon import get_lexicon
from matches import services
from matches.models import Match, Seat, Turn
from matches.visibility.payloads import board_rows
from tests.e2e.browser import expect
from tests.e2e.conftest import PHONE
from tests.matches.helpers import (
    assert_tiles_conserved,
    commit_now,
    game_of,
    opening_play,
    rack_of,
    title_of,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "pw-correct-horse"  # tests/conftest.py's make_member
TILE = re.compile(r"\btile\b")
STAGED = re.compile(r"\bstaged\b")

# Records every socket the page opens and the type of every frame it receives; while
# ``__blockSockets`` is set, new sockets go to a closed port, as if the server were away.
SOCKET_SPY = """
window.__frames = [];
window.__sockets = [];
window.__blockSockets = false;
const NativeWebSocket = window.WebSocket;
window.WebSocket = class extends NativeWebSocket {
  constructor(url, protocols) {
    super(window.__blockSockets ? url.replace(location.host, "127.0.0.1:9") : url, protocols);
    window.__sockets.push(this);
    this.addEventListener("message", (event) => window.__frames.push(JSON.parse(event.data).type));
  }
};
"""


# ------------------------------------------------------------------ helpers


def match_url(match: Match) -> str:
    return f"/matches/{match.id}/"


def square(row: int, col: int) -> str:
    return f"{chr(65 + col)}{row + 1}"


def cell(page: Page, name: str) -> Any:
    return page.locator(f'td[data-square="{name}"]')


def rack_tile(page: Page, tile: str) -> Any:
    """The first rack button still on the rack holding ``tile`` (``?`` for a blank)."""
    label = "blank," if tile == "?" else f"{tile},"
    return page.locator(f'#your-rack button[data-tile][aria-label^="{label}"]').first


def stage_by_clicks(page: Page, tiles: list[dict[str, Any]]) -> None:
    """Click each tile on the rack, then its square; a blank's letter from the dialog."""
    for tile in tiles:
        rack_tile(page, "?" if tile["blank"] else tile["letter"]).click()
        cell(page, square(tile["row"], tile["col"])).click()
        if tile["blank"]:
            dialog = page.locator("#blank-dialog")
            dialog.get_by_role("button", name=tile["letter"], exact=True).click()
        expect(cell(page, square(tile["row"], tile["col"]))).to_have_class(STAGED)


def submit_move(page: Page, move: Play | TakePlay | Swap | Pass) -> None:
    """A move through the page's own controls, once a take-play's takes are made: its tiles
    staged with clicks and "Play word", or the Swap (choosing the tiles) and Pass buttons."""
    if isinstance(move, Play | TakePlay):
        stage_by_clicks(page, [tile.to_dict() for tile in move.tiles])
        page.get_by_role("button", name="Play word").click()
    elif isinstance(move, Swap):
        page.get_by_role("button", name="Swap…").click()
        for tile in move.tiles:
            label = "blank," if tile == "?" else f"{tile},"
            page.locator(
                f'#your-rack button[data-tile][aria-label^="{label}"][aria-pressed="false"]'
            ).first.click()
        count = len(move.tiles)
        page.get_by_role("button", name=f"Swap {count} tile{'' if count == 1 else 's'}").click()
    else:
        assert isinstance(move, Pass)
        page.get_by_role("button", name="Pass…").click()
        page.get_by_role("button", name="Yes, pass").click()


def move_focus_to(page: Page, target: str) -> None:
    """Walk the board's focus to ``target`` with the arrow keys."""
    here = page.evaluate("document.activeElement.dataset.square")
    assert here, "the board has no focus"
    d_col = ord(target[0]) - ord(here[0])
    d_row = int(target[1:]) - int(here[1:])
    for _ in range(abs(d_col)):
        page.keyboard.press("ArrowRight" if d_col > 0 else "ArrowLeft")
    for _ in range(abs(d_row)):
        page.keyboard.press("ArrowDown" if d_row > 0 else "ArrowUp")
    expect(page.locator(f'td[data-square="{target}"]:focus')).to_have_count(1)


def sign_in(page: Page, member: Member) -> None:
    expect(page).to_have_url(re.compile(r"/accounts/sign-in/"))
    page.get_by_label("Username").fill(member.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def trade_in(match: Match, position: int, tiles: str) -> str:
    """Test data: swap rack tiles for ``tiles`` from the bag (tiles stay conserved)."""
    match.refresh_from_db()
    state = match.game_state
    rack = list(Seat.objects.get(match=match, position=position).rack)
    bag = list(state["bag"])
    for tile in tiles:
        if tile in rack:
            continue
        index = next(i for i, held in enumerate(rack) if held not in tiles)
        at = bag.index(tile)
        bag[at], rack[index] = rack[index], tile
    state["bag"] = "".join(bag)
    Match.objects.filter(pk=match.pk).update(game_state=state)
    Seat.objects.filter(match=match, position=position).update(rack="".join(sorted(rack)))
    return "".join(rack)


def give_a_blank(match: Match, position: int) -> str:
    """Test data: a rack with a blank in it; the new rack."""
    rack = rack_of(match, position)
    return rack if "?" in rack else trade_in(match, position, "?")


def opening(match: Match) -> dict[str, Any]:
    """A two-letter opening across the star for First, trading in A and T if the rack has none."""
    try:
        return opening_play(rack_of(match, 0))
    except AssertionError:
        return opening_play(trade_in(match, 0, "AT"))


@cache
def anagrams() -> AnagramIndex:
    return AnagramIndex(get_lexicon("enable"))


def legal_play(match: Match, seed: int) -> dict[str, Any]:
    """Some legal play for the player to move (the engine's own random player finds it)."""
    play = find_play(
        game_of(match),
        lexicon=get_lexicon("enable"),
        index=anagrams(),
        rng=random.Random(seed),
        max_tries=2000,
        max_lookups=100_000,
    )
    assert play is not None
    return play.to_dict()


def not_a_word_below(letter: str, rack: str) -> tuple[str, str]:
    """Two tiles of ``rack`` that make ``letter`` + them a non-word (no blanks)."""
    lexicon = get_lexicon("enable")
    for first, second in permutations([tile for tile in rack if tile != "?"], 2):
        if (letter + first + second).lower() not in lexicon and (
            letter + first + second
        ).upper() not in lexicon:
            return first, second
    raise AssertionError(f"every pair of {rack} makes a word under {letter}")


# ------------------------------------------------------------------ play


def test_two_members_play_while_a_spectator_watches(open_page, live_match, alice, bob) -> None:
    match = live_match
    first = open_page(match_url(match), alice)
    second = open_page(match_url(match), bob)
    spectator = open_page(match_url(match))
    expect(first.locator("#your-rack button.tile")).to_have_count(7)
    expect(second.locator("#your-rack button.tile")).to_have_count(7)
    expect(first.locator("#turn-line")).to_contain_text("Your turn: your move by")
    expect(second.locator("#turn-line")).to_contain_text("alice (First) to move, by")
    expect(spectator.locator("#turn-line")).to_contain_text("alice (First) to move, by")
    expect(spectator.locator("#your-rack")).to_have_count(0)
    expect(spectator.locator("#play-panel")).to_be_hidden()
    expect(spectator.locator("#seats")).to_contain_text("7 tiles on the rack")

    # Bob builds while waiting: the staged tile is his alone, shown on his board only.
    second_rack = rack_of(match, 1)
    waiting_tile = next(tile for tile in second_rack if tile != "?")
    rack_tile(second, waiting_tile).click()
    cell(second, "H10").click()
    expect(cell(second, "H10")).to_have_class(STAGED)
    expect(cell(second, "H10")).to_have_attribute(
        "aria-label", f"H10, {waiting_tile}, your tile, not yet played"
    )
    expect(cell(first, "H10")).not_to_have_class(STAGED)

    # Alice opens with the mouse: rack tile, square, rack tile, square, Play word.
    move = opening(match)
    expect(cell(first, "H8")).to_have_attribute("aria-label", "H8, double word, empty")
    stage_by_clicks(first, move["tiles"])
    first.get_by_role("button", name="Play word").click()
    expect(first.locator("#status")).to_contain_text("You played")
    turn = Turn.objects.get(match=match, number=1)
    word = turn.words[0]["tiles"].upper()
    expect(first.locator("#status")).to_have_text(f"You played {word} for {turn.score}.")
    expect(first.locator("#your-rack button.tile")).to_have_count(7)

    # Bob's board changed under his tile: it is back on his rack, and he is told why.
    expect(second.locator("#status")).to_have_text("Your opponent moved. Board updated.")
    expect(cell(second, "H10")).not_to_have_class(STAGED)
    expect(second.locator("#your-rack button.tile")).to_have_count(7)
    expect(second.locator("#turn-line")).to_contain_text("Your turn")

    # The spectator saw it arrive without a reload.
    line = f"alice (First) played {word} at 8H for {turn.score}"
    expect(spectator.locator("#moves")).to_contain_text(line)
    expect(cell(spectator, "H8")).to_have_class(TILE)
    match.refresh_from_db()
    expect(spectator.locator("#bag-count")).to_have_text(str(match.bag_count))

    # Bob plays by keyboard: a letter picks a tile, arrows move, Enter places, Backspace
    # recalls. His word is not in the dictionary, and the board says so in RULES.md's words.
    top = match.turns.get(number=1).placement[0]
    letter = (top["letter"] or "").upper()
    one, two = not_a_word_below(letter, rack_of(match, 1))
    second.keyboard.press(one.lower())
    move_focus_to(second, "H9")
    second.keyboard.press("Enter")
    expect(cell(second, "H9")).to_have_class(STAGED)
    second.keyboard.press(two.lower())
    move_focus_to(second, "H10")
    second.keyboard.press("Enter")
    expect(cell(second, "H10")).to_have_class(STAGED)
    second.keyboard.press("Backspace")  # focus moved on past H10: the last tile comes back
    expect(cell(second, "H10")).not_to_have_class(STAGED)
    second.keyboard.press(two.lower())
    move_focus_to(second, "H10")
    second.keyboard.press("Enter")
    expect(cell(second, "H10")).to_have_class(STAGED)
    second.get_by_role("button", name="Play word").press("Enter")
    expect(second.locator("#status")).to_have_text(f"{letter}{one}{two} is not in the dictionary.")
    expect(second.locator("td.staged")).to_have_count(0)
    expect(second.locator("#your-rack button.tile")).to_have_count(7)
    match.refresh_from_db()
    assert match.turn_number == 1

    # Bob passes; Alice swaps two tiles. Everyone's move list follows.
    second.get_by_role("button", name="Pass…").click()
    second.get_by_role("button", name="Yes, pass").click()
    expect(second.locator("#status")).to_have_text("You passed.")
    expect(spectator.locator("#moves")).to_contain_text("bob (Second) passed")
    expect(first.locator("#turn-line")).to_contain_text("Your turn")
    first.get_by_role("button", name="Swap…").click()
    tiles = first.locator("#your-rack button.tile")
    tiles.nth(0).click()
    tiles.nth(1).click()
    expect(tiles.nth(0)).to_have_attribute("aria-pressed", "true")
    first.get_by_role("button", name="Swap 2 tiles").click()
    expect(first.locator("#status")).to_have_text("You swapped 2 tiles.")
    expect(spectator.locator("#moves")).to_contain_text("alice (First) swapped 2 tiles")
    expect(second.locator("#moves li")).to_have_count(3)
    match.refresh_from_db()
    assert match.turn_number == 3
    assert_tiles_conserved(match)


def test_a_blank_asks_for_its_letter_and_tiles_come_back(open_page, live_match, alice) -> None:
    match = live_match
    lexicon = get_lexicon("enable")

    def words_with_a_blank(rack: str) -> list[tuple[str, str]]:
        """(blank's letter, tile) pairs making a two-letter word, blank first."""
        return [
            (letter, tile)
            for tile in rack
            if tile != "?"
            for letter in string.ascii_uppercase
            if letter + tile in lexicon
        ]

    pairs = words_with_a_blank(give_a_blank(match, 0)) or words_with_a_blank(
        trade_in(match, 0, "?A")
    )
    chosen, other = pairs[0]
    page = open_page(match_url(match), alice)
    dialog = page.locator("#blank-dialog")

    # Clicking a staged tile returns it to the rack.
    rack_tile(page, other).click()
    cell(page, "I8").click()
    expect(cell(page, "I8")).to_have_class(STAGED)
    cell(page, "I8").click()
    expect(page.locator("td.staged")).to_have_count(0)

    # A blank asks for its letter; Escape puts it back.
    rack_tile(page, "?").click()
    cell(page, "J8").click()
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Choose a letter for the blank")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(cell(page, "J8")).not_to_have_class(STAGED)
    expect(page.locator("#hint")).to_have_text("The blank is back on your rack.")

    # Typing the letter chooses it; Recall brings everything back.
    rack_tile(page, other).click()
    cell(page, "I8").click()
    page.keyboard.press("?")  # picks the blank
    expect(rack_tile(page, "?")).to_have_attribute("aria-pressed", "true")
    cell(page, "H8").click()
    page.keyboard.press(chosen.lower())
    expect(cell(page, "H8")).to_have_attribute(
        "aria-label", f"H8, {chosen}, blank, your tile, not yet played"
    )
    page.get_by_role("button", name="Recall").click()
    expect(page.locator("td.staged")).to_have_count(0)
    expect(page.locator("#your-rack button.tile")).to_have_count(7)
    expect(page.locator("#hint")).to_have_text("Your tiles are back on the rack.")

    # The word with the blank, played.
    stage_by_clicks(
        page,
        [
            {"row": 7, "col": 7, "letter": chosen, "blank": True},
            {"row": 7, "col": 8, "letter": other, "blank": False},
        ],
    )
    page.get_by_role("button", name="Play word").click()
    expect(page.locator("#status")).to_contain_text("You played")
    turn = Turn.objects.get(match=match, number=1)
    expect(page.locator("#status")).to_have_text(f"You played {chosen}{other} for {turn.score}.")
    expect(cell(page, "H8")).to_have_class(re.compile(r"\btile blank\b"))
    expect(cell(page, "H8")).to_have_attribute("aria-label", f"H8, {chosen}, blank, last move")
    assert turn.placement[0]["blank"] is True
    assert_tiles_conserved(match)


# ------------------------------------------------------------------ watching


def test_a_signed_out_visitor_watches_a_members_only_match_by_its_share_link(
    open_page, make_fixture, alice, bob
) -> None:
    match = make_fixture(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    player = open_page(match_url(match), alice, permissions=["clipboard-read", "clipboard-write"])
    link = player.locator("#share-link").input_value()
    assert link.endswith(f"{match_url(match)}?key={match.viewing_key}")
    player.get_by_role("button", name="Copy link").click()
    expect(player.locator(".share .copied")).to_have_text("Copied.")
    assert player.evaluate("navigator.clipboard.readText()") == link

    outsider = open_page(match_url(match), wait=False)
    expect(outsider.locator("h1")).not_to_have_text(title_of(match))
    assert outsider.goto(match_url(match)).status == 404

    watcher = open_page(link)
    expect(watcher.locator("#match-title")).to_have_text(title_of(match))
    expect(watcher.locator("#turn-line")).to_contain_text("alice (First) to move")
    expect(watcher.locator("#your-rack")).to_have_count(0)
    expect(watcher.locator("#share-link")).to_have_count(0)
    expect(watcher.get_by_role("button", name="Take a seat")).to_have_count(0)

    commit_now(match, alice, opening(match), assert_accepted=True)
    expect(watcher.locator("#moves")).to_contain_text("alice (First) played")
    expect(cell(watcher, "H8")).to_have_class(TILE)
    expect(watcher.locator("#turn-line")).to_contain_text("bob (Second) to move")


def test_the_board_opens_by_itself_at_kick_off(open_page, make_fixture, alice, bob) -> None:
    kickoff = timezone.now() + timedelta(hours=1)
    match = make_fixture(first=alice, second=bob, kickoff_at=kickoff)
    # Alice's browser runs on a clock the test moves on; the sweep is told the same time.
    page = open_page(match_url(match), alice, init_script=SOCKET_SPY, clock=True)
    spectator = open_page(match_url(match))
    banner = page.locator("#kickoff-banner")
    expect(banner).to_contain_text("This match begins")
    expect(banner).to_contain_text(re.compile(r", in (1 h 00 min|59 min \d\d s)\."))
    expect(page.locator("#turn-line")).to_have_text("Not started yet.")
    expect(page.locator("#play-panel")).to_contain_text("Your tiles are dealt at kick-off.")
    page.evaluate("window.notReloaded = true")

    # The page counts down by itself; at zero the clock's sweep (run here) opens the match.
    page.clock.fast_forward("01:00:01")
    expect(banner).to_contain_text("Kick-off! The board is opening")
    # A sweep skips a row another request holds locked (the next sweep takes it): retry.
    for _ in range(100):
        if match.id in services.open_due_matches(now=kickoff + timedelta(seconds=1)):
            break
        time.sleep(0.05)
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE

    expect(banner).to_be_hidden()
    expect(page.locator("#turn-line")).to_contain_text("Your turn: your move by")
    expect(page.locator("#your-rack button.tile")).to_have_count(7)
    expect(page.locator("#status")).to_have_text("The match has begun. It is your turn.")
    expect(spectator.locator("#turn-line")).to_contain_text("alice (First) to move")
    expect(spectator.locator("#kickoff-banner")).to_be_hidden()
    assert page.evaluate("window.notReloaded") is True
    assert "opened" in page.evaluate("window.__frames")


def test_replay_steps_back_and_forward_with_the_turn_in_the_url(
    open_page, live_match, alice, bob
) -> None:
    match = live_match
    commit_now(match, alice, opening(match), assert_accepted=True)
    commit_now(match, bob, {"kind": "pass"}, assert_accepted=True)
    commit_now(match, alice, {"kind": "pass"}, assert_accepted=True)
    url = match_url(match)

    page = open_page(f"{url}?turn=1")
    banner = page.locator("#replay-banner")
    expect(banner).to_contain_text("Replay: the board after move 1 of 3.")
    expect(cell(page, "H8")).to_have_class(TILE)
    expect(page.locator("#moves li[aria-current=step]")).to_have_attribute("value", "1")

    page.get_by_role("button", name="Back").click()
    expect(page).to_have_url(re.compile(r"\?turn=0$"))
    expect(banner).to_contain_text("Replay: the board before the first move.")
    expect(cell(page, "H8")).to_have_text("★")
    expect(page.get_by_role("button", name="First")).to_be_disabled()

    page.get_by_role("button", name="Forward").click()
    expect(page).to_have_url(re.compile(r"\?turn=1$"))
    page.get_by_role("button", name="Forward").click()
    expect(page).to_have_url(re.compile(r"\?turn=2$"))
    expect(banner).to_contain_text("after move 2 of 3")

    page.get_by_role("button", name="Last").click()
    expect(page).to_have_url(re.compile(rf"{url}$"))
    expect(banner).to_be_hidden()
    expect(page.locator("#replay-position")).to_have_text("Live · 3 moves")

    page.go_back()  # the browser's history steps through the replay too
    expect(page).to_have_url(re.compile(r"\?turn=2$"))
    expect(banner).to_contain_text("after move 2 of 3")

    # A player's replay: no controls, and of the racks only their own, as it was then.
    player = open_page(f"{url}?turn=1", bob)
    expect(player.locator("#replay-banner")).to_contain_text("Your rack then:")
    expect(player.locator("#play-panel")).to_be_hidden()
    bob_then = match.turns.get(number=2).rack_before
    then = " ".join("blank" if tile == "?" else tile for tile in bob_then)
    expect(player.locator("#replay-banner")).to_contain_text(f"Your rack then: {then}.")


# ------------------------------------------------------------------ seats and the session


def test_take_a_seat_then_sign_in_again_when_the_session_expires(
    open_page, make_fixture, alice, bob
) -> None:
    match = make_fixture(first=alice)  # no kick-off time: it opens when both seats are taken
    url = match_url(match)
    visitor = open_page(url)
    expect(visitor.get_by_role("button", name="Take a seat")).to_have_count(0)
    visitor.get_by_role("link", name="Sign in to take a seat").click()
    sign_in(visitor, bob)
    expect(visitor).to_have_url(re.compile(rf"{url}$"))
    expect(visitor.locator("#match")).to_have_attribute("data-synced", "yes")
    host = open_page(url, alice)

    visitor.get_by_role("button", name="Take a seat as Second").click()
    expect(visitor.locator("#your-seat")).to_have_text("You are seated as Second.")
    # Both seats are taken, so the match opens at once: both boards, no reload.
    expect(visitor.locator("#status")).to_have_text("The match has begun.")
    expect(visitor.locator("#your-rack button.tile")).to_have_count(7)
    expect(host.locator("#turn-line")).to_contain_text("Your turn")
    expect(host.locator("#seats")).to_contain_text("bob")

    commit_now(match, alice, opening(match), assert_accepted=True)
    expect(visitor.locator("#turn-line")).to_contain_text("Your turn")
    tile = next(tile for tile in rack_of(match, 1) if tile != "?")
    rack_tile(visitor, tile).click()
    cell(visitor, "H10").click()
    expect(cell(visitor, "H10")).to_have_class(STAGED)

    # The session lapses (as after a day): the next request sends Bob to sign in, and back.
    for session in Session.objects.all():
        if session.get_decoded().get("_auth_user_id") == str(bob.pk):
            session.delete()
    visitor.get_by_role("button", name="Play word").click()
    expect(visitor).to_have_url(
        re.compile(r"/accounts/sign-in/\?next=%2Fmatches%2F\d+%2F&session=ended$")
    )
    sign_in(visitor, bob)
    expect(visitor).to_have_url(re.compile(rf"{url}$"))
    expect(visitor.locator("#match")).to_have_attribute("data-synced", "yes")
    # Nothing committed was lost, and the tile he was placing is where he left it.
    expect(cell(visitor, "H10")).to_have_class(STAGED)
    expect(visitor.locator("#turn-line")).to_contain_text("Your turn")
    match.refresh_from_db()
    assert match.turn_number == 1
    assert_tiles_conserved(match)


def test_the_page_reconnects_resyncs_and_shows_the_end(open_page, live_match, alice) -> None:
    match = live_match
    page = open_page(match_url(match), init_script=SOCKET_SPY)
    page.evaluate("window.__blockSockets = true; window.__sockets.at(-1).close()")
    expect(page.locator("#connection")).to_contain_text("Connection lost. Reconnecting in")
    expect(page.locator("#match")).to_have_attribute("data-synced", "no")

    commit_now(match, alice, opening(match), assert_accepted=True)  # news the page cannot hear
    # A retry, refused: it backs off. (Polled with evaluate: wait_for_function compiles its
    # expression with eval, which the page's Content-Security-Policy rightly forbids.)
    for _ in range(200):
        if page.evaluate("window.__sockets.length") >= 2:
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError("the page never retried its socket")
    page.evaluate("window.__blockSockets = false")
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes", timeout=30_000)
    expect(page.locator("#connection")).to_be_hidden()
    expect(page.locator("#moves")).to_contain_text("alice (First) played")
    expect(cell(page, "H8")).to_have_class(TILE)
    assert page.evaluate("window.__sockets.length") >= 3  # the first, a refused one, the new one
    assert page.evaluate("window.__frames").count("snapshot") == 2

    # Three days without a move: Bob forfeits, and the page says how it ended.
    services.match_apply_deadlines(match_id=match.id, now=timezone.now() + timedelta(days=4))
    expect(page.locator("#turn-line")).to_contain_text("Match over: alice (First) won")
    expect(page.locator("#match-result")).to_have_text("alice (First) won")
    expect(page.locator("#match-ended-by")).to_have_text("Forfeit")


# ------------------------------------------------------------------ looks: phone, dark mode


def test_screenshots_on_desktop_phone_and_in_dark_mode(
    open_page, live_match, alice, bob, tmp_path
) -> None:
    match = live_match
    players = {0: alice, 1: bob}
    for seed in range(6):
        match.refresh_from_db()
        commit_now(match, players[match.to_move], legal_play(match, seed), assert_accepted=True)
    out = ROOT / "docs" / "screenshots" if os.environ.get("SAVE_SCREENSHOTS") else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    url = match_url(match)
    match.refresh_from_db()
    player = players[match.to_move]

    # Two tiles staged beside the words already down, so the pictures show staging too.
    rows = board_rows(get_ruleset(match.ruleset).board_size, list(match.turns.order_by("number")))
    spot = next(
        (r, c)
        for r in range(15)
        for c in range(14)
        if rows[r][c] == rows[r][c + 1] == "."
        and any(
            0 <= r + dr < 15 and 0 <= c + dc < 15 and rows[r + dr][c + dc] != "."
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        )
    )
    letters = [tile for tile in rack_of(match, match.to_move) if tile != "?"][:2]
    staging = [
        {"row": spot[0], "col": spot[1] + i, "letter": letter, "blank": False}
        for i, letter in enumerate(letters)
    ]

    def stage_two(page: Page) -> None:
        stage_by_clicks(page, staging)
        page.evaluate("window.scrollTo(0, 0)")

    desktop = open_page(url, player)
    stage_two(desktop)
    desktop.screenshot(path=out / "board-desktop.png")

    phone = open_page(url, player, viewport=PHONE, is_mobile=True, has_touch=True)
    stage_two(phone)
    # The page fits the phone's width; the board scrolls sideways in its own area.
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    wrap = phone.locator("#board-wrap")
    assert wrap.evaluate("el => el.scrollWidth > el.clientWidth")
    assert wrap.evaluate("el => el.getBoundingClientRect().right") <= PHONE["width"]
    phone.screenshot(path=out / "board-phone.png")
    phone.locator("#your-rack").scroll_into_view_if_needed()
    phone.screenshot(path=out / "board-phone-rack.png")

    dark = open_page(url, player, color_scheme="dark")
    stage_two(dark)
    toggle = dark.get_by_role("button", name="Dark mode")
    expect(toggle).to_have_attribute("aria-pressed", "true")  # follows the system setting
    dark.screenshot(path=out / "board-dark.png")

    # The toggle overrides the system and is remembered.
    light = open_page(url, player)
    toggle = light.get_by_role("button", name="Dark mode")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(light.locator("html")).to_have_attribute("data-theme", "dark")
    light.reload()
    expect(light.locator("html")).to_have_attribute("data-theme", "dark")
    expect(light.get_by_role("button", name="Dark mode")).to_have_attribute("aria-pressed", "true")
    for name in ("board-desktop", "board-phone", "board-phone-rack", "board-dark"):
        assert (out / f"{name}.png").stat().st_size > 10_000
