"""``{% rematch_panel match_id %}``: on a match's page, the rematch offer, accept and decline
buttons for a player of a finished friendly (nothing for anyone else)."""

from __future__ import annotations

from typing import Any

from django import template

from challenges.selectors import rematch_panel as panel_for

register = template.Library()


@register.inclusion_tag("challenges/_rematch.html", takes_context=True)
def rematch_panel(context: dict[str, Any], match_id: int) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    return {"panel": panel_for(match_id, user), "csrf_token": context.get("csrf_token")}
