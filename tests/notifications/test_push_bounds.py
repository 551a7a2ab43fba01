"""Web push is bounded per member: at most ``PUSH_SUBSCRIPTIONS_PER_MEMBER`` browsers (a new
one replaces the oldest), each push sent from a Celery queue of its own (so a push service
that never answers holds up no clock sweep and no computer move), with a short timeout, and
pushes that fall behind show on ``/healthz`` without saying whose or where."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from datetime import timedelta
from queue import Empty
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from notifications import delivery
from notifications.models import Delivery, Notice, PushSubscription
from tests.matches.helpers import commit_move, opening_play, rack_of
from tests.notifications.conftest import browser_keys, push_service, vapid  # noqa: F401
from wordduel import health
from wordduel.celery import PUSH_QUEUE, app, queue_name

pytestmark = pytest.mark.django_db


def subscribe(client: Client, endpoint: str, keys) -> None:
    answer = client.post(
        "/notifications/push/subscribe/",
        json.dumps({"endpoint": endpoint, "keys": {"p256dh": keys.p256dh, "auth": keys.auth}}),
        content_type="application/json",
    )
    assert answer.status_code == 200, answer.content


def test_a_new_browser_past_the_cap_replaces_the_oldest(
    bob,
    vapid,  # noqa: F811 (the fixtures)
    push_service,  # noqa: F811
    browser_keys,  # noqa: F811
    settings,
) -> None:
    settings.PUSH_SUBSCRIPTIONS_PER_MEMBER = 10
    client = Client()
    client.force_login(bob)
    for n in range(13):
        subscribe(client, f"{push_service.url}/push/browser-{n}", browser_keys)
    kept = PushSubscription.objects.filter(member=bob).order_by("id")
    assert [s.endpoint.rsplit("-", 1)[1] for s in kept] == [str(n) for n in range(3, 13)]
    # Subscribing a browser it already has again replaces nothing.
    subscribe(client, f"{push_service.url}/push/browser-7", browser_keys)
    assert PushSubscription.objects.filter(member=bob).count() == 10


@pytest.fixture
def push_queue() -> Iterator[Any]:
    """This run's push queue on the real broker (no worker reads it), emptied around the test."""
    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue(queue_name(PUSH_QUEUE), no_ack=True)
        default = connection.SimpleQueue(app.conf.task_default_queue, no_ack=True)
        try:
            queue.clear()
            default.clear()
            yield queue, default
            queue.clear()
            default.clear()
        finally:
            queue.close()
            default.close()


def tasks_in(queue: Any, *, wait: float) -> list[tuple[str, list[Any]]]:
    found = []
    while True:
        try:
            message = queue.get(timeout=wait)
        except Empty:
            return found
        args, _kwargs, _embed = message.decode()
        found.append((message.headers["task"], args))
        wait = 0.5


def test_a_push_is_sent_from_its_own_queue(
    live_match,
    alice,
    bob,
    vapid,  # noqa: F811
    push_service,  # noqa: F811
    browser_keys,  # noqa: F811
    push_queue,
    django_capture_on_commit_callbacks,
) -> None:
    client = Client()
    client.force_login(bob)
    subscribe(client, f"{push_service.url}/push/b", browser_keys)
    commit_move(
        match_id=live_match.id,
        member=alice,
        against_turn=0,
        client_id="c1",
        move=opening_play(rack_of(live_match, 0)),
    )
    notice = Notice.objects.get(member=bob, kind="your_move")
    assert delivery.dispatch_notice(key=notice.key) == ["queued"]
    pushes, default = push_queue
    [push] = Delivery.objects.filter(notice=notice, channel="push")
    assert tasks_in(pushes, wait=10) == [("notifications.send_push", [push.pk])]
    assert tasks_in(default, wait=0) == []
    assert push_service.requests == []  # nothing sent by the dispatching worker itself
    # The sweep does not queue it again while its task waits in the queue.
    assert delivery.send_delivery(delivery_id=push.pk) == "queued"
    assert tasks_in(pushes, wait=1) == []


@pytest.fixture
def silent_push_service(settings) -> Iterator[str]:
    """A push service that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    settings.WEB_PUSH_HOSTS = [*settings.WEB_PUSH_HOSTS, "http://127.0.0.1"]
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        listener.close()


@pytest.mark.django_db(transaction=True)  # the sender's thread reads committed rows
def test_a_push_service_that_never_answers_is_given_up_on_quickly(
    live_match,
    alice,
    bob,
    vapid,  # noqa: F811
    browser_keys,  # noqa: F811
    silent_push_service,
    settings,
) -> None:
    settings.WEB_PUSH_TIMEOUT_SECONDS = 0.5
    client = Client()
    client.force_login(bob)
    for n in range(3):
        subscribe(client, f"{silent_push_service}/push/{n}", browser_keys)
    commit_move(
        match_id=live_match.id,
        member=alice,
        against_turn=0,
        client_id="c1",
        move=opening_play(rack_of(live_match, 0)),
    )
    notice = Notice.objects.get(member=bob, kind="your_move")
    delivery.dispatch_notice(key=notice.key)
    push = Delivery.objects.get(notice=notice, channel="push")
    outcome: list[str] = []
    sender = threading.Thread(
        target=lambda: outcome.append(delivery.send_push_delivery(delivery_id=push.pk))
    )
    sender.start()
    sender.join(timeout=8)  # three browsers at the short timeout each, well within this bound
    assert not sender.is_alive(), "the push waited on a silent push service past its timeout"
    assert outcome == ["retry"]
    push.refresh_from_db()
    assert (push.status, push.attempts) == ("pending", 1)


def test_late_pushes_show_on_healthz_without_details(
    live_match,
    alice,
    bob,
    vapid,  # noqa: F811
    push_service,  # noqa: F811
    browser_keys,  # noqa: F811
    settings,
) -> None:
    settings.HEALTH_PUSH_LATE_SECONDS = 60
    client = Client()
    client.force_login(bob)
    subscribe(client, f"{push_service.url}/push/b", browser_keys)
    commit_move(
        match_id=live_match.id,
        member=alice,
        against_turn=0,
        client_id="c1",
        move=opening_play(rack_of(live_match, 0)),
    )
    notice = Notice.objects.get(member=bob, kind="your_move")
    Delivery.objects.create(notice=notice, channel="push", due_at=timezone.now())
    assert health.push_part()["ok"] is True  # due now: on its way
    Delivery.objects.filter(notice=notice).update(due_at=timezone.now() - timedelta(seconds=61))
    part = health.push_part()
    assert part == {"ok": False, "detail": "web pushes are late"}
    answer = Client().get("/healthz")
    assert answer.status_code == 503
    body = answer.json()
    assert body["push"] == part
    assert "bob" not in answer.content.decode()
    assert "127.0.0.1:" not in json.dumps(body["push"])
    Delivery.objects.filter(notice=notice).update(status="sent")
    assert health.push_part()["ok"] is True
