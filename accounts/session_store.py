"""Django's database sessions, with the session read compiled once per thread.

Every websocket request re-reads its session (``accounts.sessions``), so a move's session
check compiled the same SELECT each time; this store runs it as a prepared query
(``wordduel/prepared.py``). Everything else, the writes and the expiry included, is Django's
``db`` store unchanged. ``SESSION_ENGINE`` names this module.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.utils import timezone

from wordduel.prepared import PreparedQuery

_LIVE_SESSION = PreparedQuery(
    lambda session_key, now: Session.objects.filter(session_key=session_key, expire_date__gt=now),
    markers={"session_key": "\x00session-key", "now": datetime(1901, 1, 1, tzinfo=UTC)},
)


class SessionStore(db.SessionStore):
    #: The encoded data of the row last read (None if none was): what a decision made from
    #: this session's contents was made from (``accounts.sessions.SignedInCheck``).
    read_data: str | None = None

    def _get_session_from_db(self) -> Any:
        """The session's row if it has not expired; None (and no key) if there is none.

        Django's own read, prepared; a session key is its primary key, so one row at most.
        """
        session = _LIVE_SESSION.first(session_key=self.session_key, now=timezone.now())
        if session is None:
            self._session_key = None
            self.read_data = None
        else:
            self.read_data = session.session_data
        return session
