"""Websockets and sessions: who is signed in to a session now (Django's own check, for
callers without a request), the middleware that gives a socket its session, and the sign-outs
that close sockets.

A websocket keeps the cookie it connected with; each request on it asks here whether that
session still belongs to the same member (not expired, not signed out, password unchanged).
Whatever ends sessions also tells the member's sockets at once, after it commits (a
``SessionsEnded`` event, common/events.py, which the live news publishes): the account
services (signing out elsewhere, deleting, an organiser's removal), Django's password
change and reset pages (:class:`PasswordChangeView`, :class:`PasswordResetConfirmView`), and
signing out.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from types import SimpleNamespace
from typing import Any

from channels.auth import AuthMiddleware
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware
from django.conf import settings
from django.contrib import auth
from django.contrib.auth import get_user_model
from django.contrib.auth import views as auth_views
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.signals import user_logged_out
from django.contrib.sessions.models import Session
from django.db import connection
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from common.events import SessionsEnded, emit
from common.model_rows import instance_of, select_list

#: The backends whose ``get_user`` depends on the member's row alone, so that Django's answer
#: for an unchanged session row and member row is the answer it gave before.
ROW_ONLY_BACKENDS = frozenset({"django.contrib.auth.backends.ModelBackend"})


@cache
def _member_and_session_sql() -> str:
    quote = connection.ops.quote_name
    member = get_user_model()
    members, sessions = quote(member._meta.db_table), quote(Session._meta.db_table)
    return (
        f"SELECT {select_list(member, 'u')}, (SELECT s.session_data FROM {sessions} s"  # noqa: S608
        "  WHERE s.session_key = %s AND s.expire_date > %s)"
        f" FROM {members} u WHERE u.id = %s"
    )


def _member_and_session(*, member_id: int, session_key: str) -> tuple[Any, str | None] | None:
    """The member's row, and the encoded data of the session if it is still live: one fixed
    statement through the public cursor API (no queryset compiled for each frame; psycopg
    prepares it on the server once it repeats). None if there is no such member."""
    expires = Session._meta.get_field("expire_date")
    with connection.cursor() as cursor:
        cursor.execute(
            _member_and_session_sql(),
            [session_key, expires.get_db_prep_save(timezone.now(), connection), member_id],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    return instance_of(get_user_model(), row[:-1]), row[-1]


def user_of_session(session_key: str | None) -> Any:
    """The member signed in to ``session_key`` now, or an anonymous user.

    Django's full check (user, backend, session auth hash), made without a request object.
    """
    if not session_key:
        return AnonymousUser()
    return _djangos_check(session_key)[0]


def _djangos_check(session_key: str) -> tuple[Any, Any]:
    """``auth.get_user`` for the session, and the session store it read."""
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    return auth.get_user(SimpleNamespace(session=store)), store  # type: ignore[arg-type]


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


class SignedInCheck:
    """Is a socket's member still signed in to the session it connected with?

    Django's answer (``auth.get_user``: the session live, naming this member and a configured
    backend, its hash matching the member's password and sign-out epoch, the member active)
    depends only on the session's row, the member's row and the settings. So each check reads
    both rows in one statement; while both are exactly as they were when Django last
    said yes, that answer stands, and the member just read is returned. Anything else (signed
    out, expired, the password or the epoch changed, the member edited or deactivated, another
    backend) asks Django again. One per socket; two checks of it may run at once (a request's
    and a rack's): what it remembers is only which rows Django found signed in, which stays
    true whichever check wrote it last.
    """

    def __init__(self, *, session_key: str | None, member_id: int) -> None:
        self.session_key = session_key
        self.member_id = member_id
        #: The session data and member row Django last found signed in, or None.
        self._confirmed: tuple[str, tuple[Any, ...]] | None = None

    def member(self) -> Any | None:
        """The member, freshly read, if still signed in to the session; else None."""
        if not self.session_key:
            return None
        if self._confirmed is not None:
            read = _member_and_session(member_id=self.member_id, session_key=self.session_key)
            if read is not None:
                member, data = read
                if (data, _row_of(member)) == self._confirmed:
                    return member
        return self._ask_django()

    def _ask_django(self) -> Any | None:
        self._confirmed = None
        assert self.session_key
        user, store = _djangos_check(self.session_key)
        if not user.is_authenticated or user.pk != self.member_id:
            return None
        data = getattr(store, "read_data", None)
        if (
            data is not None
            and not store.modified  # not re-keyed by a fallback secret
            and store.get(auth.BACKEND_SESSION_KEY) in ROW_ONLY_BACKENDS
        ):
            self._confirmed = (data, _row_of(user))
        return user


def _row_of(member: Any) -> tuple[Any, ...]:
    """Every column of the member's row, as read."""
    return tuple(getattr(member, field.attname) for field in member._meta.concrete_fields)


# ------------------------------------------------------------------ sign-outs close sockets


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's password change; the member's sockets on every session it ended close (this
    session's too: Django gives it a new key, and a socket keeps the key it connected with)."""

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        emit(SessionsEnded(member_id=form.user.pk))
        return response


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's password reset by a mailed link; the member's sockets close, as every session
    of theirs has ended."""

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        emit(SessionsEnded(member_id=form.user.pk))
        return response


@receiver(user_logged_out, dispatch_uid="accounts.sessions.close_the_sessions_sockets")
def close_the_sessions_sockets(
    sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any
) -> None:
    """Signing out ends this session: its sockets close (the member's others stay open)."""
    session_key = request.session.session_key if request is not None else None
    if user is not None and user.pk is not None and session_key:
        emit(SessionsEnded(member_id=user.pk, session_key=session_key))
