"""The quick start (``make run``) keeps its data in SQLite: its set-up commands run to the end
there, playing the rated demo season through the same commit service as a live move."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def _manage(*args: str, env: dict[str, str]) -> str:
    """``manage.py *args`` in the quick start's environment; its output, once it succeeded."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{args}: {done.stderr[-3000:]}"
    return done.stdout


def test_make_runs_set_up_commands_finish_on_sqlite(tmp_path: Path) -> None:
    database = tmp_path / "quick-start.sqlite3"
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"}
    }
    env.update(DEBUG="1", SQLITE_PATH=str(database))
    _manage("migrate", "--noinput", env=env)
    _manage("demo", "--if-empty", env=env)
    assert "Rated season played" in _manage("demo_ratings", "--if-empty", env=env)
    with sqlite3.connect(database) as db:
        [(turns,)] = db.execute("SELECT count(*) FROM matches_turn")
        [(receipts,)] = db.execute("SELECT count(*) FROM matches_commitreceipt WHERE accepted")
    assert turns > 0
    assert receipts == turns  # every move committed through match_commit, each row written

    # A signed-in member's pages: the session is read back from SQLite by its prepared query.
    pages = _manage("shell", "--no-imports", "-c", SIGNED_IN_PAGES, env=env)
    assert pages.split() == ["200", "200", "200"], pages


SIGNED_IN_PAGES = """
from django.test import Client
from accounts.models import Member
from matches.models import Match
client = Client()
client.force_login(Member.objects.get(username="alice"))
match = Match.objects.filter(seats__member__username="alice").first()
for path in ("/", "/players/alice/", f"/matches/{match.pk}/"):
    print(client.get(path).status_code)
"""
