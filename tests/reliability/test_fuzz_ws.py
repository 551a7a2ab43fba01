"""Random websocket frames through a real Daphne process, over loopback.

The frame strategies of ``tests/matches/test_ws_fuzz.py`` (text, binary, arbitrary JSON,
near-miss requests, frames cut short or over the size limit) are sent by real ``websockets``
clients of every kind (the player to move, the opponent, a member watching, an anonymous
viewer) through Daphne, the origin check and session authentication. After each batch the
sender got exactly one answer per frame and none is a ``server_error``; its socket still
answers ``sync`` with the very next frame; the match is exactly as it was. At the end every
bystander's very next frame is the answer to its own ``sync``: nothing stray reached them.
Daphne's log holds no traceback.

CI profile: ``FUZZ_EXAMPLES`` (default 20) times 3 batches per sender; long profile e.g.
``FUZZ_EXAMPLES=400`` (1,200 batches per sender).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection, connect

from lexicon.lexicon import get_lexicon
from tests.matches.test_ws_fuzz import frames, harmless
from tests.matches.test_ws_helpers import current_game, match_state, session_cookie
from tests.reliability.harness import ORIGIN, check_integrity, record_figures

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(300 + 6 * FUZZ_EXAMPLES),
]
SENDERS = ("mover", "opponent", "member", "anonymous")
TROUBLE = re.compile(r"Traceback|Exception inside application|websocket request failed")


async def _open(url: str, cookie: str | None) -> ClientConnection:
    headers = {"Cookie": f"sessionid={cookie}"} if cookie else {}
    ws = await connect(url, origin=ORIGIN, additional_headers=headers, proxy=None, max_size=2**22)  # type: ignore[arg-type]
    hello = json.loads(await ws.recv())
    assert hello["type"] == "snapshot", hello
    return ws


async def _sync_is_next(ws: ClientConnection, client_id: str) -> dict[str, Any]:
    """Send ``sync``; the very next frame must be its snapshot (nothing stray before it)."""
    await ws.send(json.dumps({"type": "sync", "id": client_id}))
    answer = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
    assert (answer["type"], answer.get("id")) == ("snapshot", client_id), answer
    return answer


def test_random_frames_through_daphne_are_each_answered_and_change_nothing(
    start_daphne, live_match, alice, bob, make_member
) -> None:
    # The fuzzer floods by design: flood control is tested elsewhere, parsing is tested here.
    web = start_daphne(WS_RATE_BURST="1000000000")
    carol = make_member("carol")
    cookies = {"mover": alice, "opponent": bob, "member": carol, "anonymous": None}
    cookies = {name: session_cookie(m) if m else None for name, m in cookies.items()}
    url = f"{web.ws_url}/ws/matches/{live_match.pk}/"
    baseline = match_state(live_match.pk)
    game, lexicon = current_game(live_match.pk), get_lexicon("enable")
    answers: Counter[str] = Counter()
    sent = Counter()

    with asyncio.Runner() as runner:
        sockets = {name: runner.run(_open(url, cookies[name])) for name in SENDERS}

        async def exchange(ws: ClientConnection, batch: list[str | bytes]) -> list[dict]:
            for frame in batch:
                await ws.send(frame)
            return [json.loads(await asyncio.wait_for(ws.recv(), timeout=30)) for _ in batch]

        def fuzz(sender: str) -> None:
            @hypothesis_settings(
                max_examples=FUZZ_EXAMPLES * 3,
                deadline=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(batch=st.lists(frames, min_size=1, max_size=4))
            def run(batch: list[str | bytes]) -> None:
                if sender == "mover":
                    batch = [harmless(frame, game, lexicon) for frame in batch]
                replies = runner.run(exchange(sockets[sender], batch))
                sent[sender] += len(batch)
                for reply in replies:
                    assert reply["type"] in {"error", "ack", "snapshot"}, reply
                    assert reply.get("code") != "server_error", reply
                    if reply["type"] == "ack":
                        assert reply["accepted"] is False, reply
                    answers[f"{reply['type']}:{reply.get('code', reply.get('reason'))}"] += 1
                runner.run(_sync_is_next(sockets[sender], f"after-{sent[sender]}"))
                assert match_state(live_match.pk) == baseline

            run()

        for sender in SENDERS:
            fuzz(sender)
        for name, ws in sockets.items():  # bystanders of every batch heard nothing stray
            runner.run(_sync_is_next(ws, f"final-{name}"))
            runner.run(ws.close())
    web.stop()
    trouble = [line for line in web.log_text().splitlines() if TROUBLE.search(line)]
    assert not trouble, trouble[:10]
    assert match_state(live_match.pk) == baseline
    check_integrity()
    record_figures("fuzz-ws", {"frames": sum(sent.values()), "by_sender": sent, "answers": answers})
