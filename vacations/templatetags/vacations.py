"""``{% vacation_allowance tournament %}``: the tournament page's line about days away."""

from __future__ import annotations

from typing import Any

from django import template

from matches.models import Tournament
from vacations.selectors import allowance_of

register = template.Library()


@register.inclusion_tag("vacations/_allowance_line.html", takes_context=True)
def vacation_allowance(context: dict[str, Any], tournament: Tournament) -> dict[str, Any]:
    user = context.get("user")
    return {
        "tournament": tournament,
        "allowance": allowance_of(tournament),
        "can_change": bool(user is not None and getattr(user, "is_organiser", False)),
        "signed_in": bool(user is not None and user.is_authenticated),
    }
