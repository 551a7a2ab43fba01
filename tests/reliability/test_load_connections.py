"""One web process under HTTP and websocket load never holds more PostgreSQL connections than
its pool, keeps none beyond it afterwards, and answers no request with a 5xx.

Before the pool, every request an ASGI server ran (each in a thread of its own) kept a
connection of its own: 200 anonymous GETs exhausted PostgreSQL's 100 connections
(docs/RELIABILITY.md). Here a Daphne process with ``DB_POOL_MAX=5`` takes 2,000 requests,
50 at a time, over the API, the pages and a missing match, then 500 websockets; a watcher
counts the process's backends in ``pg_stat_activity`` (by its ``application_name``) the
whole time.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.db import connections
from websockets.asyncio.client import connect

from matches.models import Match
from tests.matches.test_ws_helpers import seeded_match
from tests.reliability.harness import ORIGIN, record_figures, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

POOL = 5
REQUESTS = 2000
AT_ONCE = 50
SOCKETS = 500


class BackendWatcher(threading.Thread):
    """Counts the web process's PostgreSQL backends every 20 ms; remembers the most seen."""

    def __init__(self, application_name: str) -> None:
        super().__init__(daemon=True)
        self.application_name = application_name
        self.most = 0
        self.samples = 0
        self.stopping = threading.Event()

    def count(self) -> int:
        with connections["default"].cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                [self.application_name],
            )
            return int(cursor.fetchone()[0])

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                self.most = max(self.most, self.count())
                self.samples += 1
                time.sleep(0.02)
        finally:
            connections.close_all()


def test_a_web_process_under_load_stays_within_its_pool(start_daphne, make_fixture, alice, bob):
    web = start_daphne(DB_POOL_MAX=str(POOL), DB_POOL_MIN="1")
    match = seeded_match(make_fixture, alice, bob, seed=61)
    members_only = seeded_match(
        make_fixture, bob, alice, seed=62, visibility=Match.Visibility.MEMBERS
    )
    paths = [
        f"/api/matches/{match.pk}/",
        f"/api/matches/{match.pk}/replay?turn=0",
        "/api/matches/",
        f"/matches/{match.pk}/",
        f"/api/matches/{members_only.pk}/",  # 404 for a visitor
        "/api/matches/999999/",
        "/",
    ]
    watcher = BackendWatcher(web.app_name)
    watcher.start()
    statuses: Counter[int] = Counter()
    started = time.monotonic()
    session = requests.Session()
    session.trust_env = False  # loopback only, never a proxy

    def get(index: int) -> int:
        return session.get(web.http_url + paths[index % len(paths)], timeout=60).status_code

    with ThreadPoolExecutor(max_workers=AT_ONCE) as pool:
        for status in pool.map(get, range(REQUESTS)):
            statuses[status] += 1
    http_seconds = time.monotonic() - started

    async def sockets() -> int:
        opened = []
        try:
            for _ in range(SOCKETS):
                ws = await connect(
                    f"{web.ws_url}/ws/matches/{match.pk}/", origin=ORIGIN, proxy=None
                )
                await ws.recv()  # the snapshot: the socket read the match
                opened.append(ws)
            return len(opened)
        finally:
            await asyncio.gather(*(ws.close() for ws in opened), return_exceptions=True)

    opened = asyncio.run(sockets())
    # Afterwards the pool keeps what it has (up to its size) and nothing more.
    wait_until(lambda: watcher.count() <= POOL, timeout=30, what="the pool to settle")
    settled = watcher.count()
    watcher.stopping.set()
    watcher.join(timeout=10)

    assert sum(count for status, count in statuses.items() if status >= 500) == 0, statuses
    assert statuses[200] >= REQUESTS * 5 // len(paths), statuses
    assert opened == SOCKETS
    assert watcher.samples > 10
    assert watcher.most <= POOL, f"{watcher.most} backends at once, pool of {POOL}"
    assert settled <= POOL
    assert "Traceback" not in web.log_text(), web.log_text()[-3000:]
    record_figures(
        "load-connections",
        {
            "requests": REQUESTS,
            "at_once": AT_ONCE,
            "http_seconds": round(http_seconds, 1),
            "statuses": statuses,
            "sockets": opened,
            "pool": POOL,
            "most_backends": watcher.most,
            "after": settled,
        },
    )
