"""Analysis after the game: each replay step carries, for the player who held the rack the
next turn was made from, that turn and the best play the engine finds from that rack; for
nobody else, and for nobody before the match is over.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Member
from analysis.models import BestPlay
from engine import Board, PlacedTile, Play, get_ruleset
from engine.movegen import best_play, legal_plays
from lexicon.lexicon import get_lexicon
from matches.models import Match, Turn
from matches.visibility import exports
from matches.visibility.analysis import turn_analysis
from tests.matches.test_api import _client, _get
from tests.matches.test_records import play_out, play_to_the_end
from tests.matches.test_ws_helpers import _leaks_at, _paths, racks_ever_held

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(live_match: Match, alice: Member, bob: Member) -> Match:
    match = play_to_the_end(live_match, (alice, bob), seed=12)
    assert match.status == Match.Status.FINISHED
    return match


def replays(client: Client, match: Match, key: str | None = None) -> list[dict[str, Any]]:
    """Every step of the replay (0 to the last), as ``client`` is served it (each answer
    checked against the served OpenAPI schema)."""
    url = reverse("api:match-replay", args=[match.id])
    steps = []
    for turn in range(match.turn_number + 1):
        params: dict[str, Any] = {"turn": turn} | ({"key": key} if key else {})
        status, answer = _get(client, url, params)
        assert status == 200, answer
        steps.append(answer)
    return steps


def engine_best_score(step: dict[str, Any], ruleset: str, lexicon: str) -> int | None:
    """The best play's score from the step's own board and rack, worked out here."""
    rules = get_ruleset(ruleset)
    board = Board.from_rows(step["board"])
    words = get_lexicon(lexicon, max_len=rules.lexicon_max_len)
    best = best_play(legal_plays(board, step["rack"], ruleset=rules, lexicon=words))
    return None if best is None else best.score


def test_a_player_sees_the_best_play_of_each_of_their_turns_after_the_game(
    finished: Match, alice: Member, bob: Member
) -> None:
    turns = list(finished.turns.order_by("number"))
    for member, seat in ((alice, 0), (bob, 1)):
        steps = replays(_client(member), finished)
        for step, turn in zip(steps, [*turns, None], strict=True):
            analysis = step["analysis"]
            if turn is None or turn.position != seat:
                assert analysis is None, f"seat {seat} at step {step['turn']}"
                continue
            assert analysis["number"] == turn.number == step["turn"] + 1
            assert (analysis["kind"], analysis["score"]) == (turn.kind, turn.score)
            best = analysis["best"]
            expected = engine_best_score(step, finished.ruleset, finished.lexicon)
            assert (best and best["score"]) == expected
            if turn.kind == Turn.Kind.PLAY:
                assert best["score"] >= turn.score
            if best is not None:
                # Made of the rack shown at this step (each tile taken from it once).
                rack = list(step["rack"])
                for tile in best["tiles"]:
                    rack.remove("?" if tile["blank"] else tile["letter"])
    kinds = {turn.kind for turn in turns}
    assert kinds >= {"play", "swap"}
    # Kept, one row per turn: asking again reads it and does not search again.
    assert BestPlay.objects.filter(turn__match=finished).count() == len(turns)


def test_a_kept_analysis_is_read_not_searched_again(
    finished: Match, alice: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = replays(_client(alice), finished)

    def no_search(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("searched again")

    monkeypatch.setattr("analysis.best.legal_plays", no_search)
    assert replays(_client(alice), finished) == first


def test_the_best_play_is_one_the_rules_accept_for_that_score(
    finished: Match, alice: Member
) -> None:
    """Played on the board of its step (as Game.apply would judge it) it scores the same."""
    steps = replays(_client(alice), finished)
    rules = get_ruleset(finished.ruleset)
    words = get_lexicon(finished.lexicon, max_len=rules.lexicon_max_len)
    checked = 0
    for step in steps:
        best = step["analysis"] and step["analysis"]["best"]
        if not best:
            continue
        board = Board.from_rows(step["board"])
        play = Play(tuple(PlacedTile(**tile) for tile in best["tiles"]))
        found = {
            (frozenset(m.tiles), m.score)
            for m in legal_plays(board, step["rack"], ruleset=rules, lexicon=words)
        }
        assert (frozenset(play.tiles), best["score"]) in found
        assert board.place(play.tiles) is not None
        checked += 1
    assert checked >= 3


def test_nothing_during_the_game(live_match: Match, alice: Member, bob: Member) -> None:
    match = play_out(live_match, (alice, bob), seed=11, turns=6)
    assert match.status == Match.Status.LIVE
    for member in (alice, bob):
        assert all(step["analysis"] is None for step in replays(_client(member), match))
    assert not BestPlay.objects.filter(turn__match=match).exists()


def leaks_for(
    steps: list[dict[str, Any]], foreign: set[str], own: frozenset[str] = frozenset()
) -> list[str]:
    """The existing leak scan over a finished match's replay answers: a rack only if it is
    one of ``own``, and nowhere two or more letters of a ``foreign`` rack (the analysis's
    best play included) but in the record's tiles, public after the end."""
    mine = {"".join(sorted(rack)) for rack in own}
    return [
        leak
        for step in steps
        for path, value in _paths(step)
        for leak in _leaks_at(path, value, mine, foreign, None, after_the_end=True)
    ]


def test_the_opponent_and_spectators_never_see_anothers_analysis(
    finished: Match, organiser: Member, alice: Member, bob: Member
) -> None:
    alices, bobs = racks_ever_held(finished.id, 0), racks_ever_held(finished.id, 1)
    everyone = alices | bobs
    viewers: list[tuple[str, Client, str | None, int | None]] = [
        ("alice", _client(alice), None, 0),
        ("bob", _client(bob), None, 1),
        ("organiser", _client(organiser), None, None),
        ("visitor", Client(), None, None),
        ("key holder", Client(), finished.viewing_key, None),
    ]
    turns = list(finished.turns.order_by("number"))
    for name, client, key, seat in viewers:
        steps = replays(client, finished, key)
        for step, turn in zip(steps, [*turns, None], strict=True):
            if turn is None or turn.position != seat:
                assert step["analysis"] is None, f"{name} at step {step['turn']}"
        # Their own analysis is their own rack's letters (checked above to be theirs only).
        scanned = [
            step | {"analysis": None}
            if step["analysis"] and step["analysis"]["position"] == seat
            else step
            for step in steps
        ]
        own = alices if seat == 0 else bobs if seat == 1 else set()
        assert leaks_for(scanned, everyone - own, frozenset(own)) == [], name


def test_the_leak_scan_catches_an_analysis_shown_to_the_wrong_viewer(
    finished: Match, bob: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Planted: the analysis of every turn to everyone, as if each viewer held that rack."""

    def leaky(access: Any, turn: int) -> Any:
        if turn >= len(access.turns):
            return None
        mover = dataclasses.replace(access.viewer, seat=access.turns[turn].position)
        return turn_analysis(dataclasses.replace(access, viewer=mover), turn)

    monkeypatch.setattr(exports, "turn_analysis", leaky)
    alices = racks_ever_held(finished.id, 0)
    assert leaks_for(replays(_client(bob), finished), alices)
    assert leaks_for(replays(Client(), finished), alices | racks_ever_held(finished.id, 1))


# ---------------------------------------------------------------- the review: all at once


def test_the_review_is_each_players_own_analysis_all_at_once(
    finished: Match, alice: Member, bob: Member, organiser: Member
) -> None:
    """``GET /api/matches/<id>/review``: each player's own turns, the best play as the replay's
    analysis of that turn shows it, the points lost and their total; nobody else's."""
    for member, seat in ((alice, 0), (bob, 1)):
        analyses = {
            step["analysis"]["number"]: step["analysis"]
            for step in replays(_client(member), finished)
            if step["analysis"] is not None
        }
        status, review = _get(_client(member), reverse("api:match-review", args=[finished.id]))
        assert status == 200, review
        assert review["position"] == seat
        assert [move["number"] for move in review["moves"]] == sorted(analyses)
        for move in review["moves"]:
            analysis = analyses[move["number"]]
            assert (move["kind"], move["score"], move["best"]) == (
                analysis["kind"],
                analysis["score"],
                analysis["best"],
            )
            best = analysis["best"]["score"] if analysis["best"] else 0
            lost = best if move["kind"] != "play" else max(0, best - move["score"])
            assert move["points_lost"] == lost
        assert review["points_left"] == sum(move["points_lost"] for move in review["moves"])
    url = reverse("api:match-review", args=[finished.id])
    for client in (_client(organiser), Client()):
        status, answer = _get(client, url)
        assert (status, answer["code"]) == (403, "not_a_player")
