"""Reads for the rounds lobby (rounds/views.py ``lobby``): the open matches a member may join
and the member's own. Public fields only (name, host, status, how many joined): nothing of
a game's position, trays or bag is read here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count

from rounds.models import RoundsMatch

#: The most rows each list shows.
LIMIT = 50


@dataclass(frozen=True)
class LobbyRow:
    """One rounds match in a lobby list."""

    id: int
    name: str
    host: str
    status: str
    players: int
    joined: bool


def _member_id(user: Any) -> int | None:
    return user.pk if getattr(user, "is_authenticated", False) else None


def _rows(matches: Any, member_id: int | None) -> list[LobbyRow]:
    mine = set()
    if member_id is not None:
        mine = set(
            RoundsMatch.objects.filter(
                pk__in=[m.pk for m in matches], players__member_id=member_id
            ).values_list("pk", flat=True)
        )
    return [
        LobbyRow(
            id=m.pk,
            name=m.name,
            host=str(m.host),
            status=m.status,
            players=m.player_count,
            joined=m.pk in mine,
        )
        for m in matches
    ]


def open_matches(user: Any) -> list[LobbyRow]:
    """Open rounds matches (not started yet), newest first, whether ``user`` is in each."""
    matches = list(
        RoundsMatch.objects.filter(status=RoundsMatch.Status.OPEN)
        .select_related("host")
        .annotate(player_count=Count("players"))
        .order_by("-created_at", "-id")[:LIMIT]
    )
    return _rows(matches, _member_id(user))


def my_rounds_matches(user: Any) -> list[LobbyRow]:
    """The rounds matches ``user`` plays in, live first, then open, then finished."""
    member_id = _member_id(user)
    if member_id is None:
        return []
    order: dict[str, int] = {
        RoundsMatch.Status.LIVE: 0,
        RoundsMatch.Status.OPEN: 1,
        RoundsMatch.Status.FINISHED: 2,
    }
    matches = list(
        RoundsMatch.objects.annotate(player_count=Count("players", distinct=True))
        .filter(players__member_id=member_id)
        .select_related("host")
        .order_by("-created_at", "-id")[:LIMIT]
    )
    matches.sort(key=lambda m: order.get(m.status, 3))
    return _rows(matches, member_id)
