"""What each member was told: the emails and web pushes that reached them, read since the
last look, so each step of the season asserts exactly what it sent (no more, no fewer)."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.notifications.conftest import b64url
from tests.season.world import PATIENCE, World, wait_until


@dataclass(frozen=True)
class BrowserKeys:
    """A browser's push subscription keys (it decrypts what the push service hands it)."""

    private_key: ec.EllipticCurvePrivateKey
    auth_secret: bytes

    @classmethod
    def new(cls) -> BrowserKeys:
        return cls(ec.generate_private_key(ec.SECP256R1()), os.urandom(16))

    def subscription(self, endpoint: str) -> dict[str, Any]:
        public = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": endpoint,
            "keys": {"p256dh": b64url(public), "auth": b64url(self.auth_secret)},
        }

    def read(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(
            body, private_key=self.private_key, auth_secret=self.auth_secret, version="aes128gcm"
        )
        return json.loads(plain)


def subject_of(message: EmailMessage) -> str:
    """The subject as a mail client shows it (Python keeps the space of a folded first line:
    Django folds an encoded subject right after ``Subject:``)."""
    return str(message["Subject"]).strip()


def text_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]


def calendar_of(message: EmailMessage) -> str | None:
    """The ``.ics`` a message carries, if any."""
    for part in message.walk():
        if part.get_content_type() == "text/calendar":
            content = part.get_content()
            return content.decode() if isinstance(content, bytes) else content
    return None


@dataclass
class Told:
    """What one member got in one step."""

    emails: list[EmailMessage] = field(default_factory=list)
    pushes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def subjects(self) -> Counter[str]:
        return Counter(subject_of(m) for m in self.emails)

    @property
    def push_titles(self) -> Counter[str]:
        return Counter(str(p.get("title")) for p in self.pushes)

    def email(self, subject: str) -> EmailMessage:
        [message] = [m for m in self.emails if subject_of(m) == subject]
        return message


class Ledger:
    """Every member's address and push endpoint, and how far each has been read."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.addresses: dict[str, str] = {}  # address -> member name
        self.endpoints: dict[str, tuple[str, BrowserKeys]] = {}  # path -> (name, keys)
        self.read_emails = 0
        self.read_pushes = 0
        self.discovering = False

    def address(self, name: str, address: str) -> None:
        self.addresses[address] = name

    def endpoint(self, name: str) -> tuple[str, BrowserKeys]:
        keys = BrowserKeys.new()
        path = f"/push/{name}"
        self.endpoints[path] = (name, keys)
        return self.world.push.url + path, keys

    def new(self) -> dict[str, Told]:
        """Everything that arrived since the last look, by member name (an address nobody
        holds is named ``?<address>``)."""
        told: dict[str, Told] = {}
        messages = self.world.inbox.snapshot()[self.read_emails :]
        pushes = self.world.push.snapshot()[self.read_pushes :]
        self.read_emails += len(messages)
        self.read_pushes += len(pushes)
        for message in messages:
            to = str(message["To"])
            told.setdefault(self.addresses.get(to, f"?{to}"), Told()).emails.append(message)
        for push in pushes:
            name, keys = self.endpoints.get(push.path, (f"?{push.path}", None))  # type: ignore[arg-type]
            payload = keys.read(push.body) if keys else {"title": push.path}
            told.setdefault(name, Told()).pushes.append(payload)
        return told

    def expect(
        self,
        emails: dict[str, list[str]],
        pushes: dict[str, list[str]] | None = None,
        *,
        what: str,
    ) -> dict[str, Told]:
        """Wait until exactly these email subjects and push titles have arrived, by member,
        since the last look (``pushes`` left out: the same as the emails, every member taking
        each notice by both channels); fail naming what differs."""
        if pushes is None:
            pushes = emails
        want_emails = {name: Counter(subjects) for name, subjects in emails.items() if subjects}
        want_pushes = {name: Counter(titles) for name, titles in (pushes or {}).items() if titles}
        total_emails = sum(sum(c.values()) for c in want_emails.values())
        total_pushes = sum(sum(c.values()) for c in want_pushes.values())

        def arrived() -> bool:
            return (
                len(self.world.inbox.snapshot()) - self.read_emails >= total_emails
                and len(self.world.push.snapshot()) - self.read_pushes >= total_pushes
            )

        try:
            wait_until(settled, what=f"every notice due to be sent after {what}")
            wait_until(arrived, what=f"the notices of {what}", timeout=PATIENCE)
        finally:
            told = self.new()
        got_emails = {n: t.subjects for n, t in told.items() if t.emails}
        if os.environ.get("SEASON_DISCOVER"):  # writing the season: show, do not judge
            got_p = {n: t.push_titles for n, t in told.items() if t.pushes}
            sys.stderr.write(f"\n== {what}\nemails: {_show(got_emails)}\npushes: {_show(got_p)}\n")
            self.discovering = True  # (the season then fails at its end: nothing was judged)
            return told
        got_pushes = {n: t.push_titles for n, t in told.items() if t.pushes}
        assert got_emails == want_emails, (
            f"{what}: emails differ\n got: {_show(got_emails)}\nwant: {_show(want_emails)}"
        )
        assert got_pushes == want_pushes, (
            f"{what}: pushes differ\n got: {_show(got_pushes)}\nwant: {_show(want_pushes)}"
        )
        return told


def settled() -> bool:
    """No delivery that is due waits to be sent (nor is one being sent): what was told is all
    in the inbox and at the push service. A failed delivery fails the season."""
    from django.db.models import Q
    from django.utils import timezone

    from notifications.models import Delivery, Notice

    if Notice.objects.filter(dispatched_at__isnull=True).exists():
        return False
    failed = list(
        Delivery.objects.filter(status=Delivery.Status.FAILED).values_list(
            "notice__key", "channel", "detail"
        )
    )
    assert not failed, f"deliveries failed: {failed}"
    due = Delivery.objects.filter(Q(status=Delivery.Status.PENDING) & Q(due_at__lte=timezone.now()))
    return not due.exists()


def _show(by_member: dict[str, Counter[str]]) -> str:
    return json.dumps({n: sorted(c.elements()) for n, c in sorted(by_member.items())}, indent=1)
