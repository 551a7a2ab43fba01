"""``scripts/with-services.sh`` starts throwaway PostgreSQL and Redis when nothing answers,
runs the command against them, and stops them afterwards."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # starts its own PostgreSQL and Redis

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import os, psycopg, redis
with psycopg.connect(os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres") as db:
    print("pg", db.execute("select 1").fetchone()[0])
print("redis", redis.Redis.from_url(os.environ["REDIS_URL"]).ping())
print("urls", os.environ["DATABASE_URL"], os.environ["REDIS_URL"])
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def test_throwaway_services_start_when_nothing_answers_and_stop_after() -> None:
    # The script installs a missing server for `make test`; a test installs nothing.
    assert list(Path("/usr/lib/postgresql").glob("*/bin/initdb")), (
        "PostgreSQL's server is missing: run `make test-packages` (make test does)"
    )
    assert shutil.which("redis-server"), "redis-server is missing: run `make test-packages`"
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://root@127.0.0.1:{_free_port()}/wordduel",
        "REDIS_URL": f"redis://127.0.0.1:{_free_port()}/0",
    }
    result = subprocess.run(
        ["scripts/with-services.sh", sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "pg 1" in lines
    assert "redis True" in lines
    assert sum("started a throwaway one" in line for line in lines) == 2
    urls = next(line for line in lines if line.startswith("urls ")).split()[1:]
    ports = [int(url.rsplit(":", 1)[1].split("/")[0]) for url in urls]
    assert all(not _answers(port) for port in ports), "the throwaway services were stopped"
