"""``DATABASE_URL``: PostgreSQL or a SQLite file; anything else is refused as the project
starts, in one line (it was taken for PostgreSQL and failed after the pool's 10 s timeout)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from wordduel.configuration import SettingRefused, database_from_url

ROOT = Path(__file__).resolve().parents[2]


def test_postgres_urls_use_the_projects_backend() -> None:
    for scheme in ("postgres", "postgresql", "pgsql"):
        database = database_from_url(f"{scheme}://root@127.0.0.1:5432/wordduel")
        assert database["ENGINE"] == "wordduel.postgres"
        assert (database["NAME"], database["HOST"], database["PORT"]) == (
            "wordduel",
            "127.0.0.1",
            5432,
        )


def test_sqlite_urls_name_a_file() -> None:
    assert database_from_url("sqlite:////srv/duel/db.sqlite3") == {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": "/srv/duel/db.sqlite3",
    }
    assert database_from_url("sqlite:///duel.sqlite3")["NAME"] == "duel.sqlite3"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("mysql://root@db/duel", "DATABASE_URL is a mysql:// database, which is not supported"),
        ("redis://127.0.0.1:6379/0", "DATABASE_URL is a redis:// database"),
        ("wordduel", "DATABASE_URL is not a URL"),
        ("sqlite://", "in-memory SQLite database"),
        ("sqlite:///:memory:", "in-memory SQLite database"),
        ("postgres://127.0.0.1:5432", "DATABASE_URL names no database"),
        ("postgres://root@127.0.0.1:port/duel", "DATABASE_URL cannot be read"),
    ],
)
def test_other_urls_are_refused_saying_why(url: str, reason: str) -> None:
    with pytest.raises(SettingRefused) as refused:
        database_from_url(url)
    message = str(refused.value)
    assert reason in message
    assert "\n" not in message
    assert "sqlite:///PATH" in message  # what to write instead


def _run(argv: list[str], database_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEBUG": "1", "DATABASE_URL": database_url}
    env.pop("REDIS_URL", None)
    return subprocess.run(
        [sys.executable, *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["manage.py", "migrate"], "manage.py: "),
        (["-m", "wordduel.serve", "-p", "0", "wordduel.asgi:application"], "wordduel.serve: "),
    ],
)
def test_the_commands_that_start_the_project_refuse_in_one_line(argv: list[str], said) -> None:
    done = _run(argv, "mysql://root@127.0.0.1/duel")
    assert done.returncode == 1
    reason = (
        "DATABASE_URL is a mysql:// database, which is not supported: use "
        "postgres://USER@HOST:PORT/NAME, or sqlite:///PATH for a SQLite file."
    )
    assert done.stderr.splitlines() == [said + reason]


@pytest.mark.slow
def test_a_sqlite_url_is_the_quick_starts_sqlite(tmp_path: Path) -> None:
    database = tmp_path / "from-url.sqlite3"
    migrated = _run(["manage.py", "migrate", "--noinput"], f"sqlite:///{database}")
    assert migrated.returncode == 0, migrated.stderr[-3000:]
    asked = _run(
        [
            "manage.py",
            "shell",
            "--no-imports",
            "-c",
            "from django.db import connection; print(connection.vendor)",
        ],
        f"sqlite:///{database}",
    )
    assert asked.stdout.split() == ["sqlite"], asked.stderr[-3000:]
    with sqlite3.connect(database) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert {"matches_match", "accounts_member", "django_migrations"} <= tables
