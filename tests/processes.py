"""Subprocesses the tests start (Daphne, Celery, Redis, pytest itself): always ended.

Each is started under ``setpriv --pdeathsig KILL``, so the kernel kills it when the test run
dies, however it dies: even pytest-timeout's ``os._exit`` after a hang, which runs no
fixture teardown. Whatever is still running when the session ends normally is killed too.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Sequence
from typing import Any

_started: list[subprocess.Popen[Any]] = []


def spawn(argv: Sequence[str], **popen: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(argv, **popen)``, bound to die with this process.

    Start it from the main thread: the parent-death signal follows the thread that forked.
    """
    setpriv = shutil.which("setpriv")
    command = [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else list(argv)
    process: subprocess.Popen[Any] = subprocess.Popen(command, **popen)
    _started.append(process)
    return process


def end_all() -> None:
    """Kill every spawned process (and its session's group) that is still running."""
    while _started:
        process = _started.pop()
        if process.poll() is not None:
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.getpgid(process.pid) == process.pid:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)


atexit.register(end_all)
