"""The secrets that travel in addresses (``common/secret_urls.py``) never reach a log: the
web process's own lines and Daphne's access log, as deployed (``python -m wordduel.serve``,
tests/live_server.py), and the proxy's log (``deploy/Caddyfile`` redacts by the same list)."""

from __future__ import annotations

import json
import re
import secrets
import time
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from websockets.sync.client import connect

from accounts.models import Invitation, Member
from accounts.services import email_verification_token
from common import secret_urls
from matches.models import Match
from notifications.models import CalendarFeed
from notifications.services import unsubscribe_token
from tests.live_server import WebServer
from tests.matches.test_ws_helpers import socket_path

ROOT = Path(__file__).resolve().parents[2]
ARRIVAL = 20  # seconds: a bound for log lines that must come, never a measurement


def _caddy_rules() -> list[tuple[str, str, str]]:
    """Each ``<field> regexp "<pattern>" "<replacement>"`` of the Caddyfile's snippet."""
    text = (ROOT / "deploy" / "Caddyfile").read_text()
    snippet = text[text.index("(redacted_secrets) {") :]
    snippet = snippet[: snippet.index("\n}")]
    return re.findall(r'^\s*(\S+) regexp "([^"]*)" "([^"]*)"$', snippet, flags=re.MULTILINE)


def _as_caddy(pattern: str, replacement: str, uri: str) -> str:
    """``uri`` as Caddy's filter rewrites it (``${n}``: group n, empty when it took no part)."""
    return re.sub(
        pattern,
        lambda found: re.sub(r"\$\{(\d+)\}", lambda n: found.group(int(n[1])) or "", replacement),
        uri,
    )


#: One address of each kind, its secret, and the secret's redacted place.
SAMPLES = [
    ("/matches/7/?key=VIEWKEY123", "VIEWKEY123"),
    ("/api/matches/7/replay?turn=2&key=VIEWKEY123&x=1", "VIEWKEY123"),
    ("/imports/4/?key=SHAREKEY456", "SHAREKEY456"),
    ("/accounts/sign-up/?invite=INVITE789", "INVITE789"),
    ("/accounts/sign-in/?next=/matches/7/%3Fkey%3DVIEWKEY123", "VIEWKEY123"),
    ("/accounts/sign-in/?next=%2Fmatches%2F7%2F%3Fturn%3D1%26key%3DVIEWKEY123", "VIEWKEY123"),
    ("/notifications/calendar/3/CALSECRET.ics", "CALSECRET"),
    ("/notifications/calendar/3/CALSECRET/tournaments/2.ics", "CALSECRET"),
    ("/accounts/email/verify/VERIFY:TOKEN-1/", "VERIFY:TOKEN-1"),
    ("/notifications/unsubscribe/UNSUB:TOKEN/", "UNSUB:TOKEN"),
    ("/accounts/password/reset/MQ/RESET-TOKEN/", "RESET-TOKEN"),
]


def test_the_caddyfile_redacts_by_the_one_list_in_every_field_it_logs() -> None:
    rules = _caddy_rules()
    assert {field for field, _, _ in rules} == {
        "request>uri",
        "request>headers>Referer",
        "resp_headers>Location",
    }
    for field, pattern, replacement in rules:
        assert (pattern, replacement) == (secret_urls.PATTERN, secret_urls.CADDY_REPLACEMENT), field
        for parameter in secret_urls.SECRET_PARAMETERS:
            assert f"|{parameter}" in pattern or f"(?:{parameter}" in pattern, parameter
        for uri, secret in SAMPLES:
            assert secret not in _as_caddy(pattern, replacement, uri), (field, uri)
            assert "REDACTED" in _as_caddy(pattern, replacement, uri), (field, uri)
    # What is no secret stays as it was.
    for uri in ("/matches/7/?turn=3", "/accounts/password/reset/sent/", "/notifications/waiting/"):
        assert _as_caddy(secret_urls.PATTERN, secret_urls.CADDY_REPLACEMENT, uri) == uri


def test_redact_takes_each_secret_out_of_any_text_and_keeps_the_rest() -> None:
    for uri, secret in SAMPLES:
        for text in (uri, f"GET {uri} HTTP/1.1", json.dumps({"path": uri, "status": 200})):
            redacted = secret_urls.redact(text)
            assert secret not in redacted, text
            assert secret_urls.REDACTED in redacted, text
    line = json.dumps({"path": "/matches/7/?key=VIEWKEY123", "status": 200})
    assert json.loads(secret_urls.redact(line)) == {
        "path": "/matches/7/?key=[redacted]",
        "status": 200,
    }
    assert secret_urls.redact("/matches/7/?turn=3&keyboard=1") == "/matches/7/?turn=3&keyboard=1"


def _get(web: WebServer, path: str) -> int:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(web.url + path, timeout=ARRIVAL) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.django_db(transaction=True)
def test_no_secret_of_an_address_reaches_the_web_process_log(
    web_server: WebServer, make_fixture, alice: Member, bob: Member, organiser: Member
) -> None:
    match = make_fixture(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    calendar = CalendarFeed.objects.create(member=alice, secret=secrets.token_urlsafe(24))
    invitation = Invitation.objects.create(
        created_by=organiser, expires_at=timezone.now() + timedelta(days=1)
    )
    verify = email_verification_token(alice, "alice-new@example.org")
    unsubscribe = unsubscribe_token(alice.pk, "result")
    uid = urlsafe_base64_encode(force_bytes(alice.pk))
    alice.email = "alice@example.org"
    alice.save(update_fields=["email"])
    reset = default_token_generator.make_token(alice)
    share = secrets.token_urlsafe(32)  # a key that opens nothing is as secret in a log
    tournament_path = f"/notifications/calendar/{alice.pk}/{calendar.secret}/tournaments/1.ics"
    #: (address asked for, its secret, what its log line says in its place)
    visits = [
        (
            f"/matches/{match.pk}/?key={match.viewing_key}",
            match.viewing_key,
            f"/matches/{match.pk}/?key=[redacted]",
        ),
        (
            f"/accounts/sign-in/?next=/matches/{match.pk}/%3Fkey%3D{match.viewing_key}",
            match.viewing_key,
            "%3Fkey%3D[redacted]",
        ),
        ("/imports/999999/?key=" + share, share, "/imports/999999/?key=[redacted]"),
        (
            f"/accounts/sign-up/?invite={invitation.token}",
            invitation.token,
            "/accounts/sign-up/?invite=[redacted]",
        ),
        (
            f"/notifications/calendar/{alice.pk}/{calendar.secret}.ics",
            calendar.secret,
            f"/notifications/calendar/{alice.pk}/[redacted].ics",
        ),
        (
            tournament_path,
            calendar.secret,
            f"/notifications/calendar/{alice.pk}/[redacted]/tournaments/1.ics",
        ),
        (f"/accounts/email/verify/{verify}/", verify, "/accounts/email/verify/[redacted]/"),
        (
            f"/notifications/unsubscribe/{unsubscribe}/",
            unsubscribe,
            "/notifications/unsubscribe/[redacted]/",
        ),
        (
            f"/accounts/password/reset/{uid}/{reset}/",
            reset,
            f"/accounts/password/reset/{uid}/[redacted]/",
        ),
    ]
    start = web_server.log_size()
    answers = {path: _get(web_server, path) for path, _, _ in visits}
    # The real pages answered (a calendar feed, the reset form), not only refusals.
    assert answers[f"/notifications/calendar/{alice.pk}/{calendar.secret}.ics"] == 200, answers
    assert answers[f"/accounts/password/reset/{uid}/{reset}/"] == 200, answers
    # A socket opened with the key: the socket's own lines.
    with connect(
        web_server.ws_url + socket_path(match.pk, match.viewing_key),
        origin=web_server.url,  # type: ignore[arg-type]
        open_timeout=ARRIVAL,
    ) as socket:
        assert json.loads(socket.recv(timeout=ARRIVAL))["type"] == "snapshot"
    socket_line = f"/ws/matches/{match.pk}/?key=[redacted]"
    wanted = [redacted for _, _, redacted in visits] + [socket_line]
    deadline = time.monotonic() + ARRIVAL
    while True:  # wait for every line that must come (the access log writes after the answer)
        log = web_server.log_since(start)
        done = all(log.count(text) >= 2 for text in wanted[:-1]) and "socket closed" in log
        if done or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for path, secret, redacted in visits:
        assert secret not in log, f"{path}: the secret is in the log"
        # Each request is in our line and in Daphne's access line, both redacted.
        assert log.count(redacted) >= 2, (redacted, log)
    assert match.viewing_key not in log
    assert socket_line in log
