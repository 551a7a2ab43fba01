"""Tests that hang on purpose, run only by ``test_hang_guard.py`` (never collected by the suite:
the file name does not start with ``test_``, and it refuses to run without WORDDUEL_HANG=1).

One hangs in an async fixture's teardown, where a timeout of the test call alone would never
fire; one in the test itself. Each starts a child process first, which must not outlive the run.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from tests.processes import spawn

if os.environ.get("WORDDUEL_HANG") != "1":
    pytest.skip(
        "hangs on purpose: run by tests/foundation/test_hang_guard.py", allow_module_level=True
    )


def _start_child() -> None:
    child = spawn(["sleep", "600"])
    Path(os.environ["WORDDUEL_HANG_CHILD_PID"]).write_text(str(child.pid))


@pytest.fixture
async def teardown_that_never_ends():
    yield
    await asyncio.Event().wait()  # nobody ever sets it


async def test_hangs_in_fixture_teardown(teardown_that_never_ends) -> None:
    _start_child()


def test_hangs_in_the_call() -> None:
    _start_child()
    threading.Event().wait()
