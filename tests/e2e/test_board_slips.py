"""Slips on the board page, in a real browser: a blank on the board looks like its letter
(upright, not an italic I with a dotted line under it, which reads as "!") and is marked as a
blank; after the game, a replay step says which word the player played, not only its score."""

from __future__ import annotations

import pytest

from analysis.best import best_play_of
from matches.models import Match, Seat, Turn
from tests.e2e.browser import expect
from tests.matches.helpers import commit_move
from tests.matches.test_records import play_out
from tests.matches.test_ws_helpers import seeded_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: A seed whose first rack holds a blank (??ADMOT): it opens IT with the blank as the I.
BLANK_SEED = 19


def test_a_blank_on_the_board_looks_like_its_letter_and_is_marked_blank(
    open_page, make_fixture, alice, bob
) -> None:
    match = seeded_match(make_fixture, alice, bob, seed=BLANK_SEED)
    assert "?" in Seat.objects.get(match=match, position=0).rack
    tiles = [
        {"row": 7, "col": 7, "letter": "I", "blank": True},
        {"row": 7, "col": 8, "letter": "T", "blank": False},
    ]
    outcome = commit_move(
        match_id=match.id,
        member=alice,
        move={"kind": "play", "tiles": tiles},
        against_turn=0,
        client_id="blank-i",
    )
    assert outcome.accepted, outcome.message
    page = open_page(f"/matches/{match.id}/", bob)
    square = page.locator('td[data-square="H8"]')
    expect(square).to_have_class("sq tile blank last")
    expect(square).to_have_attribute("aria-label", "H8, I, blank, last move")
    letter = square.locator(".letter")
    expect(letter).to_have_text("I")
    style = letter.evaluate(
        "(node) => { const s = getComputedStyle(node);"
        " return [s.fontStyle, s.textDecorationLine, s.borderTopStyle]; }"
    )
    assert style[0] == "normal", "an italic I reads as a slash or a '!'"
    assert style[1] == "none", "a dotted line under an I reads as a '!'"
    assert style[2] == "solid", "a blank is marked (ringed) apart from a letter tile"
    # The letter tile beside it is not marked so.
    plain = page.locator('td[data-square="I8"] .letter').evaluate(
        "(node) => getComputedStyle(node).borderTopStyle"
    )
    assert plain == "none"


def test_a_replay_step_names_the_word_the_player_played(
    open_page, live_match: Match, alice, bob
) -> None:
    match = play_out(live_match, (alice, bob), seed=1)
    assert match.is_over
    turns = list(Turn.objects.filter(match=match).order_by("number"))
    index, played = next(
        (i, turn) for i, turn in enumerate(turns) if turn.position == 0 and turn.kind == "play"
    )
    main = played.words[0]
    best = best_play_of(match, turns, index)
    same = {(t["row"], t["col"], t["letter"]) for t in best.placement} == {
        (t["row"], t["col"], t["letter"]) for t in played.placement
    }
    page = open_page(f"/matches/{match.id}/?turn={index}", alice)
    analysis = page.locator("#replay-analysis")
    expect(analysis).to_contain_text(
        f"Move {played.number}, from this board and your rack: you played {main['word']} "
        f"at {main['position']} for {played.score}."
    )
    expect(analysis).to_contain_text(
        f"The best play the engine finds: {best.words[0]['word']} at {best.words[0]['position']}"
        f" for {best.score}"
    )
    if same:
        expect(analysis).to_contain_text("the play you made")
    else:
        expect(analysis).not_to_contain_text("the play you made")
