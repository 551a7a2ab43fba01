"""Reword against the computer, over a real socket: a member starts a Reword practice duel
(the page's form), plays it to its end with swaps and steals, and the computer at Hard answers
each move through the commit service with swaps and steals of its own, from its seat's view.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from engine import TakePlay
from matches import offline_check
from matches.models import Match, Turn
from matches.records import verify_bag
from practice.models import ComputerOpponent
from practice.services import PracticeRefused, start_practice
from tests.matches.reword_helpers import planned_move, play_frame
from tests.matches.test_ws_helpers import (
    Opener,
    assert_tiles_conserved,
    current_game,
    privacy_leaks,
    public_record,
    racks_ever_held,
    socket_opener,
)

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async

MAX_TURNS = 120


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    async with socket_opener() as open_:
        yield open_


def _start_from_the_page(member) -> Match:
    client = Client()
    client.force_login(member)
    home = client.get("/").content.decode()
    assert '<option value="reword">' in home  # the form offers it
    response = client.post(
        "/practice/", {"level": "hard", "ruleset": "reword", "seats": "2", "computers": "1"}
    )
    assert response.status_code == 302, response.content
    match = Match.objects.get(pk=int(response["Location"].rstrip("/").split("/")[-1]))
    assert (match.ruleset, match.status, match.rated) == ("reword", "live", False)
    assert ComputerOpponent.objects.get(match=match).level == "hard"
    return match


def _computer_takes(match_id: int) -> int:
    return sum(len(turn.takes) for turn in Turn.objects.filter(match_id=match_id, position=1))


async def test_a_member_plays_reword_against_the_computer_to_the_end(
    alice, eager_tasks, connect
) -> None:
    match = await db(_start_from_the_page)(alice)
    socket, snapshot = await connect(match.id, member=alice)
    assert snapshot["your_seat"] == 0
    turn = snapshot["turn_number"]
    member_takes = 0
    while snapshot["status"] == "live":
        assert turn < MAX_TURNS
        assert snapshot["to_move"] == 0  # the computer has answered by now (eager tasks)
        move = planned_move(await db(current_game)(match.id))
        member_takes += isinstance(move, TakePlay)
        ack = await socket.request(play_frame(move, turn=turn, client_id=f"me-{turn}"))
        assert ack["accepted"] is True, (ack, move)
        snapshot = await socket.sync()
        turn = snapshot["turn_number"]
        await db(assert_tiles_conserved)(match.id)
    finished = await db(Match.objects.get)(pk=match.id)
    assert finished.status == Match.Status.FINISHED
    assert member_takes >= 2
    assert await db(_computer_takes)(match.id) >= 1, "Hard made no swap or steal all game"
    moves = snapshot["moves"]
    assert [m["position"] for m in moves].count(1) >= [m["position"] for m in moves].count(0) - 1
    assert any(m["takes"] for m in moves if m["position"] == 1)
    report = await db(verify_bag)(finished)
    assert report.ok, report.mismatches
    fairness = (await socket.event("fairness"))["data"]
    ok, lines = offline_check.check(fairness)
    assert ok, lines
    held = [await db(racks_ever_held)(match.id, position) for position in (0, 1)]
    public = await db(public_record)(match.id)
    leaks = privacy_leaks(socket.frames, own_racks=held[0], foreign_racks=held[1], public=public)
    assert not leaks, leaks


def test_a_practice_table_is_classic_and_an_unknown_duel_ruleset_is_refused(alice) -> None:
    for seats, ruleset in ((3, "reword"), (2, "word-skill"), (2, "outspell-nonsense")):
        with pytest.raises(PracticeRefused) as refusal:
            start_practice(member=alice, seats=seats, computers=1, ruleset=ruleset)
        assert refusal.value.message == (
            "A practice duel is Word Duel or Reword; a practice table is a classic table."
        )
    assert not Match.objects.exists()
