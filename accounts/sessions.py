"""Who is signed in to a session now: Django's own check, for callers without a request.

A websocket keeps the cookie it connected with; each request on it asks here whether that
session still belongs to the same member (not expired, not signed out, password unchanged).
"""

from __future__ import annotations

from importlib import import_module
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser


def user_of_session(session_key: str | None) -> Any:
    """The member signed in to ``session_key`` now, or an anonymous user.

    Django's full check (user, backend, session auth hash), made without a request object.
    """
    if not session_key:
        return AnonymousUser()
    engine = import_module(settings.SESSION_ENGINE)
    request = SimpleNamespace(session=engine.SessionStore(session_key))
    return auth.get_user(request)  # type: ignore[arg-type]


def still_signed_in(session_key: str | None, member_id: int) -> Any | None:
    """The member, freshly read, if ``member_id`` is still signed in to the session; else None."""
    user = user_of_session(session_key)
    return user if user.is_authenticated and user.pk == member_id else None
