"""`make stack`, tested: the production shape started, played through, broken, restored.

``scripts/stack.py`` starts Caddy (TLS from a local certificate), two Daphne processes,
three Celery workers (the default queue's, web pushes', imports') and beat, with production
settings (DEBUG off, a generated secret, hashed static files), on this run's test database
and on the machine's Redis under prefixes of this test's own. Through the proxy only, over
HTTPS and WSS, the test:

* reads ``/healthz`` reporting every part well (web, database, Redis, a worker answering a
  ping, beat's recent tick, no web push late), naming the host and process that answered
  only to the operator's token;
* finds hashed static files cached for a year (with nosniff and HSTS, as the web processes'
  answers have them), a body over the limit refused by the proxy,
  a forged X-Forwarded-For ignored (the request's log line names the real peer) and the
  request id of a response in the web process's log;
* signs two members in and plays a move over a secure websocket;
* SIGKILLs one Daphne and sees play go on through the other;
* backs the database up with ``make backup`` and restores it into a new database with
  ``make restore``, every move there;

then stops the stack (SIGTERM to its supervisor, which stops each process by its PID) and
checks that none of its processes is left. Another test sends the requests that carry
secrets in their addresses (viewing and share keys, an invitation, a calendar feed's secret,
confirmation, unsubscribe and reset tokens) and finds none of them in the proxy's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
import requests
from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from websockets.asyncio.client import connect

from accounts import services as account_services
from matches.models import Match, Turn
from notifications import feeds
from notifications.services import channel_kinds, unsubscribe_token
from tests.matches.test_ws_helpers import legal_play, move_frame, seeded_match
from tests.processes import spawn
from tests.reliability.harness import (
    free_port,
    subprocess_database_url,
    wait_until,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "pw-correct-horse"  # tests/conftest.py's make_member
READY_SECONDS = 150
#: The operator's token for /healthz (HEALTH_TOKEN) in the stack's web processes.
HEALTH_TOKEN = secrets.token_urlsafe(24)


@dataclass
class RunningStack:
    process: subprocess.Popen[bytes]
    directory: Path
    output: Path

    @property
    def state(self) -> dict[str, Any]:
        return json.loads((self.directory / "stack.json").read_text())

    @property
    def url(self) -> str:
        return self.state["url"]

    @property
    def certificate(self) -> str:
        return self.state["certificate"]

    def log(self, name: str) -> str:
        path = self.directory / "logs" / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def json_lines(self, name: str) -> list[dict[str, Any]]:
        lines = []
        for line in self.log(name).splitlines():
            with contextlib.suppress(ValueError):
                lines.append(json.loads(line))
        return lines

    def web_lines(self) -> list[dict[str, Any]]:
        return [line for name in ("web-1", "web-2") for line in self.json_lines(name)]

    def session(self) -> requests.Session:
        session = requests.Session()
        session.verify = self.certificate
        session.trust_env = False  # no proxy from the environment between us and loopback
        return session

    def ws_url(self, match_id: int) -> str:
        return self.url.replace("https://", "wss://") + f"/ws/matches/{match_id}/"

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.certificate)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has ended; only its parent has not collected it yet.
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    return False


@pytest.fixture
def stack(tmp_path: Path, transactional_db, layer_prefix: str) -> Iterator[RunningStack]:
    # scripts/stack.py installs a missing Caddy for `make stack`; a test installs nothing.
    assert shutil.which("caddy"), (
        "Caddy is not installed: run `make test-packages` (make test does)"
    )
    directory = tmp_path / "stack"
    output = tmp_path / "stack.out"
    env = {k: v for k, v in os.environ.items() if k != "DEBUG"}
    env.update(
        STACK_DIR=str(directory),
        STACK_HTTPS_PORT=str(free_port()),
        STACK_WEB_PORTS=f"{free_port()},{free_port()}",
        STACK_DATABASE_URL=subprocess_database_url(),
        STACK_PREFIX=layer_prefix,
        REDIS_URL=settings.REDIS_URL,
        HEALTH_TOKEN=HEALTH_TOKEN,
    )
    with output.open("wb") as out:
        process = spawn(
            [sys.executable, "scripts/stack.py"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    running = RunningStack(process, directory, output)

    def ready() -> bool:
        text = output.read_text(errors="replace")
        if process.poll() is not None:
            raise AssertionError(f"the stack exited ({process.returncode}):\n{text}")
        return "stack: ready at" in text

    try:
        wait_until(ready, timeout=READY_SECONDS, what="the stack to be ready", every=0.25)
        yield running
    finally:
        pids = running.state["pids"] if (directory / "stack.json").exists() else {}
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)  # the supervisor stops each of its own
        process.wait(timeout=60)
        left = {name: pid for name, pid in pids.items() if alive(pid)}
        for pid in left.values():  # not expected: leave nothing behind all the same
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        client = redis.Redis.from_url(settings.REDIS_URL)
        for key in client.scan_iter(f"{layer_prefix}*", count=1000):
            client.delete(key)
        client.close()
        assert "stack: stopped" in output.read_text(errors="replace")
        assert not left, f"still running after the stack stopped: {left}"


def sign_in(stack: RunningStack, username: str) -> str:
    """Sign in through the proxy as a browser does (CSRF cookie, form, Referer); the
    session cookie's value."""
    session = stack.session()
    page = session.get(f"{stack.url}/accounts/sign-in/", timeout=20)
    assert page.status_code == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, "no CSRF token on the sign-in page"
    answer = session.post(
        f"{stack.url}/accounts/sign-in/",
        data={"csrfmiddlewaretoken": token.group(1), "username": username, "password": PASSWORD},
        headers={"Referer": f"{stack.url}/accounts/sign-in/"},
        allow_redirects=False,
        timeout=20,
    )
    assert answer.status_code == 302, answer.text[:500]
    return session.cookies[settings.SESSION_COOKIE_NAME]


async def play_one_move(stack: RunningStack, match_id: int, cookie: str, client_id: str) -> dict:
    """Open a secure websocket through the proxy as the player to move and play a legal
    move; the server's answer. The proxy may need a try or two while it finds a dead
    web process out (its retries do that within one request)."""
    async with connect(
        stack.ws_url(match_id),
        ssl=stack.ssl_context(),
        origin=stack.url,  # type: ignore[arg-type]
        additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={cookie}"},
        open_timeout=20,
        proxy=None,
    ) as socket_:
        snapshot = json.loads(await asyncio.wait_for(socket_.recv(), 20))
        assert snapshot["type"] == "snapshot", snapshot
        assert snapshot["snapshot"]["your_seat"] == snapshot["snapshot"]["to_move"], snapshot
        turn = snapshot["snapshot"]["turn_number"]
        play = await asyncio.to_thread(legal_play, match_id)
        await socket_.send(json.dumps(move_frame(play, turn=turn, client_id=client_id)))
        while True:
            frame = json.loads(await asyncio.wait_for(socket_.recv(), 20))
            if frame.get("id") == client_id:
                return frame


def declared_too_large(stack: RunningStack, length: int) -> int:
    """The proxy's answer to a POST that declares a body of ``length`` bytes, before any
    of it is sent (as a client waiting for 100-continue would)."""
    port = int(stack.url.rsplit(":", 1)[1])
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=stack.ssl_context(), timeout=20)
    try:
        conn.putrequest("POST", "/api/matches/")
        conn.putheader("Content-Length", str(length))
        conn.putheader("Content-Type", "application/json")
        conn.endheaders()
        if length < 3 * 1024 * 1024:
            conn.send(b" " * length)
        return conn.getresponse().status
    finally:
        conn.close()


def healthz(stack: RunningStack, *, operator: bool = True) -> tuple[int, dict[str, Any]]:
    """/healthz through the proxy, asked with the operator's token (or as the public)."""
    headers = {"Authorization": f"Bearer {HEALTH_TOKEN}"} if operator else {}
    response = stack.session().get(f"{stack.url}/healthz", headers=headers, timeout=20)
    return response.status_code, response.json()


def test_the_production_stack_serves_plays_survives_a_daphne_and_restores(
    stack: RunningStack, make_fixture, alice, bob, tmp_path: Path
) -> None:
    started = time.monotonic()
    state = stack.state
    pids = state["pids"]
    workers = {"worker", "push-worker", "import-worker"}
    assert set(pids) == {"proxy", "web-1", "web-2", "beat", *workers}

    # Every part reported well, through the proxy.
    status, body = healthz(stack)
    assert status == 200, body
    assert body["status"] == "ok"
    for part in ("web", "database", "channel_layer", "worker", "beat", "push"):
        assert body[part]["ok"] is True, (part, body)
    assert body["database"]["detail"] == "postgresql"
    assert body["worker"]["node"] in {
        f"{state['prefix']}-{name}@{socket.gethostname()}" for name in workers
    }
    assert body["beat"]["age_seconds"] < 10
    assert int(body["web"]["process"].rsplit(":", 1)[1]) in {pids["web-1"], pids["web-2"]}
    # The public is told how each part is, not which host or process answered.
    status, public = healthz(stack, operator=False)
    assert status == 200, public
    assert {part["ok"] for name, part in public.items() if name != "status"} == {True}
    told = json.dumps(public)
    assert socket.gethostname() not in told
    assert not any(str(pid) in told for pid in pids.values()), told

    # Static files under hashed names, cached for a year by the proxy.
    https = stack.session()
    home = https.get(f"{stack.url}/", timeout=20)
    assert home.status_code == 200
    hashed = re.findall(r"/static/[\w/.-]+\.[0-9a-f]{12}\.(?:css|js)", home.text)
    assert hashed, "the page names no hashed static file"
    asset = https.get(f"{stack.url}{hashed[0]}", timeout=20)
    assert asset.status_code == 200
    assert asset.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert asset.headers["Server"] == "Caddy"  # from disk, not from a web process
    # The same protection as every page: no sniffing a file's type, and HTTPS only.
    assert asset.headers["X-Content-Type-Options"] == "nosniff"
    assert asset.headers["Strict-Transport-Security"] == home.headers["Strict-Transport-Security"]
    assert home.headers["Strict-Transport-Security"].startswith("max-age=31536000")

    # A body over the proxy's limit never reaches a web process.
    assert declared_too_large(stack, 4 * 1024 * 1024) == 413
    assert declared_too_large(stack, 2 * 1024 * 1024) != 413

    # A forged X-Forwarded-For is replaced by the proxy: the web process sees the peer. The
    # request id the response carries is the one in the web process's log line.
    forged = https.get(
        f"{stack.url}/",
        headers={"X-Forwarded-For": "203.0.113.9", "X-Request-ID": "chosen-by-the-client"},
        timeout=20,
    )
    request_id = forged.headers["X-Request-ID"]
    assert request_id != "chosen-by-the-client"
    logged = wait_until(
        lambda: [
            line
            for line in stack.web_lines()
            if line.get("request_id") == request_id and line["logger"] == "wordduel.request"
        ],
        timeout=10,
        what="the request's log line",
    )
    assert logged[0]["client"] == "127.0.0.1", logged
    assert (logged[0]["status"], logged[0]["level"]) == (200, "INFO")

    # Two members sign in over HTTPS and play over WSS.
    cookies = {0: sign_in(stack, alice.username), 1: sign_in(stack, bob.username)}
    match = seeded_match(make_fixture, alice, bob, seed=5)
    first = asyncio.run(play_one_move(stack, match.id, cookies[match.to_move], "stack-1"))
    assert (first["type"], first["accepted"]) == ("ack", True), first
    sockets = wait_until(
        lambda: [
            line for line in stack.web_lines()
            if line["logger"] == "wordduel.socket" and f"/ws/matches/{match.id}/" in line["path"]
        ],
        timeout=10,
        what="the socket's log lines",
    )  # fmt: skip
    assert all(re.fullmatch(r"[0-9a-f-]{36}", line["request_id"]) for line in sockets), sockets

    # One Daphne dies without a word; play goes on through the other.
    os.killpg(pids["web-1"], signal.SIGKILL)
    wait_until(lambda: not alive(pids["web-1"]), timeout=10, what="web-1 to die")
    match.refresh_from_db()
    for number in range(2, 5):
        answer = asyncio.run(
            play_one_move(stack, match.id, cookies[match.to_move], f"stack-{number}")
        )
        assert (answer["type"], answer["accepted"]) == ("ack", True), answer
        match.refresh_from_db()
    for _ in range(4):
        status, body = healthz(stack)
        assert status == 200, body
        assert body["web"]["process"].endswith(f":{pids['web-2']}")
    assert Turn.objects.filter(match=match).count() == 4

    # make backup while it runs; make restore into a database that did not exist.
    backup = tmp_path / "backup.dump"
    server, name = subprocess_database_url().rsplit("/", 1)
    restored_url = f"{server}/{name}_restored"
    made = subprocess.run(
        ["make", "-s", "backup", f"BACKUP_DB={subprocess_database_url()}", f"BACKUP_FILE={backup}"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    try:
        restored = subprocess.run(
            ["make", "-s", "restore", f"BACKUP_DB={restored_url}", f"FILE={backup}"],
            cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert restored.returncode == 0, restored.stdout + restored.stderr
        with psycopg.connect(restored_url) as conn:
            turns = conn.execute(
                "SELECT count(*) FROM matches_turn WHERE match_id = %s", [match.id]
            ).fetchone()
        assert turns == (4,)
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}_restored"')
    sys.stderr.write(f"\nstack test body: {time.monotonic() - started:.1f} s\n")


async def watch_with_key(stack: RunningStack, match_id: int, key: str) -> dict:
    """Open a secure websocket through the proxy with a viewing key, as a key holder's page
    does; the first frame. The proxy logs the upgrade when the socket closes."""
    async with connect(
        stack.ws_url(match_id) + f"?key={key}",
        ssl=stack.ssl_context(),
        origin=stack.url,  # type: ignore[arg-type]
        open_timeout=20,
        proxy=None,
    ) as socket_:
        return json.loads(await asyncio.wait_for(socket_.recv(), 20))


def test_the_proxys_log_holds_no_key_or_secret(
    stack: RunningStack, make_fixture, organiser, alice, bob
) -> None:
    """Every kind of secret that travels in an address, sent through the proxy as a browser
    sends it (in the address, in the Referer of the page's own requests, inside a sign-in's
    ?next=, in a redirect): the proxy's log has a line for each request, and none of the
    secrets. (An imported game's share key is any ?key= to the proxy: the value sent here
    need not open a game for the proxy to log the address; nor need the signed tokens be
    signed with the stack's own secret.)"""
    hidden = make_fixture(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    feed = feeds.feed_of(alice)
    invitation = account_services.invitation_create(
        organiser=organiser, expires_at=timezone.now() + timedelta(days=1)
    )
    confirm = account_services.email_verification_token(alice, "alice@example.org")
    unsubscribe = unsubscribe_token(alice.pk, channel_kinds()[0][0])
    reset = default_token_generator.make_token(alice)
    share_key = secrets.token_urlsafe(32)
    secret_values = {
        "viewing key": hidden.viewing_key,
        "share key": share_key,
        "invitation": invitation.token,
        "calendar secret": feed.secret,
        "confirmation": confirm,
        "unsubscribe": unsubscribe,
        "reset": reset,
        "operator's token": HEALTH_TOKEN,
    }
    page = f"{stack.url}/matches/{hidden.id}/?key={hidden.viewing_key}"
    uid = urlsafe_base64_encode(force_bytes(alice.pk))
    https = stack.session()
    answers = {
        "match page": https.get(page, timeout=20),
        "a page's own request": https.get(
            f"{stack.url}/api/matches/{hidden.id}/?key={hidden.viewing_key}",
            headers={"Referer": page},
            timeout=20,
        ),
        "static file": https.get(
            f"{stack.url}/static/board.js", headers={"Referer": page}, timeout=20
        ),
        "imported game": https.get(f"{stack.url}/imports/1/?key={share_key}", timeout=20),
        "invitation": https.get(
            f"{stack.url}/accounts/sign-up/?invite={invitation.token}", timeout=20
        ),
        "calendar": https.get(
            f"{stack.url}/notifications/calendar/{alice.pk}/{feed.secret}.ics", timeout=20
        ),
        "tournament calendar": https.get(
            f"{stack.url}/notifications/calendar/{alice.pk}/{feed.secret}/tournaments/1.ics",
            timeout=20,
        ),
        "confirmation": https.get(f"{stack.url}/accounts/email/verify/{confirm}/", timeout=20),
        "unsubscribe": https.get(
            f"{stack.url}/notifications/unsubscribe/{unsubscribe}/", timeout=20
        ),
        "reset": https.get(
            f"{stack.url}/accounts/password/reset/{uid}/{reset}/",
            allow_redirects=False,
            timeout=20,
        ),
        "sign-in asked for a keyed page": https.get(
            f"{stack.url}/accounts/profile/?key={hidden.viewing_key}",
            allow_redirects=False,
            timeout=20,
        ),
        "health, for the operator": https.get(
            f"{stack.url}/healthz", headers={"Authorization": f"Bearer {HEALTH_TOKEN}"}, timeout=20
        ),
    }
    # The keys and the feed's secret open what they open (the signed tokens are signed with
    # this test's secret, not the stack's: the proxy logs their addresses all the same).
    assert answers["match page"].status_code == 200
    assert answers["calendar"].status_code == 200
    redirect = answers["sign-in asked for a keyed page"]
    assert redirect.status_code == 302
    assert hidden.viewing_key in redirect.headers["Location"]  # the redirect carries it
    frame = asyncio.run(watch_with_key(stack, hidden.id, hidden.viewing_key))
    assert frame["type"] == "snapshot", frame

    # The stack's own health checks through the proxy are logged too, so the lines are
    # awaited by what they are: one for each request sent here (the socket's comes last,
    # when it closes), not by how many there are.
    sent = len(answers) + 1  # and the socket
    socket_uri = f"/ws/matches/{hidden.id}/?key=REDACTED"

    def every_line() -> list[dict] | None:
        lines = [
            line
            for line in stack.json_lines("proxy")
            if line.get("logger", "").startswith("http.log.access")
        ]
        uris = [line["request"]["uri"] for line in lines]
        return lines if socket_uri in uris and len(lines) >= sent else None

    access = wait_until(every_line, timeout=30, what="the proxy's line for every request")
    logged = stack.log("proxy")
    leaked = {name for name, value in secret_values.items() if value in logged}
    assert not leaked, f"the proxy's log holds: {sorted(leaked)}"
    uris = [line["request"]["uri"] for line in access]
    assert f"/matches/{hidden.id}/?key=REDACTED" in uris
    assert f"/notifications/calendar/{alice.pk}/REDACTED.ics" in uris
    assert socket_uri in uris
    referers = [
        referer for line in access for referer in line["request"]["headers"].get("Referer", [])
    ]
    assert f"{stack.url}/matches/{hidden.id}/?key=REDACTED" in referers
    locations = [
        location for line in access for location in line.get("resp_headers", {}).get("Location", [])
    ]
    assert any("%3Fkey%3DREDACTED" in location for location in locations), locations

    # Behind the proxy, the web processes' own lines and Daphne's access lines hold none of
    # them either: they redact by the same list (common/secret_urls.py).
    in_web_log = [
        f"/matches/{hidden.id}/?key=[redacted]",
        "/imports/1/?key=[redacted]",
        "/accounts/sign-up/?invite=[redacted]",
        f"/notifications/calendar/{alice.pk}/[redacted].ics",
        f"/notifications/calendar/{alice.pk}/[redacted]/tournaments/1.ics",
        "/accounts/email/verify/[redacted]/",
        "/notifications/unsubscribe/[redacted]/",
        f"/accounts/password/reset/{uid}/[redacted]/",
        f"/ws/matches/{hidden.id}/?key=[redacted]",
    ]
    web_logged = wait_until(
        lambda: (
            text
            if all(part in (text := stack.log("web-1") + stack.log("web-2")) for part in in_web_log)
            else None
        ),
        timeout=15,
        what="the web processes' lines for every secret address",
    )
    leaked = {name for name, value in secret_values.items() if value in web_logged}
    assert not leaked, f"the web processes' log holds: {sorted(leaked)}"
