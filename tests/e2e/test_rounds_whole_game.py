"""Word Skill rounds played whole in the browser (docs/RULES.md section 19, issue 39).

Three members and Gramma Ana: the host opens the match from the lobby with Gramma Ana in it,
two members join from the lobby, the host starts the game; every round each member presses
"Start round n" (their tray shows, their own timer runs), and makes a play the test picks
from their own view (the rounds selector, as the socket gives it) with the engine's move
generator, by clicks on the tray and the board, or passes. Gramma Ana plays in the server.
No shortened bag (the server offers no such setting): the whole 142-tile game is played out.
Each round's result is checked on the page against the server's record, the running table
and the final table too, then the bag's seed against its commitment, then the replay page
round by round. Then a member plays Gramma Ana one to one to the end, and sees her Word
Skill rating move on her player page.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page

from accounts.models import Member
from engine import Board, Play, get_ruleset
from engine.movegen import LegalMove, legal_plays
from lexicon.lexicon import get_lexicon
from ratings.elo_ratings import elo_rating_of
from rounds import selectors
from rounds.models import RoundsMatch
from rounds.schemas import RoundResult, RoundsView
from tests.e2e.browser import expect
from tests.e2e.test_board import cell, square

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WORD_SKILL = "word-skill"
#: A whole game is some 25-40 rounds; far more means something is stuck.
MAX_ROUNDS = 80
STAGED = "staged"


def tray_tile(page: Page, tile: str) -> Any:
    """The first tray button still on the tray holding ``tile`` (``?`` for a blank)."""
    label = "blank," if tile == "?" else f"{tile},"
    return page.locator(f'#your-tray button[data-tile][aria-label^="{label}"]').first


def view_of(member: Member, match_id: int) -> RoundsView:
    return selectors.rounds_state(user=member, match_id=match_id)


def choose(plays: tuple[LegalMove, ...], policy: str, rng: random.Random) -> LegalMove | None:
    """The play a player of this policy makes: the best, a middling one, the least, or none."""
    ranked = sorted((p for p in plays if isinstance(p.move, Play)), key=lambda p: -p.score)
    if not ranked:
        return None
    if policy == "best":
        return ranked[0]
    if policy == "middling":
        return ranked[len(ranked) // 2]
    if policy == "passes-sometimes" and rng.random() < 0.2:
        return None
    return ranked[-1]


def play_round(
    page: Page,
    member: Member,
    match_id: int,
    number: int,
    policy: str,
    rng: random.Random,
    *,
    by_keys: bool = False,
) -> int | None:
    """The member starts round ``number`` on the page and plays (or passes) through it; the
    score of their play (None for a pass)."""
    page.get_by_role("button", name=f"Start round {number}").click()
    expect(page.locator("#tray-panel")).to_be_visible()
    expect(page.locator("#your-timer")).to_be_visible()
    expect(page.locator("#your-timer")).to_contain_text("Your time:")
    view = view_of(member, match_id)
    assert view.your_round is not None
    assert view.your_round.number == number
    tray = view.your_round.tray
    expect(page.locator("#your-tray button[data-tile]")).to_have_count(len(tray))
    shown = page.locator("#your-tray button[data-tile] .letter").all_inner_texts()
    assert sorted(shown) == sorted(tray)
    rules = get_ruleset(WORD_SKILL)
    words = get_lexicon("enable", max_len=rules.lexicon_max_len)
    plays = legal_plays(Board.from_rows(view.board), list(tray), ruleset=rules, lexicon=words)
    chosen = choose(plays, policy, rng)
    if chosen is None:
        page.get_by_role("button", name="Pass…").click()
        page.get_by_role("button", name="Yes, pass").click()
        expect(page.locator("#your-submission")).to_contain_text("You passed this round.")
        return None
    assert isinstance(chosen.move, Play)
    for tile in chosen.move.tiles:
        if by_keys:  # the square focused, the letter typed, Enter (a blank's letter typed)
            cell(page, square(tile.row, tile.col)).click()
            page.keyboard.type("?" if tile.blank else tile.letter)
            page.keyboard.press("Enter")
            if tile.blank:
                expect(page.locator("#blank-dialog")).to_be_visible()
                page.keyboard.press(tile.letter.upper())
            expect(cell(page, square(tile.row, tile.col))).to_have_class(_has(STAGED))
            continue
        tray_tile(page, "?" if tile.blank else tile.letter).click()
        cell(page, square(tile.row, tile.col)).click()
        if tile.blank:
            page.locator("#blank-dialog").get_by_role(
                "button", name=tile.letter.upper(), exact=True
            ).click()
        expect(cell(page, square(tile.row, tile.col))).to_have_class(_has(STAGED))
    page.get_by_role("button", name="Play word").click()
    expect(page.locator("#your-submission")).to_contain_text(f"for {chosen.score}.")
    return chosen.score


def _has(css: str) -> re.Pattern[str]:
    return re.compile(rf"\b{css}\b")


def wait_for_close(match_id: int, number: int) -> RoundsMatch:
    """The match once round ``number`` has closed (the next one dealt, or the end)."""
    deadline = time.monotonic() + 20
    while True:
        match = RoundsMatch.objects.get(pk=match_id)
        if match.is_over or match.round_number > number:
            return match
        assert time.monotonic() < deadline, f"round {number} did not close"
        time.sleep(0.1)


def check_result(page: Page, result: RoundResult, names: dict[int, str]) -> None:
    """The page shows round ``result`` as the server recorded it: every play and its score,
    the placed one marked."""
    box = page.locator("#round-result")
    expect(box.locator("h2")).to_have_text(f"Round {result.number} result")
    rows = box.locator("#round-plays tbody tr")
    expect(rows).to_have_count(len(result.players))
    for row in result.players:
        line = box.locator(f'#round-plays tr[data-player="{row.player}"]')
        expect(line.locator("th")).to_have_text(names[row.player])
        expect(line.locator("td.num")).to_have_text(str(row.score))
        if row.status == "played":
            assert row.submission is not None
            expect(line).to_contain_text(row.submission.words[0].word)
    placed = box.locator("#round-plays tr.placed")
    if result.placed is None:
        expect(placed).to_have_count(0)
        expect(box).to_contain_text("nothing was placed")
    else:
        expect(placed).to_have_count(1)
        expect(placed).to_have_attribute("data-player", str(result.placed))
        expect(placed).to_contain_text("placed")


def check_table(page: Page, view: RoundsView, caption: str) -> None:
    table = page.locator("#totals")
    expect(table.locator("caption")).to_have_text(caption)
    for player in view.players:
        expect(table.locator(f'tr[data-player="{player.position}"] td.total')).to_have_text(
            str(player.total)
        )


def check_replay(page: Page, view: RoundsView, names: dict[int, str]) -> None:
    """The replay page shows every round: its tray, every play and score, the one placed."""
    page.goto(f"/rounds/{view.id}/replay/")
    sections = page.locator("section.replay-round")
    expect(sections).to_have_count(len(view.rounds))
    shown = page.evaluate(
        """() => [...document.querySelectorAll("section.replay-round")].map((s) => ({
            number: Number(s.dataset.round),
            tray: s.querySelector(".tray").textContent,
            rows: [...s.querySelectorAll("tbody tr")].map((tr) => ({
              player: Number(tr.dataset.player), name: tr.querySelector("th").textContent,
              play: tr.querySelectorAll("td")[0].textContent,
              score: Number(tr.querySelectorAll("td")[1].textContent),
              placed: tr.classList.contains("placed")})),
        }))"""
    )
    assert [s["number"] for s in shown] == [r.number for r in view.rounds]
    for section, result in zip(shown, view.rounds, strict=True):
        assert section["tray"] == " ".join("blank" if t == "?" else t for t in result.tray)
        by_player = {row["player"]: row for row in section["rows"]}
        for row in result.players:
            seen = by_player[row.player]
            assert seen["name"] == names[row.player]
            assert seen["score"] == row.score
            assert seen["placed"] == (row.player == result.placed)
            if row.status == "played":
                assert row.submission is not None
                assert row.submission.words[0].word in seen["play"]
            elif row.status == "passed":
                assert seen["play"] == "passed"
    # The board after the last round, rebuilt from the placed plays, is the match's board.
    tiles = sum(len(row) - row.count(".") for row in view.board)
    expect(page.locator("#board td.tile")).to_have_count(tiles)
    expect(
        page.get_by_role("heading", name=f"The board after round {len(view.rounds)}")
    ).to_be_visible()
    page.get_by_role("link", name="The board after round 1", exact=True).click()
    expect(page.get_by_role("heading", name="The board after round 1", exact=True)).to_be_visible()
    first = view.rounds[0]
    if first.placed is not None:
        play = next(p.submission for p in first.players if p.player == first.placed)
        assert play is not None
        expect(page.locator("#board td.tile")).to_have_count(len(play.tiles))
        expect(page.locator("#board td.last")).to_have_count(len(play.tiles))
    final = page.locator("#final-table")
    for player in view.players:
        expect(final.locator(f'tr[data-player="{player.position}"] td').first).to_have_text(
            str(player.total)
        )


def test_three_members_and_gramma_ana_play_a_whole_rounds_match(open_page, make_member) -> None:
    alice, bob, carol = (make_member(name) for name in ("alice", "bob", "carol"))
    host = open_page("/rounds/", alice, wait=False)
    pages = {alice.pk: host}
    players = [(alice, "best"), (bob, "middling"), (carol, "passes-sometimes")]
    name = "Friday rounds"
    host.goto("/rounds/")
    host.get_by_label("Name").fill(name)
    host.get_by_label("Each player's time a round").select_option("600")
    host.get_by_label("Gramma Ana plays too").check()
    host.get_by_role("button", name="Open the match").click()
    expect(host.locator("#rounds-match")).to_have_attribute("data-synced", "yes")
    match = RoundsMatch.objects.filter(host=alice).latest("id")
    for member in (bob, carol):
        page = open_page("/rounds/", member, wait=False)
        page.goto("/rounds/")
        page.get_by_role("button", name=f"Join {name}", exact=True).click()
        expect(page.locator("#rounds-match")).to_have_attribute("data-synced", "yes")
        expect(page.locator("#round-line")).to_contain_text("alice starts the game")
        pages[member.pk] = page
        # The host's page learns of each join from the "joined" news (it never polls).
        expect(host.locator("#totals tbody tr")).to_have_count(3 if member == bob else 4)
    host.get_by_role("button", name="Start game").click()
    expect(host.locator("#rounds-match")).to_have_attribute("data-synced", "yes")
    # A first tray with no play is put back and another dealt (RULES.md section 19): the
    # game never ends on its first tray.
    match.refresh_from_db()
    assert not match.is_over
    for member, _ in players:
        expect(pages[member.pk].get_by_role("button", name="Start round 1")).to_be_visible()

    match.refresh_from_db()
    assert match.round_number == 1
    names = {p.position: p.name for p in view_of(alice, match.pk).players}
    positions = {name: position for position, name in names.items()}
    assert sorted(names.values()) == ["Gramma Ana", "alice", "bob", "carol"]
    rng = random.Random(39)
    scores: dict[str, list[int | None]] = {m.username: [] for m, _ in players}
    for _ in range(MAX_ROUNDS):
        number = match.round_number
        for index, (member, policy) in enumerate(players):
            page = pages[member.pk]
            scores[member.username].append(play_round(page, member, match.pk, number, policy, rng))
            if index == 0:
                # Before the close the others see that she finished, never what she played.
                other = pages[players[-1][0].pk]
                finished = other.locator(f'#totals tr[data-player="{positions["alice"]}"] td.now')
                expect(finished).to_have_text("finished")
                expect(other.locator("#round-result")).not_to_contain_text(f"Round {number} result")
        match = wait_for_close(match.pk, number)
        view = view_of(alice, match.pk)
        result = next(r for r in view.rounds if r.number == number)
        for member, _ in players:
            check_result(pages[member.pk], result, names)
            if not match.is_over:
                expect(
                    pages[member.pk].get_by_role("button", name=f"Start round {number + 1}")
                ).to_be_visible()
        check_table(host, view, "Totals" if not match.is_over else "Final table")
        if match.is_over:
            break
    else:
        raise AssertionError(f"no end after {MAX_ROUNDS} rounds")

    view = view_of(bob, match.pk)
    assert view.status == "finished"
    assert view.end_reason
    assert len(view.rounds) >= 10
    assert sum(1 for r in view.rounds if r.placed is not None) >= 10
    best = max(p.total for p in view.players)
    winners = " and ".join(names[w] for w in view.winners)
    for member, _ in players:
        page = pages[member.pk]
        expect(page.locator("#round-line")).to_contain_text(f"Game over: {winners}")
        expect(page.locator("#round-line")).to_contain_text(f"with {best}.")
        check_table(page, view, "Final table")
        expect(page.locator("#end")).to_be_visible()
    # The bag: the seed made public at the end is the one committed to before round 1.
    expect(host.locator("#bag-commitment")).to_have_text(view.bag_commitment)
    assert view.bag_seed
    expect(host.locator("#bag-seed")).to_have_text(view.bag_seed)
    host.get_by_role("button", name="Check the seed").click()
    expect(host.locator("#bag-check-result")).to_contain_text("Checked:")
    # Every player's scores as played through the page are the server's.
    for member, _ in players:
        position = next(p.position for p in view.players if p.name == member.username)
        played = [row.score for r in view.rounds for row in r.players if row.player == position]
        assert played == [s or 0 for s in scores[member.username]]
    check_replay(bob_page := pages[bob.pk], view, names)
    expect(bob_page.locator("#board td.tile")).not_to_have_count(0)


def test_a_member_plays_gramma_ana_one_to_one_to_the_end(open_page, make_member) -> None:
    dora = make_member("dora")
    page = open_page("/rounds/", dora, wait=False)
    page.goto("/rounds/")
    page.get_by_label("Your time a round").select_option("600")
    page.get_by_role("button", name="Play Gramma Ana").click()
    expect(page.locator("#rounds-match")).to_have_attribute("data-synced", "yes")
    match = RoundsMatch.objects.filter(host=dora).latest("id")
    match.refresh_from_db()
    assert match.rated
    assert match.status == RoundsMatch.Status.LIVE, (match.end_reason, match.round_number)
    names = {p.position: p.name for p in view_of(dora, match.pk).players}
    rng = random.Random(5)
    for _ in range(MAX_ROUNDS):
        number = match.round_number
        play_round(page, dora, match.pk, number, "best", rng, by_keys=number % 2 == 1)
        match = wait_for_close(match.pk, number)
        view = view_of(dora, match.pk)
        check_result(page, next(r for r in view.rounds if r.number == number), names)
        if match.is_over:
            break
    else:
        raise AssertionError(f"no end after {MAX_ROUNDS} rounds")
    view = view_of(dora, match.pk)
    check_table(page, view, "Final table")
    mine = next(p for p in view.players if p.name == "dora")
    hers = next(p for p in view.players if p.gramma_ana)
    change = 16 if mine.total > hers.total else -16 if mine.total < hers.total else 0
    assert elo_rating_of(dora.pk) == 1200 + change
    page.goto("/players/dora/")
    expect(page.locator("#word-skill-elo")).to_contain_text(f"{1200 + change}")
