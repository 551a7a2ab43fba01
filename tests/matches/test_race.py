"""Racing commits over websockets: exactly one applies, the other hears why and sees the board.

The consumer runs each service call in a worker thread of its own, so the two commits of a
race really meet at the match row lock in PostgreSQL rather than queueing in one thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from channels.db import database_sync_to_async

from engine import Pass
from matches import services
from matches.models import Match, Turn
from tests.depth import repetitions
from tests.matches.test_ws_helpers import (
    Opener,
    Socket,
    assert_tiles_conserved,
    legal_play,
    move_frame,
    rack_of,
    seeded_match,
    session_cookie,
    socket_opener,
)

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    """Opens sockets through the real application; closes them when the test ends."""
    async with socket_opener() as open_:
        yield open_


RACES = repetitions(full=200, quick=30)


def _turns(match_id: int) -> list[tuple[int, str]]:
    return list(
        Turn.objects.filter(match_id=match_id).order_by("number").values_list("number", "kind")
    )


async def test_two_tabs_of_one_seat_racing_conflicting_commits_apply_exactly_once(
    make_fixture, alice, bob, connect
):
    """Both tabs commit against the same turn at once: a pass in one, a swap in the other.

    Each match hosts three races (turns 0, 2 and 4; Bob passes in between), which keeps it
    short of six scoreless turns.
    """
    cookie = await db(session_cookie)(alice)
    winners = {"pass": 0, "swap": 0}
    race = 0
    while race < RACES:
        match = await db(make_fixture)(first=alice, second=bob, name=f"Race {race}")
        pass_tab, view = await connect(match.id, member=alice, cookie=cookie, name="pass tab")
        swap_tab, _ = await connect(match.id, member=alice, cookie=cookie, name="swap tab")
        rack = view["rack"]
        for turn in (0, 2, 4)[: RACES - race]:
            winner, rack = await _race(match.id, turn, race, pass_tab, swap_tab, rack)
            winners[winner] += 1
            race += 1
            await db(services.match_commit)(
                match_id=match.id,
                member=bob,
                move=Pass(),
                against_turn=turn + 1,
                client_id=f"bob-{race}",
            )
        await swap_tab.close()
        await pass_tab.close()
    assert sum(winners.values()) == RACES


async def _race(
    match_id: int, turn: int, race: int, pass_tab: Socket, swap_tab: Socket, rack: list[str]
) -> tuple[str, list[str]]:
    """Run one race; check exactly one commit applied; return the winner and the new rack."""
    commits = {
        "pass": {"type": "pass", "id": f"pass-{race}", "turn": turn},
        "swap": {"type": "swap", "id": f"swap-{race}", "turn": turn, "tiles": rack[:2]},
    }
    answers = dict(
        zip(
            commits,
            await asyncio.gather(
                pass_tab.request(commits["pass"]), swap_tab.request(commits["swap"])
            ),
            strict=True,
        )
    )

    accepted = [kind for kind, answer in answers.items() if answer["accepted"]]
    assert len(accepted) == 1, answers
    winner = accepted[0]
    loser = answers["swap" if winner == "pass" else "pass"]
    assert loser["type"] == "ack"
    assert loser["message"] == "It is not your turn."
    fresh = loser["snapshot"]
    assert (fresh["turn_number"], fresh["to_move"]) == (turn + 1, 1)
    assert fresh["moves"][-1]["kind"] == winner
    new_rack = answers[winner]["rack"]
    assert fresh["rack"] == new_rack == list(await db(rack_of)(match_id, 0))
    assert (await db(_turns)(match_id))[turn:] == [(turn + 1, winner)]
    await db(assert_tiles_conserved)(match_id)
    return winner, new_rack


async def test_a_commit_made_against_a_board_the_opponent_just_changed_is_refused_and_resynced(
    make_fixture, alice, bob, connect
):
    """The Word Duel case: both commit against turn 0 and the first player's lands first."""
    match = await db(seeded_match)(make_fixture, alice, bob)
    alice_socket, _ = await connect(match.id, member=alice)
    bob_socket, bob_view = await connect(match.id, member=bob)
    assert (bob_view["turn_number"], bob_view["to_move"]) == (0, 0)
    play = await db(legal_play)(match.id)

    landed = await alice_socket.request(move_frame(play, turn=0, client_id="alice-first"))
    late = await bob_socket.request({"type": "pass", "id": "bob-late", "turn": 0})

    assert landed["accepted"] is True
    assert late["accepted"] is False
    assert late["code"] == "stale_turn"
    assert late["message"] == "Your opponent moved. Board updated."
    fresh = late["snapshot"]
    assert fresh["turn_number"] == 1
    assert fresh["to_move"] == 1 == fresh["your_seat"]  # it is now bob's turn
    for tile in play["tiles"]:
        assert fresh["board"][tile["row"]][tile["col"]] == tile["letter"].upper()
    assert fresh["rack"] == bob_view["rack"]  # nothing of bob's changed
    assert await db(_turns)(match.id) == [(1, "play")]

    retried = await bob_socket.request({"type": "pass", "id": "bob-again", "turn": 1})
    assert retried["accepted"] is True
    assert await db(_turns)(match.id) == [(1, "play"), (2, "pass")]
    await db(assert_tiles_conserved)(match.id)
    finished = await db(Match.objects.get)(pk=match.id)
    assert finished.turn_number == 2
