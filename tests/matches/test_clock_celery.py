"""A real Celery worker with beat, on the real Redis broker, opens a fixture at kick-off
and a watcher on the channel layer receives ``opened``.

The worker runs as a subprocess against the test database, bounded in time and stopped
by the test.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import pytest
from channels.layers import get_channel_layer
from django.db import connection
from django.utils import timezone

from matches.models import Match
from matches.news import match_group, news_items
from tests.processes import spawn

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _worker_env() -> dict[str, str]:
    db = connection.settings_dict
    env = dict(os.environ)
    env["DATABASE_URL"] = (
        f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    )
    env["CLOCK_SWEEP_SECONDS"] = "1"
    env["CHANNEL_LAYER_PREFIX"] = os.environ["CHANNEL_LAYER_PREFIX"]
    env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture
def celery_worker_with_beat():
    """Start ``celery worker -B`` (solo pool) for the test's database; stop it afterwards."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "worker.log"
        with log.open("wb") as out:
            process = spawn(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "wordduel",
                    "worker",
                    "-B",
                    "--pool=solo",
                    "--loglevel=INFO",
                    f"--schedule={Path(tmp) / 'beat-schedule'}",
                ],
                cwd=ROOT,
                env=_worker_env(),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            yield process, log
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


async def test_beat_opens_a_fixture_at_kick_off_and_watchers_hear_it(
    celery_worker_with_beat, make_fixture, alice, bob
) -> None:
    from asgiref.sync import sync_to_async

    process, log = celery_worker_with_beat
    kickoff = timezone.now() + timedelta(seconds=6)
    match = await sync_to_async(make_fixture)(first=alice, second=bob, kickoff_at=kickoff)
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(match_group(match.id), channel)

    deadline = time.monotonic() + 60
    opened = None
    while time.monotonic() < deadline and opened is None:
        assert process.poll() is None, log.read_text()
        try:
            message = await asyncio.wait_for(layer.receive(channel), timeout=2)
        except TimeoutError:
            continue
        for item in news_items(message):
            if item.get("kind") == "opened":
                opened = item
    assert opened is not None, f"no opened event within 60 s; worker log:\n{log.read_text()}"
    arrived = timezone.now()
    assert arrived >= kickoff
    match = await Match.objects.aget(pk=match.id)
    await sync_to_async(lambda: connection.close())()  # noqa: PLW0108 - resolve in thread
    assert match.status == Match.Status.LIVE
    data = json.loads(opened["text"])["data"]
    assert data["status"] == "live"
    assert "rack" not in str(data).lower().replace("rack_count", "")
