"""Django's database sessions, remembering the encoded data of the row last read.

A socket's signed-in check (``accounts.sessions.SignedInCheck``) keeps Django's answer while
the session's row and the member's row are exactly as they were when Django gave it; this
store says what the session's row held when Django read it. It overrides only ``load``, the
public method of Django's session store API, reading the row with Django's own queryset;
everything else (the writes, the expiry, a missing or expired key dropped) is Django's ``db``
store unchanged. ``SESSION_ENGINE`` names this module.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.backends import db
from django.utils import timezone


class SessionStore(db.SessionStore):
    #: The encoded data of the row last read (None if none was): what a decision made from
    #: this session's contents was made from (``accounts.sessions.SignedInCheck``).
    read_data: str | None = None

    def load(self) -> dict[str, Any]:
        """The session's contents if its row is live; else Django's own load, which finds
        nothing and drops the key (an expired or unknown key is never reused)."""
        row = (
            self.model.objects.filter(session_key=self.session_key, expire_date__gt=timezone.now())
            .only("session_data")
            .first()
            if self.session_key
            else None
        )
        if row is None:
            self.read_data = None
            return super().load()
        self.read_data = row.session_data
        return self.decode(row.session_data)
