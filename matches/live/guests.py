"""A guest's socket (``accounts.guests``): the browser's guest cookie admits it to the one
match the guest sits in, and to no other (there it is an anonymous visitor)."""

from __future__ import annotations

from typing import Any

from accounts.guests import GUEST_COOKIE, guest_id_from_cookie
from accounts.models import Member
from accounts.sessions import SignedInCheck


def seated_guest(*, match_id: int, guest_id: int) -> Member | None:
    """The guest, freshly read, while it is one and sits in ``match_id``; else None. One
    statement."""
    return Member.objects.filter(
        pk=guest_id, membership=Member.Membership.GUEST, seats__match_id=match_id
    ).first()


def guest_from_scope(scope: dict[str, Any]) -> int | None:
    """The guest id the socket's cookie names (its signature checked; nothing read)."""
    return guest_id_from_cookie((scope.get("cookies") or {}).get(GUEST_COOKIE))


class GuestSeatCheck(SignedInCheck):
    """The standing check of a guest's socket, in place of a session's: the guest stands
    while it is a guest (not retired by a sign-up, nor swept) seated in this match."""

    def __init__(self, *, guest_id: int, match_id: int) -> None:
        super().__init__(session_key=None, member_id=guest_id)
        self.match_id = match_id

    def member(self) -> Any | None:
        return seated_guest(match_id=self.match_id, guest_id=self.member_id)
