"""What the tournaments' page tests share: a browser-like client (signed in or not) and a
moment as a datetime-local field's value."""

from __future__ import annotations

from datetime import UTC, datetime

from django.test import Client

from accounts.models import Member


def client_for(member: Member | None, **options) -> Client:
    """A test client, signed in as ``member`` (None: a visitor)."""
    client = Client(**options)
    if member is not None:
        client.force_login(member)
    return client


def local_minute(moment: datetime) -> str:
    """``moment`` as a datetime-local field sends it without JavaScript (UTC, to the minute)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")
