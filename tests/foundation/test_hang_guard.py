"""A hanging test is stopped, with every thread's stack printed, and its children die with it.

Runs ``hanging_cases.py`` in a pytest of its own with a 5 s timeout: the suite's settings
(pytest-timeout's thread method, which covers fixture teardown) must end that run with a stack
dump instead of letting it hang, and the process it started must be gone afterwards.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import spawn

pytestmark = pytest.mark.slow  # two pytest runs, each waiting out its timeout

ROOT = Path(__file__).resolve().parents[2]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (killed, not yet reaped by its parent) is not running either.
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()


@pytest.mark.parametrize(
    ("case", "where"),
    [
        ("test_hangs_in_fixture_teardown", "in pytest_runtest_teardown"),
        ("test_hangs_in_the_call", "in test_hangs_in_the_call"),
    ],
)
def test_a_hanging_test_is_stopped_with_a_stack_dump_and_its_children_end(
    case, where, tmp_path
) -> None:
    pid_file = tmp_path / "child.pid"
    env = {**os.environ, "WORDDUEL_HANG": "1", "WORDDUEL_HANG_CHILD_PID": str(pid_file)}
    started = time.monotonic()
    run = spawn(
        [
            sys.executable,
            "-m",
            "pytest",
            f"tests/foundation/hanging_cases.py::{case}",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:django",
            "--noconftest",
            "-o",
            "timeout=5",
            "-o",
            "faulthandler_timeout=3",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        output, _ = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    took = time.monotonic() - started
    assert run.returncode not in (0, None), output
    assert "Timeout" in output, output
    assert "hanging_cases.py" in output
    assert where in output, "the stack dump shows where it hung"
    assert took < 90, f"stopped only after {took:.0f} s"
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child), "the hanging run's child process outlived it"
