"""The clock in the web process, for the one-process quick start (no Celery there).

It runs what Celery beat runs in a deployment (``CELERY_BEAT_SCHEDULE``): the match clock
(``matches.tasks``) every ``interval`` seconds, and the notification sweep (forfeit
warnings, kick-off reminders, digests, deliveries that waited) every ``notify_interval``.
"""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.db import close_old_connections

from matches import services
from notifications import sweeps

logger = logging.getLogger(__name__)


def _loop(interval: float, notify_interval: float, stop: threading.Event) -> None:
    notify_next = time.monotonic()  # the first notification sweep on the first tick
    while not stop.wait(interval):
        try:
            services.run_clock()
        except Exception:  # a failed sweep is retried on the next tick
            logger.exception("in-process clock sweep failed")
        if time.monotonic() >= notify_next:
            notify_next = time.monotonic() + notify_interval
            try:
                sweeps.run_sweep()
            except Exception:  # likewise, on the next one
                logger.exception("in-process notification sweep failed")
        close_old_connections()


def start_in_process_clock(
    *, interval: float, notify_interval: float | None = None
) -> threading.Event:
    """Run the sweeps in a daemon thread, the match clock every ``interval`` seconds and the
    notification sweep every ``notify_interval`` (``NOTIFY_SWEEP_SECONDS`` by default); set
    the event to stop."""
    every = settings.NOTIFY_SWEEP_SECONDS if notify_interval is None else notify_interval
    stop = threading.Event()
    thread = threading.Thread(
        target=_loop, args=(interval, every, stop), name="wordduel-clock", daemon=True
    )
    thread.start()
    logger.info(
        "clock sweeping in-process every %.1f s, notifications every %.1f s", interval, every
    )
    return stop
