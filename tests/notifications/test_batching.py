"""Notices of one process's commits reach the broker together, one task per window
(notifications/batching.py), read back from this run's own queue on the real Redis broker."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from queue import Empty
from typing import Any

import pytest
from django.conf import settings

from common.logs import request_id
from notifications.batching import MAX_REQUEST_IDS, DispatchBatch, process_batch
from notifications.models import Notice
from tests.matches.helpers import opening_then_pass
from wordduel.celery import app

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def broker_queue() -> Iterator[Any]:
    """This run's Celery queue (no worker reads it), emptied before and after the test."""
    process_batch().flush()  # what earlier tests left in the window
    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue(app.conf.task_default_queue, no_ack=True)
        try:
            queue.clear()
            yield queue
            queue.clear()
        finally:
            queue.close()


def tasks_in(queue: Any, *, wait: float) -> list[tuple[dict[str, Any], list[str]]]:
    """(headers, keys) of every task that arrives within ``wait`` seconds of the first one
    (or of the call, if none does)."""
    found = []
    while True:
        try:
            message = queue.get(timeout=wait)
        except Empty:
            return found
        args, _kwargs, _embed = message.decode()
        found.append((message.headers, args[0]))
        wait = 0.5


def moves_notices() -> list[str]:
    """The "your move" notices of the moves (not the kick-off's, sent before the test)."""
    notices = Notice.objects.filter(kind="your_move", turn_number__gte=1).order_by("id")
    return list(notices.values_list("key", flat=True))


def two_moves(match, first, second, *, window: float, settings) -> list[str]:
    """The opening and a pass, with notices sent by ``window``; the two "your move" keys."""
    settings.NOTICE_DISPATCH_WINDOW_SECONDS = window
    opening_then_pass(match, first, second, ids=(f"{window}-1", f"{window}-2"))
    keys = moves_notices()
    assert len(keys) == 2  # bob's move after the opening, alice's after his pass
    return keys


def test_two_moves_within_the_window_reach_the_broker_as_one_task(
    live_match, alice, bob, broker_queue, settings
) -> None:
    keys = two_moves(live_match, alice, bob, window=3.0, settings=settings)

    assert tasks_in(broker_queue, wait=0) == []  # held for the window
    assert process_batch().waiting == keys
    [(headers, sent)] = tasks_in(broker_queue, wait=10)
    assert headers["task"] == "notifications.dispatch_notices"
    assert sent == keys
    assert process_batch().waiting == []


def test_with_no_window_each_commit_queues_its_own_task(
    live_match, alice, bob, broker_queue, settings
) -> None:
    keys = two_moves(live_match, alice, bob, window=0, settings=settings)
    assert [sent for _headers, sent in tasks_in(broker_queue, wait=5)] == [[key] for key in keys]


def test_a_task_names_every_request_whose_notices_it_carries(broker_queue) -> None:
    batch = DispatchBatch(lambda keys: app.send_task("notifications.dispatch_notices", [keys]))
    for number in range(MAX_REQUEST_IDS + 2):
        token = request_id.set(f"req-{number}")
        try:
            batch.add([f"key-{number}"], window=60)
        finally:
            request_id.reset(token)
    batch.add(["key-no-request"], window=60)  # a sweep's or a shell's: no id of its own
    batch.flush()
    [(headers, sent)] = tasks_in(broker_queue, wait=10)
    assert sent == [f"key-{n}" for n in range(MAX_REQUEST_IDS + 2)] + ["key-no-request"]
    named = [f"req-{n}" for n in range(MAX_REQUEST_IDS)]
    assert headers["request_id"] == ",".join(named) + ",+2 more"
    assert request_id.get() == "-"  # the flush left this thread's id as it was


def test_a_refusing_broker_costs_the_flush_nothing_and_the_batch_starts_afresh(caplog) -> None:
    sent: list[list[str]] = []

    def refuse(keys: list[str]) -> None:
        raise ConnectionError("broker down")

    batch = DispatchBatch(refuse)
    batch.add(["a", "b"], window=60)
    batch.flush()  # logged, not raised
    assert "could not queue 2 notice(s); the sweep will" in caplog.text
    assert batch.waiting == []
    batch._send = sent.append  # the broker is back
    batch.add(["c"], window=0.05)
    for _ in range(100):
        if sent:
            break
        time.sleep(0.05)
    assert sent == [["c"]]


def test_a_process_that_exits_inside_its_window_sends_what_it_held(broker_queue) -> None:
    script = (
        "import django; django.setup()\n"
        "from notifications.batching import dispatch_soon\n"
        "dispatch_soon(['held-at-exit'])\n"  # a 60 s window: only the exit can send it
    )
    environment = {
        **os.environ,
        "NOTICE_DISPATCH_WINDOW_SECONDS": "60",
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "CELERY_QUEUE": app.conf.task_default_queue,
        "DJANGO_SETTINGS_MODULE": "wordduel.settings",
        "DATABASE_URL": settings.DATABASE_URL,
        "REDIS_URL": settings.REDIS_URL,
    }
    subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=environment, check=True, timeout=60
    )
    [(headers, sent)] = tasks_in(broker_queue, wait=10)
    assert (headers["task"], sent) == ("notifications.dispatch_notices", ["held-at-exit"])


def test_a_flush_returns_only_once_a_send_under_way_is_done() -> None:
    """The window's timer may be sending when another thread flushes (a test about to read
    what was sent, a process at exit): that flush waits for the send, so what was waiting
    when it was called has gone when it returns."""
    started, release, flushed = threading.Event(), threading.Event(), threading.Event()
    sent: list[list[str]] = []

    def send(keys: list[str]) -> None:
        started.set()
        release.wait(10)
        sent.append(keys)

    batch = DispatchBatch(send)
    batch.add(["notice-1"], window=60)
    timer_like = threading.Thread(target=batch.flush)
    timer_like.start()
    assert started.wait(10)

    def flush_again() -> None:
        batch.flush()
        flushed.set()

    other = threading.Thread(target=flush_again)
    other.start()
    assert not flushed.wait(0.3)  # held while the first send is under way
    release.set()
    assert flushed.wait(10)
    assert sent == [["notice-1"]]
    timer_like.join(10)
    other.join(10)
