"""The two-world suite's parts: the real SMTP server, push service and browser keys of the
notification tests, notices' tasks run in the process after each commit, the scripted bag,
and the log captured at the deployed level."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from tests.notifications.conftest import (  # noqa: F401 (fixtures, used by name)
    browser_keys,
    eager_tasks,
    push_service,
    smtp_server,
    vapid,
)
from tests.secrecy import worlds
from tests.secrecy.build import LogCapture, Outside


@pytest.fixture
async def outside(
    smtp_server,  # noqa: F811
    push_service,  # noqa: F811
    browser_keys,  # noqa: F811
    vapid,  # noqa: F811
    eager_tasks,  # noqa: F811
    settings,
    monkeypatch,
) -> AsyncIterator[Outside]:
    """Everything a world needs around the server; the engine's bag follows the worlds'
    scripts while it lasts."""
    settings.FORFEIT_AFTER = worlds.TURN_TIME
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.secrecy.plants.PlantedLeakMiddleware"]
    worlds.patch_bag(monkeypatch)
    log = LogCapture()
    root = logging.getLogger()
    level = root.level
    root.addHandler(log)
    root.setLevel(logging.INFO)
    try:
        yield Outside(inbox=smtp_server, push=push_service, keys=browser_keys, log=log)
    finally:
        root.removeHandler(log)
        root.setLevel(level)
        # The consumer's worker threads keep their database connections: end them, so the
        # test database can be emptied and dropped.
        await asyncio.get_running_loop().shutdown_default_executor()
