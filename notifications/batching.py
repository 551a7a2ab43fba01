"""Notices committed in this process, handed to Celery together: one task per short window.

Every move that does not end its match records a "your move" notice. Handing each to Celery
on its own cost a broker message per move (a tenth of a move's CPU in
``bench/commit_path.py``). The keys committed within ``NOTICE_DISPATCH_WINDOW_SECONDS`` of
the first one now travel in one task, sent by a timer thread: a busy process sends one
message for many moves, and a notice waits at most the window.

The task carries the ids of the requests (or sockets) whose commits recorded its notices,
joined by commas, so its log lines in the worker can still be found by any of them
(``common/logs.py``).

Nothing is lost by waiting: the notice rows are already committed, and a process that stops
before its window ends sends them at exit, or leaves them to ``notifications.sweep``, which
dispatches any notice whose task never came (as after a broker outage). With Celery eager
(the quick start, and tests that run tasks in the process) or a window of 0, keys are
dispatched at once.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Callable

from celery import current_app
from django.conf import settings

from common.logs import request_id

logger = logging.getLogger(__name__)

#: At most this many request ids are named on one task (a busy window names "+N more").
MAX_REQUEST_IDS = 20


class DispatchBatch:
    """Keys waiting for the window that the first of them opened; thread-safe."""

    def __init__(self, send: Callable[[list[str]], None]) -> None:
        self._send = send
        self._lock = threading.Lock()
        #: Held while a window's keys are being sent, so a flush returns only once what was
        #: waiting when it was called has gone (not while the timer is still sending it).
        self._sending = threading.RLock()
        self._keys: list[str] = []
        self._request_ids: dict[str, None] = {}  # in order of arrival, once each
        self._timer: threading.Timer | None = None

    def add(self, keys: list[str], *, window: float) -> None:
        """Queue ``keys``; the first keys of a window start its timer."""
        with self._lock:
            self._keys.extend(keys)
            current = request_id.get()
            if current != "-":
                self._request_ids[current] = None
            if self._timer is None:
                self._timer = threading.Timer(window, self.flush)
                self._timer.daemon = True  # a stopping process flushes at exit (atexit)
                self._timer.start()

    def flush(self) -> None:
        """Send what is waiting now, in one task (the timer's call; also at exit); returns
        once a send already under way in another thread is done too."""
        with self._sending:
            self._flush()

    def _flush(self) -> None:
        with self._lock:
            keys, self._keys = self._keys, []
            ids, self._request_ids = list(self._request_ids), {}
            timer, self._timer = self._timer, None
        if timer is not None and timer is not threading.current_thread():
            timer.cancel()
        if not keys:
            return
        named = ",".join(ids[:MAX_REQUEST_IDS])
        if len(ids) > MAX_REQUEST_IDS:
            named += f",+{len(ids) - MAX_REQUEST_IDS} more"
        token = request_id.set(named or "-")  # stamped on the task (before_task_publish)
        try:
            self._send(keys)
        except Exception:  # the broker is down: the sweep dispatches what is left
            logger.exception("could not queue %d notice(s); the sweep will", len(keys))
        finally:
            request_id.reset(token)

    @property
    def waiting(self) -> list[str]:
        """The keys not yet sent."""
        with self._lock:
            return list(self._keys)


def _send_task(keys: list[str]) -> None:
    # By its registered name (notifications/tasks.py imports the modules that call this).
    current_app.tasks["notifications.dispatch_notices"].delay(keys)


#: This process's batch; what it holds when the process exits is sent then.
_batch = DispatchBatch(_send_task)
atexit.register(_batch.flush)


def process_batch() -> DispatchBatch:
    """This process's batch."""
    return _batch


def dispatch_soon(keys: list[str]) -> None:
    """Hand ``keys`` to Celery within the window (at once when tasks run in the process)."""
    window = settings.NOTICE_DISPATCH_WINDOW_SECONDS
    if current_app.conf.task_always_eager or window <= 0:
        try:
            _send_task(keys)
        except Exception:  # the broker is down: the sweep dispatches what is left
            logger.exception("could not queue %d notice(s); the sweep will", len(keys))
        return
    process_batch().add(keys, window=window)
