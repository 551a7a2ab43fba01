"""A member plays a whole practice game against the computer at each level, in a browser.

The member's moves are chosen by the test (the engine's best move from her own view: a play,
a swap or a pass) but made through the page: tiles staged with clicks and "Play word", or
the Swap and Pass buttons. The computer's moves come from a real Celery worker through the
commit service. The game runs to its end (no shortened bag: the word-duel ruleset's 100
tiles, a game of about 20 to 30 turns), the result is shown, and the replay then shows her,
and only her, the analysis of her own turns.
"""

from __future__ import annotations

import random
import time

import pytest
from playwright.sync_api import Page

from accounts.models import Member
from engine import Board, get_ruleset
from engine.movegen import best_play, legal_plays
from lexicon.lexicon import get_lexicon
from matches import services, visibility
from matches.models import Match
from practice.models import ComputerOpponent
from practice.opponent import computer_move
from practice.services import COMPUTER_USERNAME
from tests.e2e.browser import expect
from tests.e2e.test_board import submit_move
from tests.matches.test_clock_celery import celery_worker_with_beat  # noqa: F401 (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: A whole game is some 20-30 turns; far more means something is stuck.
MAX_TURNS = 80
#: The computer answers within 2 s (the beat sweep catches a lost one within 20 s).
ANSWER_TIMEOUT_S = 30


def wait_for_her_turn_or_the_end(
    match: Match, page: Page, *, timeout_s: float = ANSWER_TIMEOUT_S
) -> Match:
    """The match once it is her turn (and the page shows it) or once it is over; the
    computer's answer is waited for ``timeout_s`` at the most."""
    deadline = time.monotonic() + timeout_s
    while True:
        match.refresh_from_db()
        if match.is_over or match.to_move == 0:
            break
        assert time.monotonic() < deadline, (
            f"no answer from the computer at turn {match.turn_number}"
        )
        time.sleep(0.2)
    expect(page.locator("#moves li")).to_have_count(match.turn_number, timeout=10_000)
    if not match.is_over:
        expect(page.locator("#turn-line")).to_contain_text("Your turn")
    return match


def make_her_move(page: Page, match: Match, member: Member, rng: random.Random) -> str:
    """Her best move from her own view, made through the page; its kind."""
    view = visibility.match_view(services.look_at_match(user=member, match_id=match.id, key=None))
    move = computer_move(view, level="hard", rng=rng).move.move
    submit_move(page, move)
    # Accepted: her move is in the list the page shows (the computer's answer may already
    # have followed it, and its news replaced the status line).
    verb = {"play": "played", "swap": "swapped", "pass": "passed"}[move.kind]
    expect(page.locator("#moves li").nth(match.turn_number)).to_contain_text(
        f"alice (First) {verb}"
    )
    return move.kind


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_a_member_plays_a_whole_game_against_the_computer(
    level: str,
    open_page,
    alice: Member,
    celery_worker_with_beat,  # noqa: F811
) -> None:
    process, log = celery_worker_with_beat
    page = open_page("/", alice, wait=False)
    page.get_by_label("Level").select_option(level)
    page.get_by_role("button", name="Play the computer").click()
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    match = Match.objects.get(seats__member=alice)
    assert ComputerOpponent.objects.get(match=match).level == level

    rng = random.Random(level)
    hers: list[str] = []
    for _ in range(MAX_TURNS):
        match = wait_for_her_turn_or_the_end(match, page)
        if match.is_over:
            break
        hers.append(make_her_move(page, match, alice, rng))
    else:
        raise AssertionError(f"no end after {MAX_TURNS} of her turns")
    assert process.poll() is None, log.read_text()

    # The end, as the page shows it (without a reload), and as the database holds it.
    result = {
        Match.Result.FIRST: "alice (First) won",
        Match.Result.SECOND: f"{COMPUTER_USERNAME} (Second) won",
        Match.Result.DRAW: "Draw",
    }[Match.Result(match.result)]
    scores = "\u2013".join(str(seat.score) for seat in match.seats.order_by("position"))
    expect(page.locator("#turn-line")).to_have_text(f"Match over: {result}, {scores}.")
    expect(page.locator("#match-result")).to_have_text(result)
    assert match.status == Match.Status.FINISHED
    assert match.end_reason in (Match.EndReason.PLAYED_OUT, Match.EndReason.SIX_SCORELESS)
    turns = list(match.turns.order_by("number"))
    computers = [turn for turn in turns if turn.position == 1]
    assert hers.count("play") >= 3
    assert sum(turn.kind == "play" for turn in computers) >= 3
    assert len(turns) >= 10

    # After the game the replay shows her the engine's best play for her own turns only.
    first = turns[0]
    page.goto(page.url.split("?")[0] + "?turn=0")
    main = first.words[0] if first.words else {}
    played = {
        "play": f"you played {main.get('word')} at {main.get('position')} for {first.score}",
        "swap": "you swapped",
        "pass": "you passed",
    }[first.kind]
    expect(page.locator("#replay-analysis")).to_contain_text(
        f"Move 1, from this board and your rack: {played}."
    )
    rules = get_ruleset(match.ruleset)
    words = get_lexicon(match.lexicon, max_len=rules.lexicon_max_len)
    best = best_play(
        legal_plays(Board.empty(rules.board_size), first.rack_before, ruleset=rules, lexicon=words)
    )
    expect(page.locator("#replay-analysis")).to_contain_text(
        f"The best play the engine finds: {best.words[0].word} at {best.words[0].position} "
        f"for {best.score}"
        if best is not None
        else "The engine finds no play from that rack."
    )
    page.get_by_role("button", name="Forward").click()  # the board before the computer's move
    expect(page.locator("#replay-banner")).to_contain_text("after move 1 of")
    expect(page.locator("#replay-analysis")).to_be_hidden()
