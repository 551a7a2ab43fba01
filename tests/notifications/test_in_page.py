"""Your move in the page, server side: My matches by urgency (whose move, the deadline), the
"next match where it's my move" redirect and the waiting list the match page's script reads."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from matches import selectors
from matches.models import Match
from tests.matches.helpers import commit_move

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _client(member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def _live(make_fixture, first, second, name: str, *, at: datetime) -> Match:
    """A live match opened at ``at`` (its first turn's deadline three days later)."""
    with time_machine.travel(at, tick=False):
        match = make_fixture(first=first, second=second, name=name)
    assert match.status == Match.Status.LIVE
    return match


def _pass(match: Match, member, *, at: datetime) -> None:
    match.refresh_from_db()
    with time_machine.travel(at, tick=False):
        outcome = commit_move(
            match_id=match.id,
            member=member,
            move={"kind": "pass"},
            against_turn=match.turn_number,
            client_id=f"pass-{match.id}-{match.turn_number}",
        )
    assert outcome.accepted, outcome


@pytest.fixture
def alices_matches(make_fixture, make_member, alice):
    """alice's matches in every state, made so that urgency and age disagree:
    two waiting on her (the older deadline made last), two on her opponents, one to come,
    one finished, and one of someone else's."""
    bob, carol, dave = make_member("bob"), make_member("carol"), make_member("dave")
    made = {}
    made["theirs_late"] = _live(make_fixture, alice, bob, "Theirs late", at=START)
    _pass(made["theirs_late"], alice, at=START + timedelta(hours=10))
    made["mine_late"] = _live(
        make_fixture, alice, carol, "Mine late", at=START + timedelta(hours=5)
    )
    made["theirs_soon"] = _live(make_fixture, carol, alice, "Theirs soon", at=START)
    made["mine_soon"] = _live(make_fixture, bob, alice, "Mine soon", at=START)
    _pass(made["mine_soon"], bob, at=START + timedelta(hours=1))
    with time_machine.travel(START, tick=False):
        made["to_come"] = make_fixture(
            first=alice, second=dave, name="To come", kickoff_at=START + timedelta(days=20)
        )
    made["over"] = _live(make_fixture, alice, dave, "Over", at=START - timedelta(days=1))
    with time_machine.travel(START + timedelta(hours=2), tick=False):
        Match.objects.filter(pk=made["over"].pk).update(
            status=Match.Status.FINISHED,
            result=Match.Result.SECOND,
            end_reason=Match.EndReason.FORFEIT,
            finished_at=START + timedelta(hours=2),
            to_move=None,
            turn_deadline_at=None,
        )
    made["others"] = _live(make_fixture, bob, carol, "Not hers", at=START)
    return made


def test_my_matches_lists_by_urgency_with_whose_move_and_the_deadline(alice, alices_matches):
    with time_machine.travel(START + timedelta(hours=12), tick=False):
        lines = selectors.my_match_lines(alice)
        page = _client(alice).get(reverse("my-matches")).content.decode()

    assert [line.name for line in lines] == [
        "Mine soon: bob v alice",  # her move, deadline START + 1 h + 72 h
        "Mine late: alice v carol",  # her move, deadline START + 5 h + 72 h
        "Theirs soon: carol v alice",  # carol's move, deadline START + 72 h
        "Theirs late: alice v bob",  # bob's move, deadline START + 10 h + 72 h
        "To come: alice v dave",
        "Over: alice v dave",
    ]
    mine_soon, _mine_late, theirs_soon, theirs_late = lines[:4]
    assert (mine_soon.your_move, mine_soon.to_move_name) == (True, "alice")
    assert mine_soon.turn_deadline_at == START + timedelta(hours=73)
    assert (theirs_soon.your_move, theirs_soon.to_move_name) == (False, "carol")
    assert (theirs_late.your_move, theirs_late.to_move_name) == (False, "bob")
    assert lines[4].turn_deadline_at is None
    assert lines[4].to_move_name is None
    assert lines[5].turn_deadline_at is None
    assert not lines[5].your_move
    # The selector the digest uses agrees on the matches waiting on her, in the same order.
    waiting = [line.name for line in selectors.matches_waiting_on(alice)]
    assert waiting == ["Mine soon: bob v alice", "Mine late: alice v carol"]

    # The page: the same order, "Your move" on her two, the deadline in <time> (localised by
    # the page's script, UTC without it), the opponent's name where it is theirs.
    order = re.findall(r'<tr data-match-id="(\d+)"', page)
    assert order == [
        str(alices_matches[key].id)
        for key in ("mine_soon", "mine_late", "theirs_soon", "theirs_late", "to_come", "over")
    ]
    rows = dict(re.findall(r'<tr data-match-id="(\d+)"[^>]*>(.*?)</tr>', page, re.S))
    first = rows[str(alices_matches["mine_soon"].id)]
    assert "Your move" in first
    assert '<time datetime="2026-03-05T10:00:00+00:00" data-localise>' in first
    theirs = rows[str(alices_matches["theirs_soon"].id)]
    assert "Your move" not in theirs
    assert ">carol<" in theirs.replace('"to-move">', ">")
    assert str(alices_matches["others"].id) not in rows
    assert 'id="next-move"' in page


def test_next_move_goes_to_the_next_board_waiting_skipping_the_current_one(alice, alices_matches):
    client = _client(alice)
    soon, late = alices_matches["mine_soon"], alices_matches["mine_late"]
    url = reverse("notifications:next-move")
    with time_machine.travel(START + timedelta(hours=12), tick=False):
        # From a board that is not waiting (or from nowhere): the most urgent.
        assert client.get(url).url == reverse("match", args=[soon.id])
        theirs = alices_matches["theirs_soon"].id
        assert client.get(url, {"after": theirs}).url == reverse("match", args=[soon.id])
        # From a waiting board: the next in urgency, wrapping round, never the same board.
        assert client.get(url, {"after": soon.id}).url == reverse("match", args=[late.id])
        assert client.get(url, {"after": late.id}).url == reverse("match", args=[soon.id])
        # The JSON the match page's script reads: both, most urgent first.
        listing = client.get(reverse("notifications:waiting")).json()
    assert [m["id"] for m in listing["matches"]] == [soon.id, late.id]
    assert listing["matches"][0] == {
        "id": soon.id,
        "name": "Mine soon: bob v alice",
        "opponent": "bob",
        "turn_deadline_at": "2026-03-05T10:00:00Z",
        "url": reverse("match", args=[soon.id]),
    }

    # Once she has moved in one, the other is the only board left to go to; from it, none.
    _pass(late, alice, at=START + timedelta(hours=13))
    with time_machine.travel(START + timedelta(hours=14), tick=False):
        assert client.get(url, {"after": soon.id}).url == reverse("my-matches")
        assert client.get(url, {"after": late.id}).url == reverse("match", args=[soon.id])
        page = client.get(reverse("match", args=[soon.id])).content.decode()
        other = client.get(reverse("match", args=[late.id])).content.decode()
    # The match page's button: hidden on the one board waiting, shown (with the count) elsewhere.
    assert re.search(r'<form method="get" action="[^"]+" id="next-move" hidden>', page)
    assert re.search(r'<form method="get" action="[^"]+" id="next-move">', other)
    assert 'Next match where it\'s my move<span id="next-move-count"> (1)' in other


def test_next_move_refuses_what_is_not_a_match_number_and_wants_a_member(alice, client):
    url = reverse("notifications:next-move")
    response = _client(alice).get(url, {"after": "7; drop"})
    assert response.status_code == 400
    assert "not a match number" in response.content.decode()
    # Signed out: the sign-in page, for both helpers; no list of anyone's matches.
    for name in ("notifications:next-move", "notifications:waiting"):
        answer = client.get(reverse(name))
        assert answer.status_code == 302
        assert "/accounts/" in answer.url


def test_a_visitor_on_a_match_page_gets_no_next_move_bar(live_match, client):
    page = client.get(reverse("match", args=[live_match.id])).content.decode()
    assert 'id="your-move"' not in page
    assert "your_move.js" in page  # the title and icon still follow the view (no seat: never)
