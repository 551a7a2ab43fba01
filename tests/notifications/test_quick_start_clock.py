"""The quick start (``make run``) has no Celery beat: the clock thread of the web process
runs the notification sweep too, so forfeit warnings and kick-off reminders are recorded
and sent there (by email to the console; here, a real SMTP server)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from matches.models import Match
from notifications.models import Delivery, Notice
from tests.notifications.conftest import text_of, to
from wordduel.in_process_clock import start_in_process_clock

# The clock thread has a connection of its own: it must see committed rows.
pytestmark = pytest.mark.django_db(transaction=True)


def _wait_for(condition, *, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the clock thread did not get there in time"
        time.sleep(0.05)


def test_the_in_process_clock_sends_forfeit_warnings_and_kickoff_reminders(
    make_fixture, with_email, smtp_server, eager_tasks
):
    alice, bob = with_email
    now = timezone.now()
    # A match opened 50 hours ago: alice's deadline is 22 hours away (the 24-hour warning).
    with time_machine.travel(now - timedelta(hours=50), tick=False):
        stalled = make_fixture(first=alice, second=bob, name="Stalled")
        soon = make_fixture(
            first=alice, second=bob, name="Soon", kickoff_at=now + timedelta(minutes=30)
        )
    assert stalled.status == Match.Status.LIVE

    stop = start_in_process_clock(interval=0.05, notify_interval=0.2)
    try:
        _wait_for(
            lambda: (
                Delivery.objects.filter(
                    status=Delivery.Status.SENT, notice__kind__in=["forfeit", "kickoff"]
                ).count()
                == 3
            )
        )
    finally:
        stop.set()

    keys = set(Notice.objects.filter(kind__in=["forfeit", "kickoff"]).values_list("key", flat=True))
    assert keys == {
        f"forfeit:{stalled.id}:0:24:{alice.pk}",
        f"kickoff:{soon.id}:{alice.pk}:{int(soon.kickoff_at.timestamp())}",
        f"kickoff:{soon.id}:{bob.pk}:{int(soon.kickoff_at.timestamp())}",
    }
    subjects = sorted(message["Subject"] for message in smtp_server.messages)
    assert sum(s.startswith("Kick-off in 29 minutes: Soon") for s in subjects) == 2, subjects
    assert "21 hours 59 minutes left to move: Stalled: alice v bob" in subjects
    warning = next(m for m in to(smtp_server, alice.email) if "left to move" in m["Subject"])
    assert "forfeit" in text_of(warning).lower()
