"""Who may see a match, and the one way in to read it: :func:`access_match`.

Pages, the API and the socket all ask here. A public match anyone may watch; a members-only
match, approved club members (:func:`is_club_member`: not a sign-up still waiting for an
organiser, nor a removed member) and whoever holds its current viewing key. A match the viewer may
not watch is reported as missing (404 on a page or the API), so its existence is not
revealed; the socket tells the two apart by close code (4403, 4404).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from django.db import connection, transaction
from django.utils import timezone

from matches import away
from matches.away import TimeAway
from matches.models import Match, Seat, Turn

if TYPE_CHECKING:
    from accounts.models import Member

#: A viewing key is 43 URL-safe characters; anything much longer is not one.
MAX_KEY_LENGTH = 128


class Role(StrEnum):
    """The viewer's relation to the match, most privileged first."""

    PLAYER = "player"
    ORGANISER = "organiser"
    MEMBER = "member"
    KEY_HOLDER = "key_holder"
    VISITOR = "visitor"


class MatchNotFound(LookupError):
    """No such match, as far as this viewer may know (a page or the API answers 404)."""


class MatchHidden(MatchNotFound):
    """The match exists but this viewer may not watch it (the socket closes with 4403)."""


def is_club_member(user: Member | Any) -> bool:
    """Whether ``user`` is a member in the rules' sense: signed in *and* approved. The one
    answer to "is this a member?" for watching, seating, pairing and lists."""
    return bool(getattr(user, "is_authenticated", False) and getattr(user, "is_club_member", False))


@dataclass(frozen=True)
class Viewer:
    """Who is looking: an account (or nobody), whether it is an approved member, the key
    they presented, their seat."""

    member_id: int | None = None
    seat: int | None = None
    has_key: bool = False
    is_organiser: bool = False
    #: Approved (:func:`is_club_member`); a pending or removed account is signed in but not.
    is_member: bool = False
    #: A guest (``accounts.guests``): it may watch the matches it sits in, and share none.
    is_guest: bool = False

    @property
    def role(self) -> Role:
        if self.seat is not None:
            return Role.PLAYER
        if self.is_organiser:
            return Role.ORGANISER
        if self.is_member:
            return Role.MEMBER
        return Role.KEY_HOLDER if self.has_key else Role.VISITOR


def viewing_key(raw: object) -> str | None:
    """The viewing key a request presents (``?key=`` or a form field), or None."""
    if not isinstance(raw, str):
        return None
    key = raw.strip()
    return key[:MAX_KEY_LENGTH] if key else None


def key_is_valid(match: Match, key: str | None) -> bool:
    """Constant-time check of a presented viewing key against the current one."""
    return bool(key) and hmac.compare_digest(str(key).encode(), match.viewing_key.encode())


def viewer_for(
    match: Match, user: Member | Any, key: str | None = None, *, seats: list[Seat] | None = None
) -> Viewer:
    """Describe ``user`` (possibly anonymous) looking at ``match`` with ``key``."""
    member_id = user.pk if getattr(user, "is_authenticated", False) else None
    seat = None
    if member_id is not None:
        seated = seats if seats is not None else match.seats.all()
        seat = next((s.position for s in seated if s.member_id == member_id), None)
    return Viewer(
        member_id=member_id,
        seat=seat,
        has_key=key_is_valid(match, key),
        is_organiser=bool(member_id and user.is_organiser),
        is_member=is_club_member(user),
        is_guest=bool(member_id and getattr(user, "is_guest", False)),
    )


def can_watch(match: Match, viewer: Viewer) -> bool:
    """Public matches: anyone. Members-only: approved members, current-key holders and a
    guest seated in it (its own game against the computer)."""
    return (
        match.visibility == Match.Visibility.PUBLIC
        or viewer.is_member
        or viewer.has_key
        or (viewer.is_guest and viewer.seat is not None)
    )


def can_share(match: Match, viewer: Viewer) -> bool:
    """The players and the organiser may copy a members-only match's viewing link (a
    guest none: it may not show members-only play to anyone)."""
    return (
        match.visibility == Match.Visibility.MEMBERS
        and not viewer.is_guest
        and (
            viewer.seat is not None
            or viewer.is_organiser
            or (viewer.member_id is not None and viewer.member_id == match.created_by_id)
        )
    )


def can_rotate_key(match: Match, viewer: Viewer) -> bool:
    """Whether to offer "New viewing key": the organiser of a members-only match."""
    return can_share(match, viewer) and (
        viewer.is_organiser
        or (viewer.member_id is not None and viewer.member_id == match.created_by_id)
    )


@dataclass(frozen=True)
class MatchAccess:
    """A match as one viewer may see it, read as one moment: the row, its seats (with their
    members), its move log and the players' time away (:mod:`matches.away`) all come from
    the same snapshot of the database. Everything a view of the match shows is here, so
    the payloads built from it make no query (a socket builds them on the event loop)."""

    match: Match
    seats: list[Seat]
    turns: list[Turn]
    away: TimeAway
    viewer: Viewer

    @property
    def role(self) -> Role:
        return self.viewer.role


def _read_consistently(match_id: int) -> tuple[Match, list[Seat], list[Turn], TimeAway]:
    """Match, seats, turns and time away in one transaction that sees a single snapshot.

    On PostgreSQL: REPEATABLE READ, READ ONLY, without the row lock, so a reader neither
    waits for a commit nor makes one wait, and never sees a move without its scores.
    """
    outermost = not connection.in_atomic_block  # (inside a transaction, read in that one)
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        match = Match.objects.select_related("tournament").filter(pk=match_id).first()
        if match is None:
            raise MatchNotFound(match_id)
        seats = list(Seat.objects.select_related("member").filter(match=match).order_by("position"))
        turns = list(Turn.objects.filter(match=match).order_by("number"))
        time_away = away.read(match, seats, now=timezone.now())
    return match, seats, turns, time_away


def access_match(*, user: Member | Any, match_id: int, key: str | None) -> MatchAccess:
    """The match ``user`` (holding ``key``) may watch, read consistently as it is stored.

    Reads only: a caller that looks at a match applies the deadlines that have passed
    first (``services.look_at_match``). Raises :class:`MatchNotFound` when there is no such
    match and :class:`MatchHidden` when there is one this viewer may not watch.
    """
    match, seats, turns, time_away = _read_consistently(match_id)
    viewer = viewer_for(match, user, key, seats=seats)
    if not can_watch(match, viewer):
        raise MatchHidden(match_id)
    return MatchAccess(match=match, seats=seats, turns=turns, away=time_away, viewer=viewer)
