"""``{% match_ratings match_id %}``: on a match's page, the rating changes its result made
(nothing for an unrated match or one not over). Whoever may see the page may see these: a
change says no more than the result does."""

from __future__ import annotations

from typing import Any

from django import template

from matches.models import Match
from ratings.selectors import match_ratings as ratings_of

register = template.Library()


@register.inclusion_tag("ratings/_match_ratings.html", takes_context=True)
def match_ratings(context: dict[str, Any], match_id: int) -> dict[str, Any]:
    match = Match.objects.filter(pk=match_id).first()
    return {
        "ratings": ratings_of(match) if match is not None else None,
        "user": context.get("user"),  # members see each rating before and after
    }
