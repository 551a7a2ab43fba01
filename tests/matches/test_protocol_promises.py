"""What docs/PROTOCOL.md and docs/API.md promise, sent as the documents show it.

Each of these was once broken (an outside client written from the documents found them):
the turn news carried the previous turn's deadline; a repeated ``take_seat`` was refused
instead of answered again; a refused handshake never reached a client as a close code; some
refusals under /api/ were HTML.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from tests.matches.test_ws_helpers import (
    Opener,
    legal_play,
    move_frame,
    refusal_code,
    socket_opener,
)

db = database_sync_to_async


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    async with socket_opener() as open_:
        yield open_


@pytest.mark.django_db(transaction=True)
async def test_the_turn_news_names_the_deadline_of_the_turn_now_to_play(
    live_match, alice, bob, connect
) -> None:
    alice_socket, before = await connect(live_match.id, member=alice)
    bob_socket, _ = await connect(live_match.id, member=bob)
    play = await db(legal_play)(live_match.id)
    answer = await alice_socket.request(move_frame(play, turn=0, client_id="c-17"))
    assert answer["accepted"] is True
    news = (await bob_socket.event("turn", number=1))["data"]
    now = await bob_socket.sync()
    assert news["turn_deadline_at"] == now["turn_deadline_at"]
    assert news["turn_deadline_at"] != before["turn_deadline_at"]  # the clock moved on
    new, old = (datetime.fromisoformat(t) for t in (news["turn_deadline_at"],
                                                     before["turn_deadline_at"]))  # fmt: skip
    assert new > old


@pytest.mark.django_db(transaction=True)
async def test_a_repeated_take_seat_gets_the_same_answer_again(make_fixture, alice, connect):
    match = await db(make_fixture)(first=alice)
    carol = await db(_member)("carol")
    socket, _ = await connect(match.id, member=carol)
    frame = {"type": "take_seat", "id": "seat-1", "position": 1}
    first = await socket.request(frame)
    again = await socket.request(frame)
    assert (first["accepted"], first["code"], first["position"]) == (True, "seated", 1)
    assert first["replayed"] is False
    assert again["replayed"] is True
    assert {k: v for k, v in again.items() if k not in ("replayed", "snapshot")} == {
        k: v for k, v in first.items() if k not in ("replayed", "snapshot")
    }
    refused = await socket.request({"type": "take_seat", "id": "seat-2", "position": 0})
    assert (refused["accepted"], refused["code"]) == (False, "seat_unavailable")
    assert (await socket.request({"type": "take_seat", "id": "seat-2", "position": 0})) == {
        **refused,
        "replayed": True,
    }


def _member(name: str):
    from accounts.models import Member

    return Member.objects.create_user(username=name, password="pw-correct-horse")


@pytest.mark.django_db(transaction=True)
async def test_a_refused_handshake_reaches_the_client_as_its_close_code(
    make_fixture, alice, bob
) -> None:
    members_only = await db(make_fixture)(first=alice, second=bob, visibility="members")
    assert await refusal_code(members_only.id) == 4403
    assert await refusal_code(members_only.id + 10_000) == 4404


@pytest.mark.django_db
def test_every_refusal_under_the_api_is_json(live_match, alice) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    url = f"/api/matches/{live_match.pk}/contribute"
    cases = {
        "csrf": client.post(url, json.dumps({"value": "ab" * 16}), content_type="application/json"),
        "too large": Client().post(url, "x" * (3 * 1024 * 1024), content_type="text/plain"),
        "not a number": Client().get("/api/matches/seven/"),
        "no such path": Client().get("/api/nothing/here"),
        "wrong method": Client().delete(f"/api/matches/{live_match.pk}/"),
    }
    for name, response in cases.items():
        assert response.status_code in (400, 403, 404, 405), (name, response.status_code)
        assert response["Content-Type"].startswith("application/json"), name
        body = response.json()
        assert body["error"], name
        assert body["code"], name
    assert cases["csrf"].json()["code"] == "csrf_failed"
    assert cases["not a number"].json()["code"] == "not_found"
    assert cases["wrong method"].json()["allowed"] == ["GET"]
