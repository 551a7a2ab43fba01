"""Template tags the match and tournament pages include, so those pages' views need not
know about notifications: the "next match where it's my move" bar, and the address of a
tournament's calendar for whoever looks."""

from __future__ import annotations

from typing import Any

from django import template
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from accounts.models import Member
from matches import selectors, visibility
from matches.models import Tournament
from notifications import feeds

register = template.Library()


@register.inclusion_tag("notifications/_next_move.html", takes_context=True)
def next_move_bar(context: template.Context, match_id: int) -> dict[str, Any]:
    """For a signed-in member: the button to the next board waiting (hidden while none
    other does; ``your_move.js`` keeps it current) and the offer of browser notifications."""
    user = context.get("user")
    if not isinstance(user, Member):
        return {"member": False}
    others = [line for line in selectors.matches_waiting_on(user) if line.id != match_id]
    return {"member": True, "match_id": match_id, "others": len(others)}


@register.simple_tag(takes_context=True)
def tournament_calendar_url(context: template.Context, tournament: Tournament) -> str:
    """The public feed when anyone may see the tournament; else the member's own address
    for it (their secret), or nothing for a visitor."""
    request = context.get("request")
    if request is None:
        return ""
    if visibility.can_view_tournament(tournament, AnonymousUser()):
        path = reverse("notifications:calendar-tournament", args=[tournament.pk])
    elif isinstance(request.user, Member):
        feed = feeds.feed_of(request.user)
        path = reverse(
            "notifications:calendar-member-tournament",
            args=[request.user.pk, feed.secret, tournament.pk],
        )
    else:
        return ""
    return str(request.build_absolute_uri(path))
