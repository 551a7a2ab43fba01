"""Reword on the board page, in a real browser: swaps and steals made with clicks, sent as the
play's takes, marked on everyone's board, shown again and in the replay (RULES.md 20).

The test chooses the moves (the engine's own generators, ``engine.takegen`` for take-plays,
on the position the server holds), the browser makes them: a steal is a click on the board
tile, a swap a click on a rack tile then on the board tile, then the play's tiles as any
play's. Two members play a whole Reword game while a spectator watches; a member plays a
whole Reword practice game against the computer (a real Celery worker answers).
"""

from __future__ import annotations

import os
import random
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page

from accounts.models import Member
from engine import Game, Pass, Play, StealTake, Swap, SwapTake, TakePlay
from engine.errors import MoveError, TakeBreaksWord
from engine.movegen import legal_plays
from engine.reword import apply_takes, steal_squares
from engine.takegen import take_plays
from engine.wordgraph import word_graph
from lexicon.lexicon import get_lexicon
from matches import services, visibility
from matches.models import Match
from matches.schemas import TakeView
from matches.visibility.pages import take_text
from practice.opponent import computer_move
from tests.e2e.browser import expect
from tests.e2e.test_board import (
    ROOT,
    cell,
    give_a_blank,
    match_url,
    move_focus_to,
    square,
    submit_move,
)
from tests.e2e.test_practice_whole_game import wait_for_her_turn_or_the_end
from tests.matches.helpers import assert_tiles_conserved, commit_now, game_of
from tests.matches.reword_helpers import best_plain, best_take, planned_move, reword_match
from tests.matches.test_clock_celery import celery_worker_with_beat  # noqa: F401 (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BLOCKED = re.compile(r"\bblocked\b")
TOOK_NOW = re.compile(r"\btook-now\b")
TOOK = re.compile(r"\btook\b")
#: A whole game is some 20-30 turns; far more means something is stuck.
MAX_TURNS = 80
#: The computer answers within a few seconds (the beat sweep catches a lost one).
ANSWER_TIMEOUT_S = 40


# ------------------------------------------------------------------ the driver's oracle


def lexicon() -> Any:
    return get_lexicon("enable")


def a_take_play(game: Game, seat: int, *, sort: str | None = None) -> TakePlay | None:
    """The best-scoring one-take take-play of ``seat`` (a ``sort``: steal or swap, if given)."""
    found = take_plays(
        game.board,
        game.racks[seat],
        ruleset=game.ruleset,
        lexicon=lexicon(),
        max_takes=1,
        deadline=time.monotonic() + 3,
        graph=word_graph(lexicon()),
    )
    kind = {"steal": StealTake, "swap": SwapTake, None: StealTake | SwapTake}[sort]
    fitting = [
        found_move
        for found_move in found
        if isinstance(found_move.move, TakePlay) and isinstance(found_move.move.takes[0], kind)
    ]
    best = max(fitting, key=lambda found_move: found_move.score, default=None)
    return None if best is None else best.move  # type: ignore[return-value]


def a_breaking_steal(game: Game, seat: int) -> tuple[StealTake, str] | None:
    """A steal the shape allows but whose word left behind is not a word, and that word."""
    for row, col in steal_squares(game.board):
        take = StealTake(row, col)
        try:
            apply_takes(game.board, game.racks[seat], (take,), lexicon=lexicon())
        except TakeBreaksWord as error:
            return take, error.message
    return None


def warning(game: Game, seat: int, take: StealTake | SwapTake) -> str:
    """What a take's square adds to its name when the page warns of it at once: the engine's
    refusal if the take leaves a word that is not a word behind, else nothing."""
    try:
        apply_takes(game.board, game.racks[seat], (take,), lexicon=lexicon())
    except TakeBreaksWord as error:
        return f": {error.message}"
    return ""


# ------------------------------------------------------------------ the browser's hands


def own_rack_tile(page: Page, tile: str) -> Any:
    """A rack tile the turn began with (not one taken this turn) holding ``tile``."""
    label = "blank," if tile == "?" else f"{tile},"
    return page.locator(f'#your-rack button[data-tile]:not(.took-now)[aria-label^="{label}"]').first


def any_own_tile(page: Page) -> Any:
    """Some letter tile (not a blank) of the rack the turn began with, still on the rack."""
    return page.locator(
        '#your-rack button[data-tile]:not(.took-now):not([aria-label^="blank"])'
    ).first


def make_takes(page: Page, move: TakePlay) -> None:
    """The move's swaps and steals, by clicks, each marked as it is made."""
    for count, take in enumerate(move.takes, start=1):
        target = cell(page, square(take.row, take.col))
        if isinstance(take, StealTake):
            target.click()
            expect(target).to_have_class(BLOCKED)
        else:
            own_rack_tile(page, "?" if take.blank else take.letter).click()
            target.click()
            if take.blank:
                page.locator("#blank-dialog").get_by_role(
                    "button", name=take.letter, exact=True
                ).click()
            expect(target.locator(".letter")).to_have_text(take.letter)
        expect(target).to_have_class(TOOK_NOW)
        expect(page.locator("#your-rack button.took-now")).to_have_count(count)


def make_move(page: Page, move: Play | TakePlay | Swap | Pass) -> None:
    """Any move through the page, then "Play word" (or the swap's or pass's buttons)."""
    if isinstance(move, TakePlay):
        make_takes(page, move)
    submit_move(page, move)


def take_view(take: StealTake | SwapTake, game: Game) -> TakeView:
    """The news's view of a take made on ``game``'s board (what MoveView.takes carries)."""
    face = game.board.cells[take.row * game.board.size + take.col]
    assert face is not None
    swap = isinstance(take, SwapTake)
    return TakeView(
        take="swap" if swap else "steal",
        row=take.row,
        col=take.col,
        letter=face.upper(),
        blank=face.islower(),
        placed=take.letter if isinstance(take, SwapTake) else None,
        placed_blank=take.blank if isinstance(take, SwapTake) else False,
    )


def take_words(move: TakePlay, game: Game) -> str:
    """How "Show again" says a take-play's takes (board.js ``takeText``)."""
    parts = []
    for take in move.takes:
        name = square(take.row, take.col)
        face = game.board.cells[take.row * game.board.size + take.col]
        assert face is not None
        taken = face if face.isupper() else f"a blank ({face.upper()})"
        if isinstance(take, StealTake):
            parts.append(f"stole {taken} from {name}")
        else:
            put = f"a blank ({take.letter})" if take.blank else take.letter
            parts.append(f"swapped {put} for {taken} on {name}")
    return ", ".join(parts)


# ------------------------------------------------------------------ two members


def test_two_members_play_a_whole_reword_game_with_swaps_and_steals(
    open_page, make_fixture, alice: Member, bob: Member
) -> None:
    match = reword_match(make_fixture, alice, bob, seed=3)
    pages = [open_page(match_url(match), alice), open_page(match_url(match), bob)]
    spectator = open_page(match_url(match))
    for page in pages:
        expect(page.locator("#reword-help")).to_be_visible()
        expect(page.locator("#your-rack button.tile")).to_have_count(7)
    expect(spectator.locator("#play-panel")).to_be_hidden()

    made: dict[str, int] = {}  # the first turn of each sort of take-play: steal, swap, two
    refused_once = False
    for _ in range(MAX_TURNS):
        match.refresh_from_db()
        if match.is_over:
            break
        seat = match.to_move
        page, other = pages[seat], pages[1 - seat]
        expect(page.locator("#turn-line")).to_contain_text("Your turn")
        game = game_of(match)
        turn = match.turn_number + 1

        # Once: a steal that leaves a non-word behind is refused in the engine's words, and
        # the board and rack go back to the position.
        breaking = None if refused_once or game.board.is_empty else a_breaking_steal(game, seat)
        if breaking is not None:
            take, message = breaking
            target = cell(page, square(take.row, take.col))
            letter = target.locator(".letter").inner_text()
            target.click()
            expect(target).to_have_class(BLOCKED)
            expect(page.locator("#your-rack button.took-now")).to_have_count(1)
            page.locator("#your-rack button.took-now").click()
            free = next(
                (row, col)
                for row in range(15)
                for col in range(15)
                if game.board.cells[row * 15 + col] is None and (row, col) != (take.row, take.col)
            )
            cell(page, square(*free)).click()
            page.get_by_role("button", name="Play word").click()
            expect(page.locator("#status")).to_have_text(message)
            expect(target).not_to_have_class(BLOCKED)
            expect(target.locator(".letter")).to_have_text(letter)
            expect(page.locator("#your-rack button.took-now")).to_have_count(0)
            expect(page.locator("#your-rack button.tile")).to_have_count(7)
            match.refresh_from_db()
            assert match.turn_number == turn - 1
            refused_once = True

        # The plan of the server's own Reword tests: plain plays, steals, swaps, two takes.
        move = planned_move(game)
        make_move(page, move)
        expect(spectator.locator("#moves li")).to_have_count(turn)
        expect(other.locator("#moves li")).to_have_count(turn)

        sort = None
        if isinstance(move, TakePlay):
            sort = "two" if len(move.takes) > 1 else move.takes[0].kind
        first_of_its_sort = sort is not None and sort not in made
        if sort is not None and first_of_its_sort:
            made[sort] = turn
        if isinstance(move, TakePlay):
            # Everyone's move list says what was taken; the opponent's and the spectator's
            # boards mark the takes, and "Show again" shows them before the word.
            words = take_words(move, game)
            line = ", ".join(take_text(take_view(take, game)) for take in move.takes)
            expect(spectator.locator("#moves li").nth(turn - 1)).to_contain_text(
                f"{line}, then played"
            )
            for watcher in (other, spectator):
                for take in move.takes:
                    expect(cell(watcher, square(take.row, take.col))).to_have_class(TOOK)
                expect(watcher.locator("td.took")).to_have_count(2 * len(move.takes))
            expect(page.locator("td.took-now")).to_have_count(0)
            expect(page.locator("#your-rack button.took-now")).to_have_count(0)
        if first_of_its_sort:
            # The first of each sort: "Show again" makes the takes before laying the word.
            other.get_by_role("button", name=re.compile(r"^Show again:")).click()
            expect(other.locator("#status")).to_contain_text(f"again: {words}, then ")
            expect(other.locator("#match")).to_have_class(re.compile(r"showing-last"))
            expect(other.locator("#match")).not_to_have_class(
                re.compile(r"showing-last"), timeout=30_000
            )
            for take in move.takes:
                expect(cell(other, square(take.row, take.col))).to_have_class(TOOK)
    else:
        raise AssertionError(f"no end after {MAX_TURNS} turns")

    assert set(made) == {"steal", "swap", "two"}, made
    assert refused_once, "no steal that breaks a word came up to be refused"
    assert_tiles_conserved(match)
    turns = {turn.number: turn for turn in match.turns.all()}
    for sort, number in made.items():
        kinds = [take["take"] for take in turns[number].takes]
        assert len(kinds) == 2 if sort == "two" else kinds == [sort]

    # The end, as everyone's page shows it.
    scores = "\u2013".join(str(seat.score) for seat in match.seats.order_by("position"))
    for page in (*pages, spectator):
        expect(page.locator("#turn-line")).to_contain_text("Match over: ")
        expect(page.locator("#turn-line")).to_contain_text(scores)

    # The replay of each take-play marks its takes, and its move line names them.
    for number in sorted(made.values()):
        spectator.goto(f"{match_url(match)}?turn={number}")
        expect(spectator.locator("#replay-banner")).to_contain_text(f"after move {number} of")
        take = turns[number].takes[0]
        target = cell(spectator, square(take["row"], take["col"]))
        expect(target).to_have_class(TOOK)
        verb = "its tile stolen" if take["take"] == "steal" else "swapped"
        expect(target).to_have_attribute("aria-label", re.compile(f"{verb} in the last play$"))
        expect(spectator.locator(f'#moves li[value="{number}"]')).to_contain_text(
            "stole" if take["take"] == "steal" else "swapped"
        )
        expect(spectator.locator("td.took")).to_have_count(2 * len(turns[number].takes))


# ------------------------------------------------------------------ against the computer


@pytest.mark.slow
def test_a_member_plays_a_whole_reword_game_against_the_computer(
    open_page,
    alice: Member,
    celery_worker_with_beat,  # noqa: F811
) -> None:
    process, log = celery_worker_with_beat
    page = open_page("/", alice, wait=False)
    page.get_by_label("Level").select_option("hard")
    page.get_by_label("Game (a duel)").select_option("reword")
    page.get_by_role("button", name="Play the computer").click()
    expect(page.locator("#match")).to_have_attribute("data-synced", "yes")
    match = Match.objects.get(seats__member=alice)
    assert match.ruleset == "reword"
    expect(page.locator("#reword-help")).to_be_visible()

    rng = random.Random("reword")
    hers: list[str] = []
    for _ in range(MAX_TURNS):
        match = wait_for_her_turn_or_the_end(match, page, timeout_s=ANSWER_TIMEOUT_S)
        if match.is_over:
            break
        game = game_of(match)
        # Her first take-play as soon as there is one; else her best move from her own view.
        move: Any = None
        if "take_play" not in hers and not game.board.is_empty:
            move = a_take_play(game, 0)
        if move is None:
            view = visibility.match_view(
                services.look_at_match(user=alice, match_id=match.id, key=None)
            )
            move = computer_move(view, level="hard", rng=rng).move.move
        make_move(page, move)
        hers.append(move.kind)
        verb = {"swap": "swapped", "pass": "passed", "take_play": ""}.get(move.kind, "played")
        expect(page.locator("#moves li").nth(match.turn_number)).to_contain_text(
            f"alice (First) {verb}" if verb else ", then played"
        )
    else:
        raise AssertionError(f"no end after {MAX_TURNS} of her turns")
    assert process.poll() is None, log.read_text()

    assert "take_play" in hers, hers
    assert match.status == Match.Status.FINISHED
    turns = list(match.turns.order_by("number"))
    assert sum(bool(turn.takes) for turn in turns if turn.position == 0) >= 1
    assert sum(turn.kind == "play" for turn in turns if turn.position == 1) >= 3
    scores = "\u2013".join(str(seat.score) for seat in match.seats.order_by("position"))
    expect(page.locator("#turn-line")).to_contain_text(scores)
    assert_tiles_conserved(match)
    # Her take-play in the replay: its squares marked, as on the live board then.
    number = next(turn.number for turn in turns if turn.position == 0 and turn.takes)
    page.goto(page.url.split("?")[0] + f"?turn={number}")
    take = next(turn.takes for turn in turns if turn.number == number)[0]
    expect(cell(page, square(take["row"], take["col"]))).to_have_class(TOOK)


# ------------------------------------------------------------------ the hands, one by one


def test_takes_by_keyboard_and_drag_undone_and_held_to_the_rules(
    open_page, make_fixture, alice: Member, bob: Member, tmp_path: Path
) -> None:
    match = reword_match(make_fixture, alice, bob, seed=1)
    game = game_of(match)
    plays = legal_plays(
        game.board, game.racks[0], ruleset=game.ruleset, graph=word_graph(lexicon())
    )
    opening = max((play for play in plays if len(play.tiles) >= 4), key=lambda play: play.score)
    commit_now(match, alice, Play(opening.tiles), assert_accepted=True)
    give_a_blank(match, 1)
    page = open_page(match_url(match), bob)
    expect(page.locator("#your-rack button.tile")).to_have_count(7)
    expect(page.locator("#turn-line")).to_contain_text("Your turn")
    game = game_of(match)
    word = sorted((tile.row, tile.col) for tile in opening.tiles)
    first, last = square(*word[0]), square(*word[-1])
    middle = square(*word[1])
    letter_at = {square(t.row, t.col): t.letter for t in opening.tiles}
    rack = page.locator("#your-rack button.tile")
    taken = page.locator("#your-rack button.took-now")

    # The keyboard: Enter on a word's last letter steals it; Backspace undoes it.
    cell(page, "A1").click()
    expect(page.locator("#hint")).to_have_text("Pick a tile from your rack first.")
    move_focus_to(page, last)
    page.keyboard.press("Enter")
    expect(cell(page, last)).to_have_class(BLOCKED)
    expect(cell(page, last)).to_have_attribute(
        "aria-label", f"{last}, empty, blocked: you stole from it this turn"
    )
    expect(rack).to_have_count(8)
    expect(taken).to_have_attribute(
        "aria-label", re.compile(f"stolen from {last}: play it this turn$")
    )
    expect(page.locator("#hint")).to_contain_text(f"You stole {letter_at[last]} from {last}")
    page.keyboard.press("Backspace")
    expect(cell(page, last)).not_to_have_class(BLOCKED)
    expect(cell(page, last).locator(".letter")).to_have_text(letter_at[last])
    expect(rack).to_have_count(7)

    # A middle letter cannot be stolen: said at once, nothing taken.
    cell(page, middle).click()
    expect(page.locator("#hint")).to_have_text(
        "You can only steal the first or last letter of a word."
    )
    expect(taken).to_have_count(0)

    # Dragging a rack tile onto a board tile swaps them.
    own = next(tile for tile in game.racks[1] if tile != "?")
    own_rack_tile(page, own).drag_to(cell(page, first))
    expect(cell(page, first)).to_have_class(TOOK_NOW)
    expect(cell(page, first).locator(".letter")).to_have_text(own)
    expect(cell(page, first)).to_have_attribute(
        "aria-label",
        f"{first}, {own}, swapped this turn{warning(game, 1, SwapTake(*word[0], own))}",
    )
    expect(taken).to_have_count(1)
    expect(rack).to_have_count(7)  # one down on the board, one up from it

    # A tile taken this turn can only be played; a square is taken from once a turn.
    taken.click()
    cell(page, last).click()
    expect(page.locator("#hint")).to_contain_text("can only be played")
    page.keyboard.press("Escape")
    cell(page, last).click()  # a steal of the other end
    expect(cell(page, last)).to_have_class(BLOCKED)
    expect(taken).to_have_count(2)
    expect(cell(page, last)).to_have_attribute("data-shade", "1")
    expect(cell(page, first)).to_have_attribute("data-shade", "0")
    any_own_tile(page).click()
    cell(page, first).click()
    expect(page.locator("#hint")).to_have_text(
        "You have already swapped or stolen on that square this turn."
    )
    page.keyboard.press("Escape")

    # Clicking a swapped square undoes that swap and every take after it.
    cell(page, first).click()
    expect(page.locator("#hint")).to_have_text("Undone: that take and the 1 take after it.")
    expect(cell(page, first).locator(".letter")).to_have_text(letter_at[first])
    expect(cell(page, last).locator(".letter")).to_have_text(letter_at[last])
    expect(taken).to_have_count(0)
    expect(page.locator("td.took-now")).to_have_count(0)

    # A blank swapped down asks its letter; four takes at most; Recall undoes them all.
    own_rack_tile(page, "?").click()
    cell(page, first).click()
    page.locator("#blank-dialog").get_by_role("button", name="Q", exact=True).click()
    expect(cell(page, first)).to_have_class(re.compile(r"\bblank\b"))
    expect(cell(page, first)).to_have_attribute(
        "aria-label",
        f"{first}, Q, blank, swapped this turn{warning(game, 1, SwapTake(*word[0], 'Q', True))}",
    )
    squares = [square(row, col) for row, col in word]
    for name in squares[1:4]:
        any_own_tile(page).click()
        cell(page, name).click()
        expect(cell(page, name)).to_have_class(TOOK_NOW)
    expect(taken).to_have_count(4)
    # The picture of four takes, one shade each (docs/screenshots with SAVE_SCREENSHOTS=1).
    out = ROOT / "docs" / "screenshots" if os.environ.get("SAVE_SCREENSHOTS") else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=out / "board-reword.png")
    assert (out / "board-reword.png").stat().st_size > 10_000
    any_own_tile(page).click()
    cell(page, squares[0]).click()
    expect(page.locator("#hint")).to_have_text("You can swap or steal at most 4 tiles in a turn.")
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Recall").click()
    expect(page.locator("#hint")).to_have_text(
        "Your swaps and steals are undone and your tiles are back on the rack."
    )
    expect(page.locator("td.took-now")).to_have_count(0)
    expect(taken).to_have_count(0)
    expect(rack).to_have_count(7)
    for name in squares:
        expect(cell(page, name).locator(".letter")).to_have_text(letter_at[name])
    match.refresh_from_db()
    assert match.turn_number == 1

    # A whole take-play by keyboard alone: the steal, then each tile typed and placed.
    move = a_take_play(game_of(match), 1, sort="steal")
    assert move is not None
    steal = move.takes[0]
    cell(page, "A1").click()  # an empty square: the board has the focus, nothing changes
    move_focus_to(page, square(steal.row, steal.col))
    page.keyboard.press("Enter")
    expect(cell(page, square(steal.row, steal.col))).to_have_class(BLOCKED)
    for tile in move.tiles:
        page.keyboard.press("?" if tile.blank else tile.letter.lower())
        move_focus_to(page, square(tile.row, tile.col))
        page.keyboard.press("Enter")
        if tile.blank:
            page.keyboard.press(tile.letter.lower())
        expect(cell(page, square(tile.row, tile.col))).to_have_class(re.compile(r"\bstaged\b"))
    page.get_by_role("button", name="Play word").click()
    expect(page.locator("#status")).to_contain_text("You played")
    turn = match.turns.get(number=2)
    assert [take["take"] for take in turn.takes] == ["steal"]
    assert_tiles_conserved(match)


# ------------------------------------------------------------------ earlier turns' takes


def a_breaking_take(game: Game, seat: int) -> tuple[StealTake | SwapTake, str] | None:
    """A steal (else a swap of a rack letter) the shape allows but that leaves a word that is
    not a word behind, and the engine's refusal of it."""
    breaking: tuple[StealTake | SwapTake, str] | None = a_breaking_steal(game, seat)
    if breaking is not None:
        return breaking
    size = game.board.size
    for index, face in enumerate(game.board.cells):
        if face is None:
            continue
        for letter in sorted({tile for tile in game.racks[seat] if tile != "?"}):
            take = SwapTake(index // size, index % size, letter)
            try:
                apply_takes(game.board, game.racks[seat], (take,), lexicon=lexicon())
            except TakeBreaksWord as error:
                return take, error.message
            except MoveError:  # another refusal: not the one looked for
                continue
    return None


def test_earlier_turns_takes_stay_marked_and_a_take_that_breaks_a_word_is_warned_of(
    open_page, make_fixture, alice: Member, bob: Member
) -> None:
    match = reword_match(make_fixture, alice, bob, seed=1)
    players = (alice, bob)

    # Turn 1 a plain play; turn 2 a steal; turn 3 a swap; turn 4 a plain play (the last play).
    takes: dict[int, StealTake | SwapTake] = {}
    for number, sort in ((1, None), (2, "steal"), (3, "swap"), (4, None)):
        game = game_of(match)
        move: Any = Play(best_plain(game).tiles) if sort is None else best_take(game, sort=sort)
        assert move is not None, f"no {sort} for turn {number}"
        if isinstance(move, TakePlay):
            takes[number] = move.takes[0]
        commit_now(match, players[game.to_move], move, assert_accepted=True)
    match.refresh_from_db()
    assert match.turn_number == 4
    labels = {2: "a letter stolen here in turn 2", 3: "swapped in turn 3"}

    # On everyone's board: each earlier take's square keeps a notch of its sort and says its turn.
    spectator = open_page(match_url(match))
    page = open_page(match_url(match), alice)
    for watcher in (spectator, page):
        expect(watcher.locator("td.past-take")).to_have_count(2)
        expect(watcher.locator("td.took")).to_have_count(0)  # the last play took nothing
        for number, take in takes.items():
            target = cell(watcher, square(take.row, take.col))
            expect(target).to_have_attribute("data-past-take", take.kind)
            expect(target).to_have_attribute("aria-label", re.compile(f", {labels[number]}$"))

    # "Show again" of the last play keeps them.
    spectator.get_by_role("button", name=re.compile(r"^Show again:")).click()
    expect(spectator.locator("#match")).to_have_class(re.compile(r"showing-last"))
    expect(spectator.locator("td.past-take")).to_have_count(2)

    # The replay at each step: marks up to that turn, the step's own takes as the last play's.
    steal, swap = takes[2], takes[3]
    spectator.goto(f"{match_url(match)}?turn=2")
    expect(spectator.locator("#replay-banner")).to_contain_text("after move 2 of")
    expect(spectator.locator("td.past-take")).to_have_count(0)
    expect(cell(spectator, square(steal.row, steal.col))).to_have_class(TOOK)
    spectator.goto(f"{match_url(match)}?turn=3")
    expect(spectator.locator("#replay-banner")).to_contain_text("after move 3 of")
    expect(spectator.locator("td.past-take")).to_have_count(1)
    expect(cell(spectator, square(steal.row, steal.col))).to_have_attribute(
        "aria-label", re.compile(f", {labels[2]}$")
    )
    expect(cell(spectator, square(swap.row, swap.col))).to_have_class(TOOK)

    # A take that leaves a non-word behind is warned of at once, from the public word checker
    # asked about the words left (with the match's word list and ruleset, nothing else).
    expect(page.locator("#turn-line")).to_contain_text("Your turn")
    game = game_of(match)
    breaking = a_breaking_take(game, 0)
    assert breaking is not None, "no take that breaks a word on this board"
    take, message = breaking
    bad = re.search(r"leave (\w+) on", message)
    assert bad is not None, message
    target = cell(page, square(take.row, take.col))
    with page.expect_request(re.compile(r"/api/words/\?")) as asked:
        if isinstance(take, SwapTake):
            own_rack_tile(page, take.letter).click()
        target.click()
    query = parse_qs(urlsplit(asked.value.url).query)
    assert set(query) == {"q", "lexicon", "ruleset"}, query
    assert query["lexicon"] == ["enable"], query
    assert query["ruleset"] == ["reword"], query
    assert bad.group(1) in query["q"][0].split(), query
    expect(page.locator("#hint")).to_have_text(
        f"{message} Click {square(take.row, take.col)} to undo the {take.kind}."
    )
    expect(target).to_have_attribute("aria-label", re.compile(f": {re.escape(message)}$"))
    target.click()  # undone
    expect(page.locator("td.took-now")).to_have_count(0)

    # A take that leaves only words: asked, and no warning.
    fine = best_take(game, sort="steal") or best_take(game, sort="swap")
    assert fine is not None
    good = fine.takes[0]
    with page.expect_response(re.compile(r"/api/words/\?")) as answered:
        if isinstance(good, SwapTake):
            own_rack_tile(page, "?" if good.blank else good.letter).click()
        cell(page, square(good.row, good.col)).click()
        if isinstance(good, SwapTake) and good.blank:
            page.locator("#blank-dialog").get_by_role(
                "button", name=good.letter, exact=True
            ).click()
    assert all(verdict["accepted"] for verdict in answered.value.json()["words"])
    expect(cell(page, square(good.row, good.col))).to_have_class(TOOK_NOW)
    expect(page.locator("#hint")).not_to_contain_text("not a word")
