"""The clock in the web process, for the one-process quick start (no Celery there).

Deployments with Redis run the same sweeps from Celery beat instead (``matches.tasks``).
"""

from __future__ import annotations

import logging
import threading

from django.db import close_old_connections

from matches import services

logger = logging.getLogger(__name__)


def _loop(interval: float, stop: threading.Event) -> None:
    while not stop.wait(interval):
        try:
            services.run_clock()
        except Exception:  # a failed sweep is retried on the next tick
            logger.exception("in-process clock sweep failed")
        finally:
            close_old_connections()


def start_in_process_clock(*, interval: float) -> threading.Event:
    """Run the sweeps every ``interval`` seconds in a daemon thread; set the event to stop."""
    stop = threading.Event()
    thread = threading.Thread(
        target=_loop, args=(interval, stop), name="wordduel-clock", daemon=True
    )
    thread.start()
    logger.info("clock sweeping in-process every %.1f s", interval)
    return stop
