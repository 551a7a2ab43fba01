"""``{% computer_level match_id %}``: on a practice match's page, the level form for the member
the computer plays (nothing for anyone else)."""

from __future__ import annotations

from typing import Any

from django import template

from practice.models import LEVELS, ComputerOpponent

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
    }


@register.inclusion_tag("practice/_start.html", takes_context=True)
def play_computer_form(context: dict[str, Any]) -> dict[str, Any]:
    """The home page's "Play the computer" form (a level, then the board at once)."""
    return {"practice_levels": LEVELS, "csrf_token": context.get("csrf_token")}
