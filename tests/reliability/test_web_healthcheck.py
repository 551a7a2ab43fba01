"""The web container's healthcheck (`python -m wordduel.health web`) against a real Daphne
with production settings: it asks as the proxy does, so it passes where a plain request
would be redirected to HTTPS, and it fails, saying why, when Redis or the process is gone."""

from __future__ import annotations

import http.client
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.harness import HOST

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = "duel.example.org"


def healthcheck(url: str, secret_key: str) -> subprocess.CompletedProcess[str]:
    """The check as the web container runs it: production settings, the container's hosts."""
    env = {
        "PATH": os.environ["PATH"],
        "DEBUG": "0",
        "SECRET_KEY": secret_key,
        "ALLOWED_HOSTS": DOMAIN,
    }
    return subprocess.run(
        [sys.executable, "-m", "wordduel.health", "web", url],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def plain_get(port: int, path: str) -> int:
    """A request as anything but the proxy sends it: no X-Forwarded-Proto."""
    connection = http.client.HTTPConnection(HOST, port, timeout=20)
    try:
        connection.request("GET", path, headers={"Host": DOMAIN})
        return connection.getresponse().status
    finally:
        connection.close()


def test_the_web_healthcheck_passes_as_the_proxy_asks_and_fails_saying_why(
    start_daphne, redis_server
) -> None:
    secret_key = secrets.token_urlsafe(50)
    daphne = start_daphne(
        DEBUG="0", SECRET_KEY=secret_key, ALLOWED_HOSTS=DOMAIN, TRUSTED_PROXY_COUNT="1"
    )
    url = f"{daphne.http_url}/healthz/web"
    # Deployed settings redirect plain HTTP: a check without the proxy's header never passes.
    assert plain_get(daphne.port, "/healthz/web") == 301

    well = healthcheck(url, secret_key)
    assert well.returncode == 0, well.stdout + well.stderr
    assert well.stdout == f"web: ok ({HOST}:{daphne.port} answered 200)\n"

    redis_server.kill()  # the channel layer is gone: this process cannot serve sockets
    failing = healthcheck(url, secret_key)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert (
        failing.stdout
        == f"web: FAILING ({HOST}:{daphne.port} answered 503 (failing: channel_layer))\n"
    )

    daphne.stop()
    gone = healthcheck(url, secret_key)
    assert gone.returncode == 1
    assert gone.stdout == f"web: FAILING (ConnectionRefusedError from {HOST}:{daphne.port})\n"
