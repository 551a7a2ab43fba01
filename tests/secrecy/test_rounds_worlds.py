"""Secrecy of Word Skill rounds by noninterference: two worlds that differ only in secret
facts give every viewer the policy keeps from them (``matches/visibility/rounds.py``) the very
same bytes, on every channel rounds has: the API's state (``GET /api/rounds/<id>``), the
socket's snapshot, every frame of news the socket relayed while the round was played, the
pages (the board page's HTML with its embedded snapshot, and the replay page), and what each
member's "Round n is ready" notice says.

Each world starts from an empty database whose sequences start at 1 and a clock that stands
still, so ids and times are equal by construction; the normalisations: the bag's
commitment (the SHA-256 of the seed, public from the start on purpose), replaced by
``<bag-commitment>``; a page's CSRF token and script nonce (random by design, new on every
request even within one world), replaced by ``<csrf>`` and ``<nonce>``; and a socket's
frames are compared as its two streams, each in order (the answers to its own requests, the
news of the match), since which of two frames sent at one moment arrives first is the
transport's choice. Each pair also shows the worlds differ for someone allowed to see it.

- **Bob's play**: alice passed, bob played (one world) or passed (the other), carol has not
  started: the round is open. Alice, carol, dave (a member watching) and a visitor see the
  same; bob sees his own play.
- **The tray, the bag and the seed**: two seeds; alice has started round 1, nobody else has.
  Bob, carol, dave and the visitor see the same; alice sees her tray.
"""

from __future__ import annotations

import asyncio
import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.management import call_command
from django.db import connections
from django.test import Client

from accounts.models import Member
from engine import Play
from rounds import services
from rounds.models import RoundsMatch
from tests.conftest import _drop_rate_limits
from tests.matches.test_ws_helpers import ARRIVAL_TIMEOUT, Socket, headers_for, session_cookie
from tests.rounds.helpers import best_move
from tests.rounds.ws_helpers import check_frames, rounds_path
from wordduel.asgi import application

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
db = database_sync_to_async

CREATED = datetime(2026, 12, 6, 19, 0, tzinfo=UTC)
SEED_A = "a1" * 32
SEED_B = "b2" * 32
PLAYERS = ("alice", "bob", "carol")
VIEWERS = ("alice", "bob", "carol", "dave", None)


@dataclass
class World:
    """What each viewer got on each channel in the world's open round."""

    commitment: str = ""
    seen: dict[str, dict[str, str]] = field(default_factory=dict)

    def text(self, viewer: str, channel: str) -> str:
        return self.seen[viewer][channel].replace(self.commitment, "<bag-commitment>")


def _setup(seed: str) -> tuple[int, dict[str, Member]]:
    call_command("flush", interactive=False, verbosity=0)
    _drop_rate_limits()
    members = {
        name: Member.objects.create_user(username=name, password="pw-correct-horse")
        for name in ("alice", "bob", "carol", "dave")
    }
    match = services.rounds_open(
        member=members["alice"],
        name="Secret night",
        turn_time=timedelta(seconds=180),
        round_time=timedelta(hours=24),
    )
    RoundsMatch.objects.filter(pk=match.pk).update(
        bag_seed=seed, bag_commitment=hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    )
    for name in ("bob", "carol"):
        services.rounds_join(match_id=match.pk, member=members[name])
    services.rounds_start(match_id=match.pk, member=members["alice"])
    return match.pk, members


def _api(match_id: int, member: Member | None) -> str:
    client = Client()
    if member is not None:
        client.force_login(member)
    answer = client.get(f"/api/rounds/{match_id}")
    assert answer.status_code == 200, answer.content
    return json.dumps(answer.json(), sort_keys=True)


#: What differs on every request by design: the CSRF token (a form's hidden field, a cookie
#: echoed into a page) and the Content-Security-Policy nonce of inline scripts.
_PER_REQUEST = (
    (re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*(")'), r"\1<csrf>\2"),
    (re.compile(r'(nonce=")[^"]*(")'), r"\1<nonce>\2"),
)


def _pages(match_id: int, member: Member | None) -> str:
    """The board page and the replay page as this viewer gets them (the HTML, with the
    board page's embedded snapshot), per-request tokens normalised."""
    client = Client()
    if member is not None:
        client.force_login(member)
    texts = []
    for path in (f"/rounds/{match_id}/", f"/rounds/{match_id}/replay/"):
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.status_code)
        text = answer.content.decode()
        assert 'id="rounds-view"' in text or 'id="rounds-replay"' in text, path
        for pattern, replacement in _PER_REQUEST:
            text = pattern.sub(replacement, text)
        texts.append(f"--- {path}\n{text}")
    return "\n".join(texts)


def _notices(member: Member | None) -> str:
    """What each "Round n is ready" notice of the member says now (or that it is stale)."""
    if member is None:
        return ""
    from django.utils import timezone

    from notifications import content
    from notifications.models import Kind, Notice
    from notifications.services import settings_of

    said = []
    for notice in Notice.objects.filter(member=member, kind=Kind.READY).order_by("key"):
        built = content.build(notice, settings_of(member), now=timezone.now())
        said.append(built.model_dump_json() if hasattr(built, "model_dump_json") else "stale")
    return "\n".join(said)


def _bob_move(match_id: int, plays: bool) -> Any:
    move = best_move(RoundsMatch.objects.get(pk=match_id))
    return move if plays else None


def _socket_text(frames: list[dict[str, Any]]) -> str:
    """The socket's two streams, each in its order: the answers to its own requests, and the
    news relayed from the match's group (which of the two a moment's frames came first in is
    the transport's, not the world's)."""
    answers = [f for f in frames if f["type"] in {"snapshot", "ack", "error"}]
    news = [f for f in frames if f["type"] not in {"snapshot", "ack", "error"}]
    return "\n".join(
        [
            *(json.dumps(f, sort_keys=True) for f in answers),
            "--- news",
            *(json.dumps(f, sort_keys=True) for f in news),
        ]
    )


async def _open(match_id: int, member: Member | None) -> Socket:
    cookie = await db(session_cookie)(member) if member else None
    communicator = WebsocketCommunicator(
        application, rounds_path(match_id), headers=headers_for(cookie)
    )
    connected, code = await communicator.connect(timeout=ARRIVAL_TIMEOUT)
    assert connected, code
    socket = Socket(str(member or "visitor"), communicator)
    await socket.next()
    return socket


async def _request(socket: Socket, frame: dict[str, Any]) -> dict[str, Any]:
    answer = await socket.request(frame)
    assert answer.get("accepted") is True, answer
    return answer


async def build(seed: str, *, bob_plays: bool, scene: str) -> World:
    world = World()
    with time_machine.travel(CREATED, tick=False) as clock:
        match_id, members = await db(_setup)(seed)
        world.commitment = (await db(RoundsMatch.objects.get)(pk=match_id)).bag_commitment
        sockets = {name: await _open(match_id, members.get(name or "")) for name in VIEWERS}
        try:
            clock.move_to(CREATED + timedelta(minutes=1))
            alice = sockets["alice"]
            await _request(alice, {"type": "start_round", "id": "a-start", "round": 1})
            if scene == "bob's play":
                await _request(alice, {"type": "pass", "id": "a-pass", "round": 1})
                clock.move_to(CREATED + timedelta(minutes=2))
                bob = sockets["bob"]
                await _request(bob, {"type": "start_round", "id": "b-start", "round": 1})
                move = await db(_bob_move)(match_id, bob_plays)
                if isinstance(move, Play):
                    tiles = [
                        {"row": t.row, "col": t.col, "letter": t.letter.upper(), "blank": t.blank}
                        for t in move.tiles
                    ]
                    frame = {"type": "play", "id": "b-move", "round": 1, "tiles": tiles}
                else:
                    frame = {"type": "pass", "id": "b-move", "round": 1}
                await _request(bob, frame)
                submitted = [True, True, False]
            else:
                submitted = [False, False, False]
            clock.move_to(CREATED + timedelta(minutes=3))
            for name, socket in sockets.items():
                await socket.wait_for(
                    lambda f: f["type"] == "progress" and f["data"]["submitted"] == submitted
                    and f["data"]["started"][0]
                )  # fmt: skip
                await socket.request({"type": "sync", "id": "look"})
                check_frames(socket)
                seen = world.seen.setdefault(name or "visitor", {})
                seen["socket"] = _socket_text(socket.frames)
                seen["api"] = await db(_api)(match_id, members.get(name or ""))
                seen["page"] = await db(_pages)(match_id, members.get(name or ""))
                seen["notice"] = await db(_notices)(members.get(name or ""))
        finally:
            for socket in sockets.values():
                await socket.close()
            await db(connections.close_all)()
    return world


PAIRS = {
    "bob's play": (
        {"seed": SEED_A, "bob_plays": True},
        {"seed": SEED_A, "bob_plays": False},
        {"bob"},
    ),
    "the tray, the bag and the seed": (
        {"seed": SEED_A, "bob_plays": False},
        {"seed": SEED_B, "bob_plays": False},
        {"alice"},
    ),
}


@pytest.mark.parametrize("scene", list(PAIRS))
async def test_two_rounds_worlds_look_alike_to_everyone_kept_from_their_difference(
    scene: str, make_member
) -> None:
    first_args, second_args, allowed = PAIRS[scene]
    try:
        first = await build(**first_args, scene=scene)
        second = await build(**second_args, scene=scene)
    finally:
        await asyncio.get_running_loop().shutdown_default_executor()
    for viewer in ("alice", "bob", "carol", "dave", "visitor"):
        for channel in ("api", "socket", "page", "notice"):
            if channel == "notice" and viewer in allowed:
                continue  # (a notice says no tray and no play: the same to everyone)
            same = first.text(viewer, channel) == second.text(viewer, channel)
            if viewer in allowed:
                assert not same, f"{scene}: {viewer} should see the difference on {channel}"
            else:
                diff = "\n".join(
                    difflib.unified_diff(
                        first.text(viewer, channel).splitlines(),
                        second.text(viewer, channel).splitlines(),
                        lineterm="",
                    )
                )
                assert same, f"{scene}: {viewer} told apart the worlds on {channel}:\n{diff}"
