"""The Celery app: configured from Django settings (``CELERY_*``), tasks found in the apps.

Logging is Django's ``LOGGING`` in the worker and beat too (JSON in production), with the
request id of whatever queued a task (common/logs.py). Beat runs with
:class:`TickRecordingScheduler`, which records each tick for ``/healthz``.
"""

from __future__ import annotations

import os
import time
from typing import Any

from celery import Celery
from celery.beat import PersistentScheduler
from celery.signals import setup_logging

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wordduel.settings")

app = Celery("wordduel")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

#: The queues beside the default one, by what they carry: web pushes wait on other people's
#: servers, an import's analysis takes seconds of CPU. Neither may hold up the clock's sweeps
#: or the computer's moves, so each has a queue (and, deployed, a worker) of its own.
PUSH_QUEUE = "push"
IMPORTS_QUEUE = "imports"
#: Which tasks go to which of them; every other task goes to the default queue.
ROUTES = {"notifications.send_push": PUSH_QUEUE, "imports.analyse": IMPORTS_QUEUE}


def queue_name(kind: str) -> str:
    """The name of the queue ``kind`` carries: the default queue's, a dot, ``kind``
    (``celery.push``; a test run's queues share its prefix, as settings.CELERY_TASK_QUEUES)."""
    return f"{app.conf.task_default_queue}.{kind}"


def route_task(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **_: Any) -> Any:
    """Celery's router (``task_routes``): a task of ``ROUTES`` to its queue."""
    kind = ROUTES.get(name)
    return {"queue": queue_name(kind)} if kind else None


app.conf.task_routes = (route_task,)

#: The cache key beat's last tick is kept under (a Unix time); read by wordduel/health.py.
BEAT_TICK_KEY = "health:beat-last-tick"


@setup_logging.connect(weak=False)
def _django_logging(**_: Any) -> None:
    """Connected, so Celery leaves logging alone: Django's LOGGING applies as it is."""
    import logging.config  # noqa: PLC0415

    from django.conf import settings  # noqa: PLC0415

    logging.config.dictConfig(settings.LOGGING)


def _carry_request_ids() -> None:
    from common.logs import connect_celery_signals  # noqa: PLC0415 (needs no Django apps)

    connect_celery_signals()


_carry_request_ids()


class TickRecordingScheduler(PersistentScheduler):
    """Beat's scheduler, recording the time of every tick in the shared cache, so that
    ``/healthz`` (and beat's own healthcheck) can tell a beat that stopped ticking."""

    def tick(self, *args: Any, **kwargs: Any) -> float:
        delay = super().tick(*args, **kwargs)
        record_beat_tick()
        return delay


def record_beat_tick(at: float | None = None) -> None:
    import django  # noqa: PLC0415
    from django.apps import apps  # noqa: PLC0415

    if not apps.ready:
        django.setup()
    from django.core.cache import cache  # noqa: PLC0415

    try:
        cache.set(BEAT_TICK_KEY, time.time() if at is None else at, timeout=None)
    except Exception:  # Redis away: the next tick tries again; health says so
        import logging  # noqa: PLC0415

        logging.getLogger(__name__).warning("could not record beat's tick", exc_info=True)
