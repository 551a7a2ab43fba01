"""Soak: many matches played to the end at once by scripted websocket clients.

Two Daphne processes (``SOAK_DAPHNES``) on one channels-redis layer (a throwaway Redis) and
this run's test database; every match has its two players and a watcher, spread over the
processes so that news crosses from one process to another. Half the matches are
members-only, watched through the viewing key. Loopback only.

The CI profile plays 6 matches within a 90 s bound. The long profile is on demand:
``SOAK_MATCHES=40 SOAK_SECONDS=900 pytest tests/reliability/test_soak.py``.

At the end ``check_integrity`` passes, every client's view (built from its frames alone)
equals what the database says that viewer should see, and nothing was lost: every client
heard every move of its match as a push, with no gap to fill and no server error; no
Daphne process logged a traceback.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections import Counter
from typing import Any

import pytest

from matches.models import Match
from tests.matches.test_ws_helpers import seeded_match, session_cookie
from tests.reliability.clients import OVER, LiveClient, database_summary, play_out
from tests.reliability.harness import check_integrity, in_thread, record_figures

TROUBLE = re.compile(r"Traceback|Exception inside application|websocket request failed")
SOAK_MATCHES = int(os.environ.get("SOAK_MATCHES", "6"))
SOAK_SECONDS = float(os.environ.get("SOAK_SECONDS", "90"))
SOAK_DAPHNES = int(os.environ.get("SOAK_DAPHNES", "2"))

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(int(SOAK_SECONDS) + 180),
]


def _matches(make_fixture, make_member) -> list[dict[str, Any]]:
    """Seeded live matches, every other one members-only; players, cookies, keys."""
    games = []
    for index in range(SOAK_MATCHES):
        first, second = make_member(), make_member()
        visibility = Match.Visibility.MEMBERS if index % 2 else Match.Visibility.PUBLIC
        match = seeded_match(make_fixture, first, second, seed=1000 + index, visibility=visibility)
        games.append(
            {
                "match": match,
                "members": (first, second),
                "cookies": (session_cookie(first), session_cookie(second)),
                "key": match.viewing_key if visibility == Match.Visibility.MEMBERS else None,
            }
        )
    return games


def test_soak_many_matches_to_the_end_every_view_equals_the_database(
    start_daphne, make_fixture, make_member
) -> None:
    webs = [start_daphne() for _ in range(SOAK_DAPHNES)]
    servers = [web.ws_url for web in webs]
    games = _matches(make_fixture, make_member)
    figures: dict[str, Any] = {"matches": SOAK_MATCHES, "daphnes": SOAK_DAPHNES}

    # Generous for a crowd connecting at once on two cores; a bound, not a measurement.
    within = max(60.0, SOAK_MATCHES * 1.5)

    async def join(index: int, game: dict[str, Any]) -> list[tuple[LiveClient, Any]]:
        """A match's two players and its watcher, connected before anyone plays."""
        match = game["match"]
        players = [
            await LiveClient(
                f"m{index}-p{position}",
                match.id,
                servers,
                cookie=game["cookies"][position],
                prefer=index + position,
                reconnect_within=within,
            ).start()
            for position in (0, 1)
        ]
        watcher = await LiveClient(
            f"m{index}-watch",
            match.id,
            servers,
            key=game["key"],
            prefer=index + 2,
            reconnect_within=within,
        ).start()
        first, second = game["members"]
        return [(players[0], first), (players[1], second), (watcher, None)]

    async def play(index: int, clients: list[tuple[LiveClient, Any]]) -> None:
        await asyncio.gather(
            play_out(clients[0][0], 0, seed=index, timeout=SOAK_SECONDS),
            play_out(clients[1][0], 1, seed=index, timeout=SOAK_SECONDS),
        )
        for client, _ in clients:
            await client.wait_for_view(lambda v: v.status in OVER, timeout=60)

    async def scenario() -> None:
        results = await asyncio.gather(*(join(i, g) for i, g in enumerate(games)))
        started = time.monotonic()
        await asyncio.gather(*(play(i, result) for i, result in enumerate(results)))
        figures["play_seconds"] = round(time.monotonic() - started, 1)
        clients = [pair for result in results for pair in result]
        stats = [client.stats for client, _ in clients]
        figures.update(
            clients=len(clients),
            moves=sum(client.view.turn_number for client, _ in clients[::3]),
            frames_in=sum(s.frames_in for s in stats),
            frames_out=sum(s.frames_out for s in stats),
            pushes=sum(sum(s.pushes.values()) for s in stats),
            reconnects=sum(s.reconnects for s in stats),
            refused_handshakes=sum(s.failed_handshakes for s in stats),
            server_errors=sum(s.server_errors for s in stats),
            gap_syncs=sum(s.gap_syncs for s in stats),
            quiet_syncs=sum(s.quiet_syncs for s in stats),
            close_codes=sum((s.close_codes for s in stats), Counter()),
        )
        unequal, unheard = [], {}
        for game, result in zip(games, results, strict=True):
            for client, member in result:
                expected = await in_thread(database_summary, game["match"].id, member)
                if client.view.summary() != expected:
                    unequal.append(client.name)
                missed = set(range(1, expected["turn_number"] + 1)) - client.stats.pushed_turns
                if missed:
                    unheard[client.name] = len(missed)
        figures.update(views_unequal=len(unequal), clients_missing_pushes=len(unheard))
        record_figures("soak", figures)
        assert not unequal, unequal  # every view ends equal to the database
        assert not unheard, unheard  # and nothing was lost on the way
        assert figures["server_errors"] == 0
        assert figures["gap_syncs"] == 0
        assert figures["reconnects"] == 0
        for client, _ in clients:
            await client.close()

    asyncio.run(scenario())
    for web in webs:
        web.stop()
        trouble = [line for line in web.log_text().splitlines() if TROUBLE.search(line)]
        assert not trouble, trouble[:10]
    assert not Match.objects.exclude(status=Match.Status.FINISHED).exists()
    check_integrity()
