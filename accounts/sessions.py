"""Websockets and sessions: who is signed in to a session now (Django's own check, for
callers without a request), and the middleware that gives a socket its session.

A websocket keeps the cookie it connected with; each request on it asks here whether that
session still belongs to the same member (not expired, not signed out, password unchanged).
"""

from __future__ import annotations

from importlib import import_module
from types import SimpleNamespace
from typing import Any

from channels.auth import AuthMiddleware
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware
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


class SocketSessionMiddleware(SessionMiddleware):
    """Channels' session middleware for websockets, which read their session and never save
    it: the socket's frames go to the server's own ``send``.

    Channels wraps every outgoing message to save a modified session on an HTTP response; a
    websocket has no such message, but each of its frames still paid for the check (a lazy
    session's ``modified`` and ``is_empty``): at a thousand spectators a move, a twelfth of
    the web process's fan-out CPU. Cookies and the session in the scope are as before.
    """

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)


def SocketAuthMiddlewareStack(inner: Any) -> Any:  # noqa: N802 (named like channels' own)
    """``AuthMiddlewareStack`` with :class:`SocketSessionMiddleware`."""
    return CookieMiddleware(SocketSessionMiddleware(AuthMiddleware(inner)))
