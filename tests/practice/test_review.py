"""Practice that teaches: after a game against the computer, its member sees each of their
moves beside the computer's best from the same rack, the points each lost and the points
left on the board; the computer's seat, a spectator and the member before the end do not.

The game is played through the services from a fixed deal (the computer, at Hard, answering
each move through the commit service; ``start_practice`` itself where the deal does not
matter); the member's moves are chosen here from her own view with the engine's
``legal_plays``, and what each should cost is worked out then, from that view, before the
review exists: the best play, the worst, a swap, a pass, the best again, then she resigns.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from accounts.models import Member
from analysis.models import BestPlay
from engine import Board, Pass, Swap, get_ruleset
from engine.movegen import best_play, legal_plays
from lexicon.lexicon import get_lexicon
from matches import services, visibility
from matches.models import Match, Seat, Turn
from practice.services import computer_member, seat_computer, start_practice
from tests.matches.helpers import commit_move
from tests.matches.test_api import _get

pytestmark = pytest.mark.django_db

PLAN = ("best", "worst", "swap", "pass", "best")
#: The deal's seed: every rack of the game is known from it (the computer plays Hard).
SEED = 1


@dataclass(frozen=True)
class Expected:
    """One of the member's turns as worked out when she made it."""

    number: int
    kind: str
    rack: str
    score: int
    best: int  # the best play's score from her rack then (0: no play)
    lost: int


def _view(match: Match, member: Member) -> Any:
    return visibility.match_view(services.look_at_match(user=member, match_id=match.id, key=None))


def members_turn(match: Match, member: Member, intent: str) -> Expected:
    """Make ``intent``'s move from the member's own view; what it should lose, from there."""
    view = _view(match, member)
    assert view.your_seat == 0
    assert view.to_move == 0
    rules = get_ruleset(view.ruleset)
    plays = legal_plays(
        Board.from_rows(view.board),
        view.rack,
        ruleset=rules,
        lexicon=get_lexicon(view.lexicon, max_len=rules.lexicon_max_len),
    )
    best = best_play(plays)
    best_score = best.score if best is not None else 0
    if intent == "best" and best is not None:
        chosen, kind, score = best.move, "play", best.score
    elif intent == "worst" and plays:
        worst = min(plays, key=lambda play: play.score)
        chosen, kind, score = worst.move, "play", worst.score
    elif intent == "pass":
        chosen, kind, score = Pass(), "pass", 0
    else:
        chosen, kind, score = Swap(tuple(view.rack[:3])), "swap", 0
    outcome = commit_move(
        match_id=match.id,
        member=member,
        move=chosen,
        against_turn=view.turn_number,
        client_id=f"review-{view.turn_number}",
    )
    assert outcome.accepted, outcome.message
    return Expected(
        number=view.turn_number + 1,
        kind=kind,
        rack="".join(sorted(view.rack)),
        score=score,
        best=best_score,
        lost=best_score - score,
    )


def against_the_computer(make_fixture: Any, organiser: Member, alice: Member) -> Match:
    """A members-only game of alice (First) against the computer at Hard (Second), dealt
    from a fixed seed so the racks are known: an organiser's fixture with the computer
    seated (``practice.services.seat_computer``), the same ``ComputerOpponent`` as a
    practice match's. (``start_practice`` deals at once from a fresh seed.)"""
    match = make_fixture(visibility=Match.Visibility.MEMBERS, name="Against the computer")
    bag_seed = hashlib.sha256(f"word-duel-review-{SEED}".encode()).hexdigest()
    Match.objects.filter(pk=match.pk).update(
        bag_seed=bag_seed, bag_commitment=hashlib.sha256(bytes.fromhex(bag_seed)).hexdigest()
    )
    for position in (0, 1):
        Seat.objects.filter(match=match, position=position).update(
            contribution=hashlib.sha256(f"{SEED}-{position}".encode()).hexdigest()[:32]
        )
    seat_computer(match_id=match.pk, organiser=organiser, position=1, level="hard")
    services.match_take_seat(match_id=match.pk, member=alice, position=0)
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    assert match.to_move == 0
    return match


@pytest.fixture
def played(
    make_fixture: Any,
    organiser: Member,
    alice: Member,
    eager_tasks: None,
    django_capture_on_commit_callbacks: Any,
) -> tuple[Match, list[Expected]]:
    """The member's planned moves, each answered by the computer; then she resigns.
    Returns the match and her turns as worked out when she made them."""
    match = against_the_computer(make_fixture, organiser, alice)
    expected = []
    for intent in PLAN:
        with django_capture_on_commit_callbacks(execute=True):
            expected.append(members_turn(match, alice, intent))
        match.refresh_from_db()
        assert match.status == Match.Status.LIVE
        assert match.to_move == 0
    services.match_resign(match_id=match.id, member=alice, client_id="review-resign")
    match.refresh_from_db()
    assert match.is_over
    return match, expected


def _review(match: Match, member: Member | None, key: str | None = None) -> Any:
    access = services.look_at_match(user=member, match_id=match.id, key=key)
    return visibility.moves_review(access)


def test_each_move_beside_the_best_with_the_points_lost_and_the_total(
    played: tuple[Match, list[Expected]], alice: Member
) -> None:
    match, expected = played
    review = _review(match, alice)
    assert review is not None
    assert (review.match_id, review.position) == (match.id, 0)
    got = [
        Expected(
            number=move.number,
            kind=move.kind,
            rack="".join(sorted(move.rack)),
            score=move.score,
            best=move.best.score if move.best is not None else 0,
            lost=move.points_lost,
        )
        for move in review.moves
    ]
    assert got == expected
    assert [e.kind for e in expected] == ["play", "play", "swap", "pass", "play"]
    # The figures the table and its footer show.
    assert review.points_left == sum(e.lost for e in expected)
    assert review.scored == sum(e.score for e in expected)
    assert review.best_total == sum(e.best for e in expected)
    assert review.points_left == review.best_total - review.scored
    # The plays' words are what was recorded; the best play is made of the rack's letters.
    turns = {turn.number: turn for turn in Turn.objects.filter(match=match)}
    for move in review.moves:
        assert [word.model_dump() for word in move.words] == turns[move.number].words
        assert move.best is not None
        rack = list(move.rack)
        for tile in move.best.tiles:
            rack.remove("?" if tile.blank else tile.letter)


def test_a_move_as_good_as_the_best_loses_nothing_and_a_swap_or_pass_loses_the_best(
    played: tuple[Match, list[Expected]], alice: Member
) -> None:
    match, expected = played
    review = _review(match, alice)
    by_number = {move.number: move for move in review.moves}
    for intent, turn in zip(PLAN, expected, strict=True):
        move = by_number[turn.number]
        assert move.best is not None
        if intent == "best":
            assert move.score == move.best.score > 0
            assert move.points_lost == 0
        elif intent in ("swap", "pass"):
            assert move.score == 0
            assert move.points_lost == move.best.score > 0
        else:  # the worst play there was: what it fell short of the best by
            assert move.points_lost == move.best.score - move.score > 0


def test_computed_once_per_own_turn_then_read(
    played: tuple[Match, list[Expected]], alice: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    match, expected = played
    assert not BestPlay.objects.filter(turn__match=match).exists()
    first = _review(match, alice)
    kept = BestPlay.objects.filter(turn__match=match)
    assert sorted(kept.values_list("turn__number", flat=True)) == [e.number for e in expected]

    def no_search(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("searched again")

    monkeypatch.setattr("analysis.best.legal_plays", no_search)
    assert _review(match, alice) == first


def test_nobody_else_gets_the_members_review(
    played: tuple[Match, list[Expected]], alice: Member, bob: Member, organiser: Member
) -> None:
    """The computer's account may not even look at the members-only match; the rule it
    would meet gives a seat its own turns only (none of hers). A member watching, the
    organiser and a key holder get nothing, on the API too."""
    match, expected = played
    with pytest.raises(visibility.MatchHidden):
        _review(match, computer_member())
    hers = {e.number for e in expected}
    access = services.look_at_match(user=alice, match_id=match.id, key=None)
    as_the_computer = dataclasses.replace(
        access, viewer=dataclasses.replace(access.viewer, seat=1, member_id=computer_member().pk)
    )
    computers = visibility.moves_review(as_the_computer)
    assert computers is not None
    assert computers.position == 1
    assert computers.moves
    assert not {move.number for move in computers.moves} & hers
    assert all(move.rack == turn.rack_before for move, turn in _turns_of(computers, match))
    assert all(turn.position == 1 for _, turn in _turns_of(computers, match))
    assert _review(match, bob) is None
    assert _review(match, organiser) is None
    assert _review(match, None, key=match.viewing_key) is None
    url = f"/api/matches/{match.id}/review"
    for name, client, params in (
        ("bob", _client(bob), {}),
        ("organiser", _client(organiser), {}),
        ("key holder", Client(), {"key": match.viewing_key}),
    ):
        status, answer = _get(client, url, params)
        assert (status, answer["code"]) == (403, "not_a_player"), name
    status, answer = _get(Client(), url)  # members-only: for a visitor it does not exist
    assert (status, answer["code"]) == (404, "not_found")
    status, answer = _get(_client(alice), url)
    assert status == 200
    assert answer == _review(match, alice).model_dump(mode="json")


def _turns_of(review: Any, match: Match) -> list[tuple[Any, Turn]]:
    turns = {turn.number: turn for turn in Turn.objects.filter(match=match)}
    return [(move, turns[move.number]) for move in review.moves]


def _client(member: Member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def test_nothing_before_the_end(
    alice: Member, eager_tasks: None, django_capture_on_commit_callbacks: Any
) -> None:
    match = start_practice(member=alice, level="easy")
    with django_capture_on_commit_callbacks(execute=True):
        members_turn(match, alice, "best")
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    assert match.turn_number == 2
    assert _review(match, alice) is None
    status, answer = _get(_client(alice), f"/api/matches/{match.id}/review")
    assert (status, answer["code"]) == (409, "not_over")
    page = _client(alice).get(f"/matches/{match.id}/").content.decode()
    assert 'id="practice-review"' not in page
    # Only a promise for the end, hidden (practice/review.js shows it if the game ends here).
    assert '<p id="practice-review-next" class="practice-review-next" hidden>' in page
    assert not BestPlay.objects.filter(turn__match=match).exists()  # no advice worked out


def test_the_match_page_shows_the_member_the_table(
    played: tuple[Match, list[Expected]], alice: Member, bob: Member
) -> None:
    match, expected = played
    page = _client(alice).get(f"/matches/{match.id}/").content.decode()
    section = page[page.index('<section id="practice-review"') :]
    section = section[: section.index("</section>")]
    assert '<h2 id="practice-review-heading">Your moves against the computer\'s best</h2>' in (
        section.replace("&#x27;", "'")
    )
    assert "<caption>" in section
    assert '<th scope="col">Points lost</th>' in section
    rows = re.findall(r'<tr data-turn="(\d+)" data-lost="(\d+)">', section)
    assert rows == [(str(e.number), str(e.lost)) for e in expected]
    total = sum(e.lost for e in expected)
    assert f"Points left on the board: {total}" in section
    assert "highest-scoring play" in section  # what "best" means, said on the page
    assert "swapped 3 tiles" in section
    assert "passed" in section
    # A member watching the same finished game sees the match, not her review.
    watched = _client(bob).get(f"/matches/{match.id}/")
    assert watched.status_code == 200
    assert 'id="practice-review' not in watched.content.decode()
