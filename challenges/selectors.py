"""Reads for the challenge pages and the match page's rematch panel (no writes, no locks)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q

from challenges.models import Challenge, RematchOffer
from challenges.services import is_friendly, open_challenge_filter
from matches.models import Match
from matches.services.common import now as _now
from matches.visibility.access import is_club_member


@dataclass(frozen=True)
class ChallengeLine:
    """One open challenge as a viewer sees it in the list."""

    id: int
    poster: str
    opponent: str  # "" when open to any member
    ruleset: str
    rated: bool
    posted_at: datetime
    expires_at: datetime
    yours: bool  # the viewer posted it: may withdraw it
    can_accept: bool


def open_challenges(viewer: Any, *, now: datetime | None = None) -> list[ChallengeLine]:
    """The open, unexpired challenges a member may see: those open to anyone, and those
    addressed to or posted by the viewer. Nothing for anyone but an approved member."""
    if not is_club_member(viewer):
        return []
    now = now or _now()
    rows = (
        Challenge.objects.filter(**open_challenge_filter(now))
        .filter(Q(opponent__isnull=True) | Q(opponent=viewer) | Q(poster=viewer))
        .select_related("poster", "opponent")
        .order_by("-posted_at", "-id")
    )
    return [
        ChallengeLine(
            id=row.pk,
            poster=row.poster.label,
            opponent=row.opponent.label if row.opponent else "",
            ruleset=row.ruleset,
            rated=row.rated,
            posted_at=row.posted_at,
            expires_at=row.expires_at,
            yours=row.poster_id == viewer.pk,
            can_accept=row.poster_id != viewer.pk and is_club_member(row.poster),
        )
        for row in rows
    ]


@dataclass(frozen=True)
class AcceptedLine:
    """A challenge of the viewer's that someone accepted, whose match is still on."""

    match_id: int
    accepted_by: str


def accepted_challenges(viewer: Any) -> list[AcceptedLine]:
    """The viewer's own challenges that were accepted and whose match is not over, newest
    first: the way to the board for a poster who was not there when it began."""
    if not is_club_member(viewer):
        return []
    rows = (
        Challenge.objects.filter(
            poster=viewer,
            status=Challenge.Status.ACCEPTED,
            match__status__in=[Match.Status.SCHEDULED, Match.Status.LIVE],
        )
        .select_related("accepted_by")
        .order_by("-decided_at", "-id")
    )
    return [
        AcceptedLine(
            match_id=row.match_id or 0,
            accepted_by=row.accepted_by.label if row.accepted_by else "a former member",
        )
        for row in rows
    ]


@dataclass(frozen=True)
class RematchPanel:
    """What a player of a finished friendly sees about its rematch, and may do."""

    match_id: int
    #: "none", "offered_by_you", "offered_to_you", "accepted", "declined"; or "not_yet" for a
    #: friendly still being played (the page keeps the panel hidden and shows it live when
    #: the game ends: matches/static/board.js)
    state: str
    rematch_id: int | None = None

    @property
    def can_offer(self) -> bool:
        return self.state == "none"

    @property
    def can_answer(self) -> bool:
        return self.state == "offered_to_you"

    @property
    def can_call_off(self) -> bool:
        return self.state == "offered_by_you"


def _may_become_friendly(match: Match) -> bool:
    """Not over yet, and a friendly if it ends with a result of the board."""
    return not match.is_over and match.tournament_id is None and not match.rated


def rematch_panel(match_id: int, viewer: Any) -> RematchPanel | None:
    """The rematch panel for ``viewer`` on this match: only for one of its two players, an
    approved member, once it is a finished friendly (or, ``not_yet``, while it is one still
    being played); None otherwise."""
    if not is_club_member(viewer):
        return None
    match = Match.objects.filter(pk=match_id).first()
    if match is None or not (is_friendly(match) or _may_become_friendly(match)):
        return None
    players = [seat.member for seat in match.seats.select_related("member")]
    if viewer.pk not in {player.pk for player in players if player is not None}:
        return None
    if not all(player is not None and is_club_member(player) for player in players):
        return None  # (the computer, or a member who left: no rematch to offer)
    if not match.is_over:
        return RematchPanel(match_id, "not_yet")
    offer = RematchOffer.objects.filter(original=match).first()
    if offer is None:
        return RematchPanel(match_id, "none")
    if offer.status == RematchOffer.Status.ACCEPTED:
        return RematchPanel(match_id, "accepted", offer.rematch_id)
    if offer.status == RematchOffer.Status.DECLINED:
        return RematchPanel(match_id, "declined")
    mine = offer.offered_by_id == viewer.pk
    return RematchPanel(match_id, "offered_by_you" if mine else "offered_to_you")
