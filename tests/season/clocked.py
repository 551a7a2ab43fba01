"""Run a server process (Daphne, a Celery worker, beat) on the season's clock.

``python -m tests.season.clocked <module> <args...>`` runs ``<module>`` as ``python -m`` would,
under ``time_machine`` travelling to the real time plus the offset (in seconds) written in the
file named by ``SEASON_CLOCK_FILE``. A thread re-reads the file; when the offset changes it
travels again, and writes the offset it now runs at to ``<file>.<pid>``, so the test knows
every process has moved before it goes on. Time flows (``tick=True``) between moves, and only
ever moves forward: a season is lived in days, compressed into minutes.
"""

from __future__ import annotations

import os
import runpy
import sys
import threading
import time
from pathlib import Path

import time_machine

#: How often the thread looks at the clock file (a bound on how soon a process follows).
LOOK_EVERY = 0.05


def read_offset(path: Path) -> float:
    """The offset in the file (0 until the test has written one)."""
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        return 0.0
    return float(text) if text else 0.0


def acknowledge(path: Path, offset: float) -> None:
    """Say, atomically, which offset this process runs at now."""
    ack = path.with_name(f"{path.name}.{os.getpid()}")
    partial = ack.with_name(ack.name + ".partial")
    partial.write_text(repr(offset))
    partial.replace(ack)


class Clock:
    """This process's travel: replaced, never stacked, when the offset changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = read_offset(path)
        self.traveller = self._travel(self.offset)
        acknowledge(path, self.offset)

    def _travel(self, offset: float) -> time_machine.travel:
        return travel(offset)

    def follow(self) -> None:
        """Forever: travel again whenever the file's offset changes."""
        while True:
            time.sleep(LOOK_EVERY)  # (sleeps are real: time-machine leaves them alone)
            offset = read_offset(self.path)
            if offset != self.offset:
                self.traveller.stop()
                self.offset = offset
                self.traveller = self._travel(offset)
            acknowledge(self.path, self.offset)


def travel(offset: float) -> time_machine.travel:
    """Travel to the real time plus ``offset``, ticking from now on.

    time-machine starts a ticking clock at its first reading, not at ``start()``: a process
    that reads the time only seconds later would run that much behind the others. So it is
    read at once."""
    traveller = time_machine.travel(real_time() + offset, tick=True)
    traveller.start()
    time.time()
    return traveller


def real_time() -> float:
    """The wall clock with no travel: time.monotonic is never travelled, so real time is
    the monotonic clock plus the difference taken before the first travel."""
    return time.monotonic() + _MONOTONIC_TO_REAL


_MONOTONIC_TO_REAL = time.time() - time.monotonic()


def main() -> None:
    path = Path(os.environ["SEASON_CLOCK_FILE"])
    module, *args = sys.argv[1:]
    clock = Clock(path)
    threading.Thread(target=clock.follow, name="season-clock", daemon=True).start()
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
