"""Real parts for the notification tests: an SMTP server (aiosmtpd) and a stand-in push
service (an HTTP server) on free loopback ports, VAPID keys, browser-side push keys, and
Celery running a notice's task in the test process right after the commit."""

from __future__ import annotations

import asyncio
import base64
import email
import email.policy
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _Inbox:
    """aiosmtpd's handler: every message the server accepts, parsed."""

    def __init__(self) -> None:
        self.delay = 0.0  # seconds to hold each message (to widen a race)
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        if self.delay:
            await asyncio.sleep(self.delay)
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append(parsed)  # type: ignore[arg-type]
            self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 Message accepted for delivery"


@pytest.fixture
def smtp_server(settings) -> Iterator[_Inbox]:
    """A real SMTP server on a free loopback port; Django's SMTP backend sends to it."""
    inbox = _Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.DEFAULT_FROM_EMAIL = "Word Duel <noreply@wordduel.test>"
    settings.SITE_URL = "https://wordduel.test"
    try:
        yield inbox
    finally:
        controller.stop()


@dataclass
class PushRequest:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """The stand-in push service: records each request, answers ``status``."""

    url: str
    status: int = 201
    requests: list[PushRequest] = field(default_factory=list)


@pytest.fixture
def push_service(settings) -> Iterator[PushService]:
    """An HTTP server on a free loopback port standing in for a browser's push service,
    allowed as a push host for the test."""
    port = free_port()
    service = PushService(url=f"http://127.0.0.1:{port}")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            service.requests.append(
                PushRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            self.send_response(service.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.WEB_PUSH_HOSTS = [*settings.WEB_PUSH_HOSTS, "http://127.0.0.1"]
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@dataclass(frozen=True)
class BrowserKeys:
    """What a browser keeps for its push subscription: its P-256 key pair and auth secret."""

    private_key: ec.EllipticCurvePrivateKey
    auth_secret: bytes

    @property
    def p256dh(self) -> str:
        return b64url(
            self.private_key.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
            )
        )

    @property
    def auth(self) -> str:
        return b64url(self.auth_secret)


@pytest.fixture
def browser_keys() -> BrowserKeys:
    return BrowserKeys(ec.generate_private_key(ec.SECP256R1()), os.urandom(16))


@pytest.fixture
def vapid(settings) -> dict[str, str]:
    """A VAPID key pair made by the management command, in the settings."""
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("vapid_keys", stdout=out)
    lines = dict(
        line.split("=", 1) for line in out.getvalue().splitlines() if not line.startswith("#")
    )
    settings.VAPID_PUBLIC_KEY = lines["VAPID_PUBLIC_KEY"]
    settings.VAPID_PRIVATE_KEY = lines["VAPID_PRIVATE_KEY"]
    settings.VAPID_SUBJECT = "mailto:admin@wordduel.test"
    return lines


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    """A notice's task runs in this process when queued (after the commit), as in the
    quick start, instead of going to a worker."""
    from notifications.batching import process_batch
    from wordduel.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    # Notices the fixtures recorded before this one (a fixture scheduled, say) wait in the
    # process's dispatch window; sent now, here, rather than by the window's timer thread
    # later, perhaps while the test's tables are being emptied.
    process_batch().flush()
    try:
        yield
    finally:
        process_batch().flush()
        app.conf.task_always_eager = before


def to(inbox: _Inbox, address: str) -> list[EmailMessage]:
    """The messages the server accepted for ``address``."""
    return [m for m in inbox.messages if m["To"] == address]


def text_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]


def html_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("html",)).get_content()  # type: ignore[union-attr]


@pytest.fixture
def with_email(alice, bob):
    """alice and bob with email addresses."""
    for member in (alice, bob):
        member.email = f"{member.username}@example.org"
        member.save(update_fields=["email"])
    return alice, bob
