"""The season's world: the real server processes on one clock, and the people who use them.

Daphne (``wordduel.serve --proxy-headers``), a Celery worker and Celery beat run as
subprocesses on this run's test database, Redis prefixes and Celery queue, each under
``tests.season.clocked`` so the season can be lived in days; an SMTP server (aiosmtpd) and a
stand-in push service run here. A :class:`Member` is one person's browser without the
browser: their own cookies, their own address (``X-Forwarded-For``, read by Daphne behind
its proxy as deployed), forms read from the page and posted as a browser posts them.
"""

from __future__ import annotations

import email
import email.policy
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

import requests
from aiosmtpd.controller import Controller
from django.core.management import call_command
from django.db import connection

from tests.processes import spawn
from tests.reliability.harness import RedisServer
from tests.season.clocked import travel

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
#: The bound on anything that must happen (a page, a sweep, a mail): a failure, never a timing.
PATIENCE = 90.0

T = TypeVar("T")

#: Beat's sweeps (wordduel/settings.py): what the clock decides, and the notices' sweep.
SWEEPS = (
    "matches.open_due_matches",
    "matches.default_no_shows",
    "matches.forfeit_stalled_matches",
    "notifications.sweep",
)


def wait_until(predicate: Callable[[], T], *, what: str, timeout: float = PATIENCE) -> T:
    """Poll ``predicate`` until it gives something truthy; fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


# ---------------------------------------------------------------- the clock


class SeasonClock:
    """The season's time: this process's and every server's, moved together, forward only.

    The offset from the real time is written to a file every server process follows
    (tests/season/clocked.py); :meth:`advance` returns once each has said it moved.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0.0
        self.pids: list[int] = []
        self._traveller: Any = None
        path.write_text("0")

    def now(self) -> datetime:
        from django.utils import timezone

        return timezone.now()

    def to(self, moment: datetime) -> None:
        """Move to ``moment`` (which must be ahead)."""
        ahead = moment.timestamp() - time.time()
        assert ahead > 0, f"the season's clock only moves forward (asked for {moment})"
        self.set_offset(self.offset + ahead)

    def advance(self, delta: timedelta) -> None:
        self.set_offset(self.offset + delta.total_seconds())

    def set_offset(self, offset: float) -> None:
        assert offset >= self.offset
        self.offset = offset
        if self._traveller is not None:
            self._traveller.stop()
        self._traveller = travel(offset)
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text(repr(offset))
        partial.replace(self.path)
        wait_until(self._all_moved, what=f"every server process to move to offset {offset}")

    def _all_moved(self) -> bool:
        for pid in self.pids:
            ack = self.path.with_name(f"{self.path.name}.{pid}")
            try:
                if float(ack.read_text()) != self.offset:
                    return False
            except (FileNotFoundError, ValueError):
                return False
        return True

    def stop(self) -> None:
        if self._traveller is not None:
            self._traveller.stop()
            self._traveller = None


# ---------------------------------------------------------------- mail and push


class Inbox:
    """aiosmtpd's handler: every message accepted, parsed, in order."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append(parsed)  # type: ignore[arg-type]
        return "250 Message accepted for delivery"

    def snapshot(self) -> list[EmailMessage]:
        with self.lock:
            return list(self.messages)


@dataclass
class Push:
    path: str
    body: bytes


@dataclass
class PushService:
    url: str
    requests: list[Push] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def snapshot(self) -> list[Push]:
        with self.lock:
            return list(self.requests)


def _push_server(service: PushService, port: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with service.lock:
                service.requests.append(Push(self.path, body))
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    return ThreadingHTTPServer((HOST, port), Handler)


def vapid_keys() -> dict[str, str]:
    out = StringIO()
    call_command("vapid_keys", stdout=out)
    return dict(
        line.split("=", 1) for line in out.getvalue().splitlines() if not line.startswith("#")
    )


# ---------------------------------------------------------------- forms, as a browser reads them


@dataclass
class Form:
    action: str
    method: str
    fields: list[tuple[str, str]] = field(default_factory=list)
    buttons: list[tuple[str, str, str]] = field(default_factory=list)  # (name, value, text)
    text: str = ""


class _FormParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._select: str | None = None
        self._select_first: str | None = None
        self._select_chosen = False
        self._option: dict[str, str] | None = None
        self._textarea: str | None = None
        self._button: list[Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._form = Form(action=a.get("action", ""), method=a.get("method", "get").lower())
            self.forms.append(self._form)
            return
        form = self._form
        if form is None:
            return
        if tag == "input":
            kind = a.get("type", "text").lower()
            name = a.get("name")
            if kind in {"submit", "image"}:
                form.buttons.append((name or "", a.get("value", ""), a.get("value", "")))
            elif name and kind in {"checkbox", "radio"}:
                if "checked" in a:
                    form.fields.append((name, a.get("value", "on")))
            elif name and kind not in {"button", "reset", "file"}:
                form.fields.append((name, a.get("value", "")))
        elif tag == "button":
            if a.get("type", "submit").lower() == "submit":
                self._button = [a.get("name", ""), a.get("value", ""), ""]
        elif tag == "select":
            self._select = a.get("name")
            self._select_first = None
            self._select_chosen = False
        elif tag == "option" and self._select:
            self._option = a
            value = a.get("value")
            if value is not None and self._select_first is None:
                self._select_first = value
            if "selected" in a and value is not None:
                form.fields.append((self._select, value))
                self._select_chosen = True
        elif tag == "textarea":
            self._textarea = a.get("name")
            form.fields.append((self._textarea or "", ""))

    def handle_data(self, data: str) -> None:
        if self._form is not None:
            self._form.text += data
        if self._button is not None:
            self._button[2] += data
        if self._textarea and self._form is not None:
            name, value = self._form.fields[-1]
            self._form.fields[-1] = (name, value + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "button" and self._button is not None and self._form is not None:
            name, value, text = self._button
            self._form.buttons.append((name, value, " ".join(text.split())))
            self._button = None
        elif tag == "select" and self._form is not None and self._select:
            if not self._select_chosen and self._select_first is not None:
                self._form.fields.append((self._select, self._select_first))
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def forms_of(html: str) -> list[Form]:
    parser = _FormParser()
    parser.feed(html)
    return parser.forms


class Member:
    """One person at their own browser: cookies, an address, and the pages they submit."""

    def __init__(self, site: str, name: str, address: str) -> None:
        self.site = site
        self.name = name
        self.address = address
        self.http = requests.Session()
        self.http.trust_env = False
        self.http.headers["X-Forwarded-For"] = address
        self.http.headers["User-Agent"] = f"season/{name}"

    def url(self, path: str) -> str:
        return urljoin(self.site + "/", path)

    def get(self, path: str, *, expect: int = 200) -> requests.Response:
        response = self.http.get(self.url(path), timeout=PATIENCE)
        assert response.status_code == expect, (
            f"{self.name}: GET {path} answered {response.status_code}, not {expect}:\n"
            f"{response.text[:3000]}"
        )
        return response

    def submit(
        self,
        path: str,
        button: str,
        fields: dict[str, str | list[str]] | None = None,
        *,
        expect: int = 200,
        action: str | None = None,
    ) -> requests.Response:
        """Open ``path``, take the form whose submit button reads ``button`` (and whose action
        contains ``action``, if given), fill ``fields`` over what the page put there, and
        submit it as a browser would; follows redirects and checks the final status."""
        page = self.get(path)
        candidates = [
            (form, b)
            for form in forms_of(page.text)
            for b in form.buttons
            if b[2] == button and (action is None or action in form.action)
        ]
        assert len(candidates) == 1, (
            f"{self.name}: {len(candidates)} forms on {path} with a button {button!r} "
            f"(and action {action!r}); buttons: "
            f"{[(f.action, b[2]) for f in forms_of(page.text) for b in f.buttons]}"
        )
        form, (name, value, _) = candidates[0]
        data: list[tuple[str, str]] = [
            (k, v) for k, v in form.fields if not fields or k not in fields
        ]
        for key, given in (fields or {}).items():
            for one in [given] if isinstance(given, str) else given:
                data.append((key, one))
        if name:
            data.append((name, value))
        target = urljoin(page.url, form.action or page.url)
        if form.method == "post":
            response = self.http.post(
                target, data=data, timeout=PATIENCE, headers={"Referer": page.url}
            )
        else:
            response = self.http.get(target, params=data, timeout=PATIENCE)
        assert response.status_code == expect, (
            f"{self.name}: {button!r} on {path} answered {response.status_code}, not {expect}:"
            f"\n{response.text[:4000]}"
        )
        return response

    def post_json(self, path: str, body: Any, *, expect: int = 200) -> requests.Response:
        self.get("/")  # a CSRF cookie
        response = self.http.post(
            self.url(path),
            json=body,
            timeout=PATIENCE,
            headers={"X-CSRFToken": self.http.cookies.get("csrftoken", "")},
        )
        assert response.status_code == expect, response.text[:3000]
        return response

    @property
    def session_cookie(self) -> str:
        return self.http.cookies.get("sessionid", "")

    def sign_in(self, username: str, password: str) -> None:
        self.submit(
            "/accounts/sign-in/",
            "Sign in",
            {"username": username, "password": password},
        )
        assert self.session_cookie, f"{username} was not signed in"


def page_text(html: str) -> str:
    """A page's words, tags dropped and spaces squeezed (what a reader sees)."""
    text = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", html, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    import html as html_module

    return " ".join(html_module.unescape(text).split())


# ---------------------------------------------------------------- the servers


@dataclass
class Server:
    name: str
    process: subprocess.Popen[Any]
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def check_alive(self) -> None:
        assert self.process.poll() is None, f"{self.name} exited:\n{self.log_text()[-5000:]}"


@dataclass
class World:
    site: str
    clock: SeasonClock
    inbox: Inbox
    push: PushService
    servers: list[Server]
    workdir: Path

    @property
    def ws(self) -> str:
        return self.site.replace("http://", "ws://", 1)

    def to(self, moment: datetime) -> None:
        """Move the season's clock to ``moment`` and wait for beat's sweeps to have run on
        it (each of them twice more: the first may have begun before the move)."""
        before = self.sweeps_done()
        self.clock.to(moment)
        self.await_sweeps(before)

    def advance(self, delta: timedelta) -> None:
        before = self.sweeps_done()
        self.clock.advance(delta)
        self.await_sweeps(before)

    def sweeps_done(self) -> dict[str, int]:
        """How many times each sweep has succeeded, by the worker's log."""
        log = self.server("worker").log_text()
        return {
            task: len(re.findall(rf"Task {re.escape(task)}\[[^\]]+\] succeeded", log))
            for task in SWEEPS
        }

    def await_sweeps(self, before: dict[str, int]) -> None:
        def swept() -> bool:
            now = self.sweeps_done()
            return all(now[task] >= before[task] + 2 for task in SWEEPS)

        wait_until(swept, what="beat's sweeps to run on the moved clock")

    def server(self, name: str) -> Server:
        [server] = [s for s in self.servers if s.name == name]
        return server

    def member(self, name: str, address: str) -> Member:
        return Member(self.site, name, address)

    def errors_logged(self) -> list[str]:
        """Every ERROR (or traceback) line any server process has written."""
        found = []
        for server in self.servers:
            for line in server.log_text().splitlines():
                if re.search(r"\bERROR\b|CRITICAL|Traceback", line):
                    found.append(f"{server.name}: {line}")
        return found


def _database_url() -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{db['USER']}{password}@{db['HOST'] or HOST}:{db['PORT'] or 5432}/{db['NAME']}"
    )


@dataclass
class _Spawner:
    env: dict[str, str]
    workdir: Path
    servers: list[Server] = field(default_factory=list)

    def start(self, name: str, argv: list[str], **popen: Any) -> Server:
        log = self.workdir / f"{name}.log"
        with log.open("wb") as out:
            process = spawn(
                [sys.executable, "-m", "tests.season.clocked", *argv],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **popen,
            )
        server = Server(name, process, log)
        self.servers.append(server)
        return server


def build_world() -> Iterator[World]:
    """Start everything; yield the world; stop everything (a generator for a fixture)."""
    workdir = Path(tempfile.mkdtemp(prefix="wordduel-season-"))
    clock = SeasonClock(workdir / "clock")
    inbox = Inbox()
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd: a line per command
    smtp = Controller(inbox, hostname=HOST, port=free_port())
    smtp.start()
    push_port = free_port()
    push = PushService(url=f"http://{HOST}:{push_port}")
    push_http = _push_server(push, push_port)
    threading.Thread(target=push_http.serve_forever, daemon=True).start()

    listener = socket.socket()
    listener.bind((HOST, 0))
    listener.listen(128)
    listener.set_inheritable(True)
    port = listener.getsockname()[1]
    site = f"http://{HOST}:{port}"
    keys = vapid_keys()
    # A Redis of the season's own (broker, channel layer, cache): the machine's is shared
    # with other runs, whose load must not decide this one.
    redis = RedisServer(workdir)
    redis.start()
    env = dict(os.environ)
    env.update(
        {
            "REDIS_URL": redis.url,
            "CELERY_BROKER_URL": redis.url,
            "DATABASE_URL": _database_url(),
            "CHANNEL_LAYER_PREFIX": os.environ["CHANNEL_LAYER_PREFIX"],
            "CACHE_PREFIX": os.environ["CHANNEL_LAYER_PREFIX"],
            "CELERY_QUEUE": os.environ["CELERY_QUEUE"],
            "CLOCK_IN_PROCESS": "0",
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "PYTHONUNBUFFERED": "1",
            "SEASON_CLOCK_FILE": str(clock.path),
            "SITE_URL": site,
            "WEBSOCKET_ALLOWED_ORIGINS": site,
            # Behind one proxy, as deployed: Daphne takes the client's address from it.
            "TRUSTED_PROXY_COUNT": "0",
            "EMAIL_HOST": HOST,
            "EMAIL_PORT": str(smtp.port),
            "EMAIL_USE_TLS": "0",
            "EMAIL_USE_SSL": "0",
            "DEFAULT_FROM_EMAIL": "Word Duel <noreply@wordduel.test>",
            "VAPID_PUBLIC_KEY": keys["VAPID_PUBLIC_KEY"],
            "VAPID_PRIVATE_KEY": keys["VAPID_PRIVATE_KEY"],
            "VAPID_SUBJECT": "mailto:admin@wordduel.test",
            "WEB_PUSH_HOSTS": f"http://{HOST}",
            # The season's sweeps, sooner than a deployment's (what they do is the same).
            "CLOCK_SWEEP_SECONDS": "1",
            "NOTIFY_SWEEP_SECONDS": "2",
            # A season is lived in weeks: a session outlasts it, as a "remember me" would.
            "SESSION_COOKIE_AGE": str(90 * 24 * 3600),
        }
    )
    spawner = _Spawner(env, workdir)
    try:
        with listener:
            web = spawner.start(
                "web",
                [
                    "wordduel.serve",
                    "--proxy-headers",
                    "--fd",
                    str(listener.fileno()),
                    "wordduel.asgi:application",
                ],
                pass_fds=(listener.fileno(),),
            )
        celery = ["celery", "-A", "wordduel"]
        worker = spawner.start(
            "worker",
            [
                *celery,
                "worker",
                "--pool=threads",
                "--concurrency=4",
                "--loglevel=INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-n",
                f"season-{os.getpid()}@%h",
            ],
        )
        beat = spawner.start(
            "beat",
            [*celery, "beat", "--loglevel=INFO", f"--schedule={workdir / 'beat-schedule'}"],
        )
        clock.pids = [s.process.pid for s in spawner.servers]

        def web_ready() -> bool:
            web.check_alive()
            try:
                return requests.get(f"{site}/healthz/web", timeout=2).status_code == 200
            except requests.RequestException:
                return False

        wait_until(web_ready, what="the web process")
        wait_until(
            lambda: worker.check_alive() or " ready." in worker.log_text(),
            what="the Celery worker",
        )
        wait_until(
            lambda: beat.check_alive() or "beat: Starting" in beat.log_text(),
            what="Celery beat",
        )
        clock.set_offset(0.0)  # every process follows the file
        yield World(site, clock, inbox, push, spawner.servers, workdir)
    finally:
        clock.stop()
        for server in reversed(spawner.servers):
            if server.process.poll() is None:
                os.killpg(server.process.pid, 15)
        for server in spawner.servers:
            try:
                server.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.process.pid, 9)
                server.process.wait(timeout=10)
        redis.stop()
        smtp.stop()
        push_http.shutdown()
        push_http.server_close()
        if not os.environ.get("SEASON_KEEP_LOGS"):
            shutil.rmtree(workdir, ignore_errors=True)


def host_of(url: str) -> str:
    return urlsplit(url).netloc
