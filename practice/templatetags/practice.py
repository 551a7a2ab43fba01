"""``{% computer_level match_id %}``: on a match's page, the computer's level form for the member
it plays, or for an organiser the form that seats it in an empty seat of a scheduled fixture
(nothing for anyone else); ``{% play_computer_form %}``: the home page's start form."""

from __future__ import annotations

from typing import Any

from django import template

from matches.models import Match
from matches.visibility.access import is_club_member
from practice.models import LEVELS, ComputerOpponent
from practice.services import MEMBERS_PRACTISE

register = template.Library()


@register.inclusion_tag("practice/_level.html", takes_context=True)
def computer_level(context: dict[str, Any], match_id: int) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    opponent = ComputerOpponent.objects.filter(match_id=match_id).select_related("match").first()
    plays_it = (
        opponent is not None
        and user is not None
        and user.is_authenticated
        and opponent.match.seats.filter(member_id=user.pk, position=1 - opponent.position).exists()
    )
    return {
        "opponent": opponent if plays_it else None,
        "levels": LEVELS,
        "csrf_token": context.get("csrf_token"),
        "match_id": match_id,
        "free_seats": _free_seats(match_id, user) if opponent is None else [],
    }


def _free_seats(match_id: int, user: Any) -> list[tuple[int, str]]:
    """For an organiser: the empty seats of a scheduled, unrated fixture the computer may
    fill, as (position, label)."""
    if user is None or not user.is_authenticated or not user.is_organiser:
        return []
    match = Match.objects.filter(pk=match_id, status=Match.Status.SCHEDULED, rated=False).first()
    if match is None:
        return []
    return [
        (seat.position, seat.get_position_display())
        for seat in match.seats.filter(member__isnull=True).order_by("position")
    ]


@register.inclusion_tag("practice/_start.html", takes_context=True)
def play_computer_form(context: dict[str, Any]) -> dict[str, Any]:
    """The home page's "Play the computer" form (a level, then the board at once); for an
    account that is not an approved member, why not instead."""
    request = context.get("request")
    return {
        "practice_levels": LEVELS,
        "csrf_token": context.get("csrf_token"),
        "allowed": is_club_member(getattr(request, "user", None)),
        "refusal": MEMBERS_PRACTISE,
    }
