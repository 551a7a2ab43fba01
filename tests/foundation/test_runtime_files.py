"""What running the project writes into the checkout is ignored by git, and none of it is
tracked (celery beat's schedule files once were)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

RUNTIME_FILES = [
    "celerybeat-schedule",
    "celerybeat-schedule.dat",
    "celerybeat-schedule.dir",
    "celerybeat-schedule.bak",
    "celerybeat.pid",
    "db.sqlite3",
    "db.sqlite3-journal",
    "db.sqlite3-wal",
    "quick-start.sqlite3",
    ".env",
    ".envrc",
    ".venv/bin/python",
    ".mypy_cache/3.11/cache.db",
    ".pytest_cache/README.md",
    ".ruff_cache/CACHEDIR.TAG",
    ".hypothesis/examples/x",
    "wordduel/__pycache__/settings.cpython-311.pyc",
    "staticfiles/staticfiles.json",
    ".services/postgres/PG_VERSION",
    ".stack/secret_key",
    "backups/wordduel-20310101T000000Z.dump",
    ".ci-repeat/run-1.log",
    "reliability-long.jsonl",
]


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=False, timeout=60
    )


@pytest.mark.parametrize("path", RUNTIME_FILES)
def test_runtime_files_are_ignored(path: str) -> None:
    assert _git("check-ignore", "--no-index", "--quiet", path).returncode == 0, path


@pytest.mark.parametrize("path", [".envrc.example", "manage.py", "Makefile", "uv.lock"])
def test_the_projects_own_files_are_not(path: str) -> None:
    assert (ROOT / path).exists()
    assert _git("check-ignore", "--no-index", "--quiet", path).returncode == 1, path


def test_nothing_tracked_is_a_runtime_file() -> None:
    tracked_but_ignored = _git("ls-files", "--cached", "--ignored", "--exclude-standard")
    assert tracked_but_ignored.returncode == 0, tracked_but_ignored.stderr
    assert tracked_but_ignored.stdout.split() == []
