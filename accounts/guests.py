"""Guests: visitors who play the computer at once, without an account.

A guest is a :class:`Member` row like any other (``membership="guest"``, inactive, no usable
password), so a seat holds it and its match is stored as any other, and the one access check
(``matches.visibility.access``) needs a single rule more: a guest may watch the matches it
sits in, and nothing else a visitor may not. Being inactive and never approved, a guest can
never sign in, is no club member (so no members-only page, list, pairing or tournament takes
it), and is never told of anything (the core tells only active players' seats).

A browser holds its guest as a signed cookie (Django's signing; httponly, SameSite=Lax, Secure
when the site is https). ``request.user`` stays anonymous: only the match page and its socket
read the cookie (:func:`viewer`, :func:`guest_id_from_cookie`), and only for matches the guest
sits in. On sign-up in that browser, :func:`adopt_guest` makes the guest's games the new
member's and retires the guest.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.core import signing
from django.db import transaction
from django.http import HttpRequest, HttpResponse

from accounts.errors import GuestRefused, GuestUnknown
from accounts.models import Member
from common.events import GuestAdopted, SessionsEnded, emit

#: The cookie that names a browser's guest, and its signature's salt.
GUEST_COOKIE = "wordduel_guest"
GUEST_COOKIE_SALT = "accounts.guests"
#: How long a browser keeps its guest (idle guests are swept sooner: ``GUEST_IDLE_DAYS``).
GUEST_COOKIE_AGE = timedelta(days=30)
#: A guest's account name: this prefix and random hex (pages call every guest "Guest").
GUEST_PREFIX = "guest-"

GUEST_GONE = (
    "Your games as a guest are no longer kept (a guest's games are cleared after a week"
    " without a move)."
)
NOT_FOR_GUESTS = "Only a member's own account can take on a guest's games."


def new_guest() -> Member:
    """A new guest account (inactive, no usable password): one new row."""
    guest = Member(
        username=f"{GUEST_PREFIX}{secrets.token_hex(8)}",
        is_active=False,
        membership=Member.Membership.GUEST,
    )
    guest.set_unusable_password()
    guest.save()
    return guest


def _signer() -> signing.TimestampSigner:
    # Read from a socket's scope as well as a request, so signed and read here alike.
    return signing.TimestampSigner(salt=GUEST_COOKIE_SALT)


def guest_id_from_cookie(value: str | None) -> int | None:
    """The guest id a cookie's value names, if its signature holds and it is not too old."""
    if not value:
        return None
    try:
        raw = _signer().unsign(value, max_age=GUEST_COOKIE_AGE)
    except signing.BadSignature:  # (also expired)
        return None
    return int(raw) if raw.isdigit() else None


def guest_cookie_value(guest: Member) -> str:
    """The signed value of the cookie that names ``guest``."""
    return _signer().sign(str(guest.pk))


def remember_guest(request: HttpRequest, response: HttpResponse, guest: Member) -> None:
    """Give the browser its guest's cookie (Secure when the request came over https)."""
    response.set_cookie(
        GUEST_COOKIE,
        guest_cookie_value(guest),
        max_age=int(GUEST_COOKIE_AGE.total_seconds()),
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )


def forget_guest(response: HttpResponse) -> None:
    response.delete_cookie(GUEST_COOKIE, samesite="Lax")


def guest_by_id(guest_id: int | None) -> Member | None:
    """The guest with this id, while it is one (not swept, not retired)."""
    if guest_id is None:
        return None
    return Member.objects.filter(pk=guest_id, membership=Member.Membership.GUEST).first()


def browser_guest_id(request: HttpRequest) -> int | None:
    """The guest id the request's cookie names (not read from the database)."""
    return guest_id_from_cookie(request.COOKIES.get(GUEST_COOKIE))


def viewer(request: HttpRequest) -> Any:
    """Who looks at a match: the signed-in member, else the browser's guest, else the
    anonymous visitor. Only a match's page (and its socket) asks this."""
    if request.user.is_authenticated:
        return request.user
    return guest_by_id(browser_guest_id(request)) or request.user


def adopt_guest(*, guest_id: int, member: Member) -> Member:
    """The guest's games become ``member``'s (a sign-up in the browser that played as the
    guest), and the guest is retired: its row goes and its sockets close.

    Locks the guest's row (a second adoption, or the idle sweep, waits and then finds no
    guest); the apps holding the guest's rows move them in this transaction, hearing
    :class:`GuestAdopted` (``Phase.IN_TRANSACTION``). Raises :class:`GuestRefused` for an
    account that cannot take them and :class:`GuestUnknown` when the guest is gone."""
    if not member.is_active or member.is_guest or member.pk == guest_id:
        raise GuestRefused(NOT_FOR_GUESTS)
    with transaction.atomic():
        guest = (
            Member.objects.select_for_update()
            .filter(pk=guest_id, membership=Member.Membership.GUEST)
            .first()
        )
        if guest is None:
            raise GuestUnknown(GUEST_GONE)
        emit(GuestAdopted(guest_id=guest_id, member_id=member.pk))
        guest.delete()
        emit(SessionsEnded(member_id=guest_id))
    return member
