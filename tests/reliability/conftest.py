"""Fixtures of the reliability suite: throwaway Redis, Daphne and Celery processes.

Every process a test starts is pointed at this run's test database and stopped when the test
ends, before pytest-django empties the tables. Tests here use ``transactional_db``: the
subprocesses must see committed rows.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from django.db import connection

from tests.reliability.harness import (
    CeleryWorker,
    DaphneServer,
    RedisServer,
    check_integrity,
    service_env,
)


@pytest.fixture(autouse=True)
def integrity_checked_after(request: pytest.FixtureRequest) -> Iterator[None]:
    """``check_integrity`` passes on whatever each test of the suite leaves behind.

    Torn down before the database is emptied (pytest-django's own fixtures come first).
    """
    yield
    node = request.node
    if node.get_closest_marker("django_db") and not node.get_closest_marker("corrupts_on_purpose"):
        check_integrity()


@pytest.fixture
def layer_prefix() -> str:
    """A channel-layer and cache prefix of this test's own."""
    return f"wordduel-rel-{os.getpid()}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def redis_server(tmp_path: Path, transactional_db) -> Iterator[RedisServer]:
    """A throwaway Redis for this test only (never the machine's shared one)."""
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def start_daphne(
    tmp_path: Path, transactional_db, redis_server: RedisServer, layer_prefix: str
) -> Iterator[Callable[..., DaphneServer]]:
    """Start Daphne processes on the throwaway Redis; all are stopped at the end."""
    started: list[DaphneServer] = []

    def start(*, command: list[str] | None = None, launch: bool = True, **env: str) -> DaphneServer:
        """A Daphne process (``launch=False``: its port is reserved, start it later)."""
        name = f"{layer_prefix}-daphne-{len(started)}"
        server = DaphneServer(
            service_env(
                redis_url=redis_server.url, prefix=layer_prefix, application_name=name, **env
            ),
            tmp_path / f"daphne-{len(started)}.log",
            command=command,
            app_name=name,
        )
        started.append(server)
        if launch:
            server.start()
        return server

    yield start
    for server in started:
        server.stop()
    connection.close()


@pytest.fixture
def start_worker(
    tmp_path: Path, transactional_db, redis_server: RedisServer, layer_prefix: str
) -> Iterator[Callable[..., CeleryWorker]]:
    """Start Celery workers with the throwaway Redis as broker; all are stopped at the end."""
    started: list[CeleryWorker] = []

    def start(
        name: str, *, queues: Sequence[str] = (), beat: bool = False, **env: str
    ) -> CeleryWorker:
        """A worker named ``name`` reading ``queues`` (every queue when none is named), with
        beat when ``beat``; ``env`` adds to its environment (e.g. an SMTP server)."""
        app_name = f"{layer_prefix}-worker-{name}"
        worker = CeleryWorker(
            service_env(
                redis_url=redis_server.url, prefix=layer_prefix, application_name=app_name, **env
            ),
            tmp_path / f"worker-{name}.log",
            name=name,
            app_name=app_name,
            queues=queues,
            beat_schedule=tmp_path / f"beat-{name}" if beat else None,
        )
        started.append(worker)
        worker.start()
        return worker

    yield start
    for worker in started:
        worker.stop()
