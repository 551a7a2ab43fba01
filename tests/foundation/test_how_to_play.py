"""The How to play page: every worked example's numbers are what the engine makes of it.

The examples are positions (``wordduel.guide``); the page's prose states their numbers by
hand, each marked ``data-check="<example>.<what>"``. Here the engine plays every example
(with the word list, so each play is also legal) and the page must state exactly the numbers
it gets, and no marked number the engine did not check.
"""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser

import pytest
from django.conf import settings
from django.test import Client

from engine import Game, Pass, WordScore, get_ruleset, play_from_gcg
from lexicon.lexicon import get_lexicon
from wordduel import guide

pytestmark = pytest.mark.django_db

SEED = bytes(range(32))


class _Checked(HTMLParser):
    """The text of every element carrying ``data-check``, by its key."""

    def __init__(self) -> None:
        super().__init__()
        self.found: dict[str, str] = {}
        self._open: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open.append((tag, dict(attrs).get("data-check")))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            opened, _ = self._open.pop()
            if opened == tag:
                break

    def handle_data(self, data: str) -> None:
        for _, key in self._open:
            if key is not None:
                self.found[key] = self.found.get(key, "") + data


def _page(client: Client | None = None) -> str:
    response = (client or Client()).get("/how-to-play/")
    assert response.status_code == 200
    return response.content.decode()


def _stated(html: str) -> dict[str, str]:
    parser = _Checked()
    parser.feed(html)
    return {key: text.strip() for key, text in parser.found.items()}


def _game(example: guide.ScoringExample | guide.EndingExample, racks: tuple[str, str]) -> Game:
    game = Game.new(ruleset=guide.RULESET, seed=SEED)
    return replace(
        game,
        board=guide.board_before(example.before),
        racks=(tuple(sorted(racks[0])), tuple(sorted(racks[1]))),
    )


def _sum_and_multiplier(word: WordScore, new: set[tuple[int, int]]) -> tuple[int, int]:
    """A word's points before its word premiums, and their product: the steps the page
    shows (checked above against the engine's score of the word)."""
    rules = get_ruleset(guide.RULESET)
    letter = {".": 1, "d": 2, "t": 3, "D": 1, "T": 1}
    whole = {".": 1, "d": 1, "t": 1, "D": 2, "T": 3}
    points, times = 0, 1
    for offset, char in enumerate(word.tiles):
        row = word.row + (0 if word.across else offset)
        col = word.col + (offset if word.across else 0)
        value = 0 if char.islower() else rules.tile_value(char)
        premium = rules.premium(row, col) if (row, col) in new else "."
        points += value * letter[premium]
        times *= whole[premium]
    return points, times


def engine_numbers() -> dict[str, int]:
    """Every number of every example, as the engine plays it."""
    lexicon = get_lexicon()
    numbers: dict[str, int] = {}
    for example in guide.SCORING_EXAMPLES:
        board = guide.board_before(example.before)
        play = play_from_gcg(board, *example.play)
        rack = "".join(tile.rack_tile for tile in play.tiles)  # the rack holds just these
        after = _game(example, (rack, "")).apply(play, player=0, lexicon=lexicon)
        turn = after.turns[-1]
        numbers[f"{example.key}.total"] = turn.score
        new = {(tile.row, tile.col) for tile in play.tiles}
        for word in turn.words:
            numbers[f"{example.key}.word.{word.word}"] = word.score
            points, times = _sum_and_multiplier(word, new)
            assert points * times == word.score, (example.key, word.word)
            numbers[f"{example.key}.sum.{word.word}"] = points
            numbers[f"{example.key}.mult.{word.word}"] = times
    for ending in guide.ENDING_EXAMPLES:
        game = replace(
            _game(ending, ending.racks),
            bag=(),
            scores=ending.scores,
            to_move=ending.to_move,
            scoreless_streak=ending.scoreless_streak,
        )
        if ending.move[0] == "play":
            move = play_from_gcg(game.board, ending.move[1], ending.move[2])
        else:
            move = Pass()
        after = game.apply(move, player=ending.to_move, lexicon=lexicon)
        assert after.is_over, ending.key
        numbers[f"{ending.key}.before.0"], numbers[f"{ending.key}.before.1"] = ending.scores
        numbers[f"{ending.key}.final.0"], numbers[f"{ending.key}.final.1"] = after.scores
        numbers[f"{ending.key}.play"] = after.turns[-1].score
        totals = after.turns[-1].totals  # after the last turn, before the racks are counted
        numbers[f"{ending.key}.after_play.0"], numbers[f"{ending.key}.after_play.1"] = totals
        for adjustment in after.adjustments:
            if adjustment.points > 0:  # what the player who went out gains
                numbers[f"{ending.key}.rack"] = adjustment.points
            else:  # what a seat loses for its own rack
                numbers[f"{ending.key}.rack.{adjustment.rack_owner}"] = -adjustment.points
    return numbers


def test_every_worked_example_states_the_engines_numbers() -> None:
    numbers = engine_numbers()
    stated = _stated(_page())
    unknown = set(stated) - set(numbers)
    assert not unknown, f"the page marks numbers no example computes: {sorted(unknown)}"
    wrong = {key: (text, numbers[key]) for key, text in stated.items() if text != str(numbers[key])}
    assert not wrong, f"the page says (page, engine): {wrong}"
    keys = [example.key for example in guide.SCORING_EXAMPLES]
    assert {f"{key}.total" for key in keys} <= set(stated), "an example's total is not stated"
    for ending in guide.ENDING_EXAMPLES:
        assert {f"{ending.key}.final.0", f"{ending.key}.final.1"} <= set(stated), ending.key


def test_the_examples_show_what_they_say() -> None:
    """Bingo and blank examples are bingos; the blank really is a blank; and the ending
    examples end as the page says (going out, and six scoreless turns)."""
    numbers = engine_numbers()
    rules = get_ruleset(guide.RULESET)
    assert numbers["bingo.total"] == numbers["bingo.word.RETAINS"] + rules.bingo_bonus
    assert numbers["blank.total"] == numbers["blank.word.RETAINS"] + rules.bingo_bonus
    assert numbers["blank.total"] < numbers["bingo.total"]
    assert numbers["going_out.final.0"] > numbers["going_out.final.1"]  # Alice wins
    assert numbers["six_scoreless.final.1"] > numbers["six_scoreless.final.0"]  # Bob wins


def test_the_diagrams_are_the_examples_positions() -> None:
    """Each diagram shows the example's new tiles framed, on the squares of the play."""
    html = _page()
    for example in guide.SCORING_EXAMPLES:
        drawn = guide.diagram(example)
        staged = [s for _, row in drawn.rows for s in row if "staged" in s.classes]
        board = guide.board_before(example.before)
        play = play_from_gcg(board, *example.play)
        assert len(staged) == len(play.tiles), example.key
        assert [s.letter for s in staged] == [t.letter for t in play.tiles], example.key
    assert html.count('class="board diagram"') == len(guide.SCORING_EXAMPLES)


def test_the_rules_numbers_come_from_the_ruleset_and_the_settings() -> None:
    text = " ".join(re.sub(r"<[^>]+>", " ", _page()).split())
    rules = get_ruleset(guide.RULESET)
    assert f"{rules.tile_count} tiles in the bag" in text
    assert f"adds {rules.bingo_bonus} points" in text
    assert f"{len(get_lexicon()):,} words" in text
    minutes = int(settings.NO_SHOW_WINDOW.total_seconds() // 60)
    assert f"still empty {minutes} minutes after kick-off" in text
    assert f"{settings.FORFEIT_AFTER.days}-day forfeit" in text
    for letter, value in rules.values:
        assert re.search(rf"<th scope=\"row\">{value}</th><td>[^<]*\b{letter}&nbsp;", _page())


def test_every_page_links_to_how_to_play(client, live_match) -> None:
    for url in ("/", f"/matches/{live_match.id}/", "/accounts/sign-in/"):
        html = client.get(url).content.decode()
        assert 'href="/how-to-play/"' in html, url
