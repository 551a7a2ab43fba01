"""A push service that never answers stalls only the push worker: the clock's sweeps and the
computer's moves go on, and ``/healthz`` says the pushes are late.

Ten members each subscribe ten browsers (the cap) at a loopback socket that accepts and never
answers, and each is owed a "your move" push. A real worker with beat reads the default
queue, a second one the push queue (as docker-compose.yml runs them), on a throwaway Redis.
While the push worker waits on the silent service, a fixture kicks off on time and the
computer answers a practice move, each within a bound; a real Daphne's ``/healthz`` turns
503 on the late pushes, naming nothing but that.
"""

from __future__ import annotations

import io
import json
import os
import socket
import threading
from collections.abc import Iterator
from datetime import timedelta

import pytest
from celery import Celery
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from matches.models import Match
from notifications.models import Notice, PushSubscription
from practice.services import start_practice
from tests.matches.helpers import commit_move, opening_play, rack_of
from tests.matches.test_ws_helpers import seeded_match
from tests.notifications.conftest import BrowserKeys
from tests.reliability.harness import wait_until
from wordduel.celery import PUSH_QUEUE

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

MEMBERS = 10
BROWSERS = 10  # each member's cap


class SilentPushService:
    """A loopback socket that accepts every connection and never answers."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(256)
        self.listener.settimeout(0.2)
        self.accepted = 0
        self.held: list[socket.socket] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            self.held.append(conn)
            self.accepted += 1

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)
        for conn in self.held:
            conn.close()
        self.listener.close()


@pytest.fixture
def silent_service() -> Iterator[SilentPushService]:
    service = SilentPushService()
    yield service
    service.stop()


def vapid_env() -> dict[str, str]:
    out = io.StringIO()
    call_command("vapid_keys", stdout=out)
    pairs = dict(
        line.split("=", 1) for line in out.getvalue().splitlines() if not line.startswith("#")
    )
    return {
        "VAPID_PUBLIC_KEY": pairs["VAPID_PUBLIC_KEY"],
        "VAPID_PRIVATE_KEY": pairs["VAPID_PRIVATE_KEY"],
        "WEB_PUSH_HOSTS": "http://127.0.0.1",
    }


def owed_pushes(make_fixture, make_member, endpoint: str) -> list[str]:
    """MEMBERS matches, each waiting on a member with BROWSERS silent browsers: their notices."""
    keys = BrowserKeys(ec.generate_private_key(ec.SECP256R1()), os.urandom(16))
    for n in range(MEMBERS):
        mover, waiting = make_member(), make_member()
        PushSubscription.objects.bulk_create(
            PushSubscription(
                member=waiting,
                endpoint=f"{endpoint}/push/{n}/{b}",
                p256dh=keys.p256dh,
                auth=keys.auth,
            )
            for b in range(BROWSERS)
        )
        match = seeded_match(make_fixture, mover, waiting, seed=100 + n)
        outcome = commit_move(
            match_id=match.id,
            member=mover,
            against_turn=0,
            client_id=f"open-{n}",
            move=opening_play(rack_of(match, 0)),
        )
        assert outcome.accepted, outcome
    owed = list(
        Notice.objects.filter(kind="your_move", turn_number=1).values_list("key", flat=True)
    )
    assert len(owed) == MEMBERS
    return owed


def test_a_silent_push_service_stalls_neither_the_clock_nor_the_computer(
    start_worker,
    start_daphne,
    redis_server,
    make_fixture,
    make_member,
    silent_service,
) -> None:
    keys = owed_pushes(make_fixture, make_member, silent_service.url)
    env = {**vapid_env(), "CLOCK_SWEEP_SECONDS": "1", "HEALTH_PUSH_LATE_SECONDS": "5"}
    default_queue = settings.CELERY_TASK_DEFAULT_QUEUE
    start_worker("clock", queues=[default_queue], beat=True, **env)
    start_worker("push", queues=[f"{default_queue}.{PUSH_QUEUE}"], **env)
    daphne = start_daphne(**env)
    broker = Celery("push-stall-probe", broker=redis_server.url)
    broker.conf.task_default_queue = default_queue

    broker.send_task("notifications.dispatch_notices", [keys])
    wait_until(
        lambda: silent_service.accepted >= 1,
        timeout=60,
        what="the push worker to reach the silent push service",
    )

    # The clock: a fixture kicks off a few seconds from now and opens.
    kickoff = timezone.now() + timedelta(seconds=3)
    fixture = make_fixture(first=make_member(), second=make_member(), kickoff_at=kickoff)
    wait_until(
        lambda: Match.objects.get(pk=fixture.pk).status == Match.Status.LIVE,
        timeout=60,
        what="beat's sweep to open the fixture while pushes stall",
        every=0.5,
    )

    # The computer: it answers a practice move.
    player = make_member()
    practice = start_practice(member=player, level="easy")
    opened = commit_move(
        match_id=practice.id,
        member=player,
        against_turn=0,
        client_id="practice-open",
        move=opening_play(rack_of(practice, 0)),
    )
    assert opened.accepted, opened
    broker.send_task("practice.play_computer_turn", [practice.id])
    wait_until(
        lambda: Match.objects.get(pk=practice.pk).turn_number >= 2,
        timeout=90,
        what="the computer's move while pushes stall",
        every=0.5,
    )

    # /healthz: the pushes are late, and nothing says whose or where.
    def late() -> dict | None:
        status, body = daphne.get("/healthz")
        parsed = json.loads(body)
        return parsed if status == 503 and not parsed["push"]["ok"] else None

    report = wait_until(late, timeout=60, what="/healthz to report late pushes", every=1)
    assert report["push"] == {"ok": False, "detail": "web pushes are late"}
    assert report["worker"]["ok"]
    assert report["beat"]["ok"]
    assert silent_service.url.rsplit(":", 1)[1] not in json.dumps(report)
    # The stall is bounded per push: each browser is given up on after a short timeout,
    # so the push worker is still going through the browsers, not stuck on the first.
    wait_until(
        lambda: silent_service.accepted >= 3,
        timeout=60,
        what="the push worker to move on to further browsers",
    )
