"""Security: the content security policy, CSRF on every POST route, the websocket origin
check, rate limits across processes, and no viewing key or session id in any log.

The in-process checks use Django's test client; the rest go through real Daphne processes
(a throwaway Redis, this run's test database) over loopback.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import logging
import os
import re
import secrets
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.exceptions import Resolver404
from django.utils import timezone
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from accounts.models import Member
from matches.models import CommitReceipt, Match, Seat, Tournament, Turn
from tests.matches.test_ws_helpers import seeded_match, session_cookie
from tests.reliability.harness import HOST, ORIGIN, check_integrity, record_figures
from tournaments import services as organising

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]

CSRF_FAILED = b"CSRF verification failed"
#: Routes that take a POST without the token on purpose: an email's one-click unsubscribe
#: (RFC 8058; mail clients post it without a session), where the signed token in the path
#: is the authority. A made-up token there is refused (400) and changes nothing.
#: Routes that take a POST without the CSRF token on purpose, by path prefix (the route's
#: parameter is filled with a real id below, so the path itself varies).
CSRF_EXEMPT_BY_DESIGN = ("/notifications/unsubscribe/",)


# ---------------------------------------------------------------- content security policy


class _Scripts(HTMLParser):
    """Every ``<script>`` of a page: its attributes, and whether it is inline code."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts.append(dict(attrs))


def inline_scripts(html: str) -> list[dict[str, str | None]]:
    """The scripts a browser would run from the page itself (not data blocks, not files)."""
    parser = _Scripts()
    parser.feed(html)
    return [
        script
        for script in parser.scripts
        if "src" not in script
        and (script.get("type") or "text/javascript")
        in {"text/javascript", "module", "application/javascript"}
    ]


def policy(response: Any) -> dict[str, list[str]]:
    header = response.headers["Content-Security-Policy"]
    return {
        name: sources
        for name, *sources in (part.split() for part in header.split(";") if part.strip())
    }


def test_every_response_carries_the_policy_with_a_fresh_nonce_per_request(client) -> None:
    first, second = client.get("/"), client.get("/")
    directives = policy(first)
    nonce = first.wsgi_request.csp_nonce
    assert directives["script-src"] == ["'self'", f"'nonce-{nonce}'"]
    assert directives["default-src"] == ["'self'"]
    assert directives["style-src"] == ["'self'"]  # no inline styles are needed
    assert directives["connect-src"] == ["'self'"]  # the site's own origin, ws: and wss: alike
    assert directives["img-src"] == ["'self'", "data:"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["base-uri"] == ["'self'"]
    assert directives["form-action"] == ["'self'"]
    assert second.wsgi_request.csp_nonce != nonce
    assert f"'nonce-{second.wsgi_request.csp_nonce}'" in policy(second)["script-src"]
    for path in ("/api/matches/", "/no-such-page/", "/healthz"):  # JSON, errors: all of them
        assert "Content-Security-Policy" in client.get(path).headers, path


@pytest.fixture
def pages(organiser, alice, bob, make_fixture) -> dict[str, tuple[Member | None, str]]:
    """A path of every kind of page, with who looks at it."""
    live = seeded_match(make_fixture, alice, bob, seed=41)
    waiting = make_fixture(first=alice, kickoff_at=timezone.now() + timedelta(days=1))
    tournament = organising.create_round_robin(
        organiser=organiser,
        name="Cup",
        players=[alice, bob],
        first_kickoff=timezone.now() + timedelta(days=2),
        interval=timedelta(days=1),
    )
    return {
        "home": (None, "/"),
        "sign-in": (None, "/accounts/sign-in/"),
        "sign-up": (None, "/accounts/sign-up/"),
        "my matches": (alice, "/me/matches/"),
        "organise": (organiser, "/organise/"),
        "tournament": (None, f"/tournaments/{tournament.pk}/"),
        "tournaments": (None, "/tournaments/"),
        "player": (bob, f"/players/{alice.username}/"),
        "match, fair-bag box": (alice, f"/matches/{waiting.pk}/"),
        "match, live": (alice, f"/matches/{live.pk}/"),
    }


@pytest.mark.parametrize(
    "page",
    [
        "home",
        "sign-in",
        "sign-up",
        "my matches",
        "organise",
        "tournament",
        "tournaments",
        "player",
        "match, fair-bag box",
        "match, live",
    ],
)
def test_every_inline_script_carries_the_requests_nonce(pages, page: str) -> None:
    member, path = pages[page]
    client = Client()
    if member is not None:
        client.force_login(member)
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    nonce = response.wsgi_request.csp_nonce
    scripts = inline_scripts(response.content.decode())
    assert scripts or page != "home"  # base.html's own script is on every page
    assert [s.get("nonce") for s in scripts] == [nonce] * len(scripts), path


# ---------------------------------------------------------------- CSRF on every POST route


def _sample(name: str, pattern: str) -> str:
    """A value for one URL parameter: the first alternative of ``a|b``, else a number."""
    alternatives = re.fullmatch(r"\(?([\w|]+)\)?", pattern)
    if alternatives and "|" in pattern:
        return alternatives.group(1).split("|")[0]
    return "1"


def _paths(patterns: list, prefix: str = "") -> Iterator[str]:
    """One concrete path for every route of the site (admin included)."""
    for entry in patterns:
        raw = str(entry.pattern)
        raw = raw.removeprefix("^").removesuffix("$").removesuffix(r"\Z")
        raw = re.sub(r"<(?:\w+:)?(\w+)>", "1", raw)  # path converters
        raw = re.sub(r"\(\?P<(\w+)>([^)]*\)?)\)", lambda m: _sample(m.group(1), m.group(2)), raw)
        raw = raw.replace("\\", "")
        if isinstance(entry, URLResolver):
            yield from _paths(entry.url_patterns, prefix + raw)
        elif isinstance(entry, URLPattern):
            yield "/" + prefix + raw


def _counts() -> dict[str, int]:
    from django.contrib.sessions.models import Session

    models = (Member, Match, Seat, Turn, Tournament, CommitReceipt, Session)
    return {model.__name__: model.objects.count() for model in models}


def test_every_post_route_refuses_a_request_without_the_csrf_token(
    organiser, alice, bob, make_fixture
) -> None:
    match = make_fixture(first=organiser, kickoff_at=timezone.now() + timedelta(days=1))
    assert match.pk  # route parameters are filled with 1; make sure something is there too
    paths = sorted(
        {path.replace("/1/", f"/{match.pk}/") for path in _paths(get_resolver().url_patterns)}
    )
    resolvable = []
    for path in paths:
        try:
            resolve(path)
        except Resolver404:
            continue
        resolvable.append(path)
    assert len(resolvable) >= 30, resolvable  # the site's own routes and the admin's
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(organiser)
    before = _counts()
    posted = 0
    for path in resolvable:
        response = guarded.post(path, {"name": "x", "position": "0", "value": "00" * 16})
        if response.status_code == 405:
            continue  # the route takes no POST at all (the API's reads)
        if path.startswith(CSRF_EXEMPT_BY_DESIGN):
            assert response.status_code == 400, (path, response.status_code)
            continue
        assert response.status_code == 403, (path, response.status_code)
        assert CSRF_FAILED in response.content, path
        posted += 1
    assert posted >= 20, posted
    assert _counts() == before
    # The token is what was missing: with it, no route answers with a CSRF failure.
    for path in resolvable:
        token_client = Client(enforce_csrf_checks=True)
        # Fresh from the database: a POST to sign-out-elsewhere changes what a valid session
        # of this member must carry, and a stale instance would sign in a session that fails.
        organiser.refresh_from_db()
        token_client.force_login(organiser)
        token_client.get("/")  # the page sets the csrftoken cookie
        token = token_client.cookies[django_settings.CSRF_COOKIE_NAME].value
        response = token_client.post(
            path, "", content_type="application/json", HTTP_X_CSRFTOKEN=token
        )
        assert CSRF_FAILED not in response.content, path
    record_figures("csrf", {"post_routes": len(resolvable)})


def test_a_form_posted_to_contribute_is_refused_as_a_bad_body_not_a_crash(
    make_fixture, alice
) -> None:
    match = make_fixture(first=alice, kickoff_at=timezone.now() + timedelta(days=1))
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.force_login(alice)
    client.get("/")
    token = client.cookies[django_settings.CSRF_COOKIE_NAME].value
    response = client.post(
        f"/api/matches/{match.pk}/contribute", {"csrfmiddlewaretoken": token, "value": "ab" * 16}
    )
    assert response.status_code == 400, response.status_code
    assert response.json()["code"] == "bad_body"


# ---------------------------------------------------------------- through real Daphne


async def _handshake(url: str, *, origin: str | None, cookie: str | None = None) -> Any:
    """The handshake's outcome: the first frame, the HTTP status it was refused with (a
    foreign origin), or the close code a refused viewer's socket got at once (4403, 4404)."""
    headers = {"Cookie": f"sessionid={cookie}"} if cookie else {}
    try:
        async with connect(
            url, origin=origin, additional_headers=headers, proxy=None, open_timeout=20
        ) as ws:
            return json.loads(await asyncio.wait_for(ws.recv(), timeout=20))
    except InvalidStatus as refused:
        return refused.response.status_code
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None


def test_websocket_handshakes_from_foreign_origins_are_refused(start_daphne, live_match) -> None:
    web = start_daphne()
    url = f"{web.ws_url}/ws/matches/{live_match.pk}/"
    foreign = [
        "http://evil.example",
        f"http://{HOST}.evil.example",
        "null",
        f"https://evil.example:{web.port}",
        f"http://{HOST}:9999",  # the same host, another port: another origin
        f"https://{HOST}",  # the same host, another scheme
        None,  # no Origin header at all: not a browser we can vouch for
    ]

    async def scenario() -> list[Any]:
        return [await _handshake(url, origin=origin) for origin in [ORIGIN, *foreign]]

    own, *refused = asyncio.run(scenario())
    assert own["type"] == "snapshot"
    assert refused == [403] * len(foreign)


def _opener() -> tuple[urllib.request.OpenerDirector, http.cookiejar.CookieJar]:
    jar = http.cookiejar.CookieJar()
    return (
        urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(jar)
        ),
        jar,
    )


def _fetch(opener, url: str, data: dict[str, str] | None = None) -> tuple[int, str]:
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    try:
        with opener.open(urllib.request.Request(url, data=body), timeout=20) as response:  # noqa: S310
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_sign_in_limit_holds_across_web_processes(start_daphne, alice) -> None:
    """The failures are counted in the database: attempts spread over two processes add up."""
    webs = [start_daphne(), start_daphne()]
    opener, jar = _opener()
    status, page = _fetch(opener, f"{webs[0].http_url}/accounts/sign-in/")
    assert status == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    statuses = []
    limit = django_settings.AXES_FAILURE_LIMIT
    for attempt in range(limit + 2):
        web = webs[attempt % 2]
        form = {"csrfmiddlewaretoken": token, "username": "alice", "password": "wrong"}
        statuses.append(_fetch(opener, f"{web.http_url}/accounts/sign-in/", form)[0])
    assert statuses[: limit - 1] == [200] * (limit - 1)  # wrong password, ordinary form
    assert statuses[limit - 1 :] == [429, 429, 429]  # the limit-th failure locks
    assert not any(cookie.name == "sessionid" for cookie in jar)


def test_a_flood_of_commits_is_answered_rate_limited_then_closed(start_daphne, live_match, alice):
    """The consumer's flood control over a real socket: nothing reaches the service."""
    web = start_daphne()
    cookie = session_cookie(alice)
    before = live_match.turn_number

    async def scenario() -> tuple[int, int | None]:
        limited = 0
        async with connect(
            f"{web.ws_url}/ws/matches/{live_match.pk}/",
            origin=ORIGIN,
            additional_headers={"Cookie": f"sessionid={cookie}"},
            proxy=None,
        ) as ws:
            await ws.recv()  # the snapshot
            for index in range(400):  # stale passes: refused by the rules if ever read
                frame = {"type": "pass", "id": f"flood-{index}", "turn": 99}
                try:
                    await ws.send(json.dumps(frame))
                except ConnectionClosed:
                    break
            try:
                while True:
                    answer = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
                    limited += answer.get("code") == "rate_limited"
            except ConnectionClosed as closed:
                return limited, closed.rcvd.code if closed.rcvd else None
        return limited, None

    limited, code = asyncio.run(scenario())
    assert limited >= 1
    assert code == 4429
    live_match.refresh_from_db()
    assert live_match.turn_number == before


# ---------------------------------------------------------------- secrets stay out of logs


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def every_log_line(settings) -> Iterator[list[str]]:
    """All log output of this process at DEBUG, with DEBUG on (SQL logging included)."""
    settings.DEBUG = True
    capture = _Capture()
    root = logging.getLogger()
    level = root.level
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    try:
        yield capture.lines
    finally:
        root.removeHandler(capture)
        root.setLevel(level)


def test_viewing_keys_and_session_ids_never_reach_the_logs(
    start_daphne, make_fixture, alice, bob, every_log_line, tmp_path, settings
) -> None:
    # One secret for this process and the production one below, so alice's session (signed
    # with it) is hers in both.
    settings.SECRET_KEY = secrets.token_urlsafe(50)
    match = seeded_match(make_fixture, alice, bob, seed=43, visibility=Match.Visibility.MEMBERS)
    key = match.viewing_key
    cookie = session_cookie(alice)
    secrets_ = {"viewing key": key, "session id": cookie}

    # In this process: a key holder's visits, a member's, refusals, at DEBUG with DEBUG on.
    holder = Client()
    for path in (
        f"/matches/{match.pk}/?key={key}",
        f"/api/matches/{match.pk}/?key={key}",
        f"/api/matches/{match.pk}/replay?turn=0&key={key}",
        f"/matches/{match.pk}/export.gcg?key={key}",
    ):
        assert holder.get(path).status_code == 200, path
    assert Client().get(f"/matches/{match.pk}/?key={key[::-1]}").status_code == 404
    member = Client()
    member.cookies[django_settings.SESSION_COOKIE_NAME] = cookie
    assert member.get(f"/matches/{match.pk}/").status_code == 200
    # The capture is live: the refused visit's request line is there, its key redacted.
    assert any(f"/matches/{match.pk}/?key=[redacted] 404" in line for line in every_log_line), (
        every_log_line[-20:]
    )
    for name, secret in secrets_.items():
        leaked = [line for line in every_log_line if secret in line]
        assert not leaked, f"{name} logged here: {leaked[:3]}"

    # A production web process, logging at DEBUG, its access log on as deployed. Its pages
    # name hashed static files, so they are collected first, as a deployment does.
    production = {
        "DEBUG": "0",
        "SECRET_KEY": settings.SECRET_KEY,  # production refuses the development key
        "STATIC_ROOT": str(tmp_path / "static"),
    }
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, **production},
        check=True,
        timeout=120,
    )
    web = start_daphne(
        command=[sys.executable, "-m", "wordduel.serve"],
        **production,
        ALLOWED_HOSTS=HOST,
        SECURE_SSL_REDIRECT="0",
        LOG_LEVEL="DEBUG",
    )
    status, _ = web.get(f"/matches/{match.pk}/?key={key}")
    assert status == 200
    status, _ = web.get(f"/matches/{match.pk}/", headers={"Cookie": f"sessionid={cookie}"})
    assert status == 200
    url = f"{web.ws_url}/ws/matches/{match.pk}/"

    async def sockets() -> list[Any]:
        return [
            await _handshake(f"{url}?key={key}", origin=ORIGIN),
            await _handshake(url, origin=ORIGIN, cookie=cookie),
            await _handshake(f"{url}?key=wrong", origin=ORIGIN),
        ]

    by_key, by_session, refused = asyncio.run(sockets())
    assert by_key["snapshot"]["your_seat"] is None
    assert by_session["snapshot"]["your_seat"] == 0  # the session really was used
    assert refused == 4403
    web.stop()
    log = web.log_text()
    assert f"/matches/{match.pk}/?key=[redacted]" in log  # the access log was on
    for name, secret in secrets_.items():
        assert secret not in log, f"{name} in Daphne's output"
    check_integrity()
