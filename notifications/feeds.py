"""Calendar feeds: a member's fixtures at a secret address, and a tournament's fixtures.

A feed is read by a calendar app, which cannot sign in: the member's feed is opened by
their id and secret together (``CalendarFeed``; rotating the secret ends the old address),
a tournament's by anyone when every fixture of it is public (``visibility`` decides, as for
its page), and otherwise only through a member's secret. Each feed lists what that reader
may see and nothing more: public facts of the matches (names, kick-offs, results), and, in
a member's own feed, the deadline of each turn that is theirs.
"""

from __future__ import annotations

import hmac
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.db.models import Count
from django.urls import reverse
from icalendar import Event

from accounts.models import Member
from matches import selectors, visibility
from matches.models import Match, Tournament
from notifications import calendar
from notifications.content import absolute
from notifications.models import CalendarFeed

#: The most fixtures one feed lists (the latest kick-offs); calendars want what is coming.
MAX_EVENTS = 500


class FeedNotFound(LookupError):
    """No such feed for this reader (answered 404, never saying which part was wrong)."""


def feed_of(member: Member) -> CalendarFeed:
    """The member's calendar address, made the first time it is asked for."""
    feed, _ = CalendarFeed.objects.get_or_create(member=member)
    return feed


def rotate_secret(member: Member) -> CalendarFeed:
    """A new secret for the member's feeds; every address with the old one stops working."""
    with transaction.atomic():
        feed = feed_of(member)
        feed = CalendarFeed.objects.select_for_update().get(pk=feed.pk)
        feed.secret = CalendarFeed._meta.get_field("secret").get_default()
        feed.save(update_fields=["secret", "rotated_at"])
    return feed


def member_by_secret(member_id: int, secret: str) -> Member:
    """The member whose current secret this is (compared in constant time)."""
    feed = CalendarFeed.objects.select_related("member").filter(member_id=member_id).first()
    if feed is None or not feed.member.is_active:
        raise FeedNotFound(member_id)
    if not hmac.compare_digest(feed.secret.encode(), secret.encode()):
        raise FeedNotFound(member_id)
    return feed.member


def _match_url(match_id: int) -> str:
    return absolute(reverse("match", args=[match_id]))


def _started(match: Match) -> Any:
    """When the fixture kicks off (or did, if it started when both seats were taken)."""
    return match.kickoff_at or match.opened_at


def _kickoffs(matches: list[Match], *, member_id: int | None) -> list[Event]:
    events = []
    for match in matches:
        start = _started(match)
        if start is None:
            continue  # starts when both seats are taken: no time to put in a calendar
        line = visibility.match_line(match, member_id=member_id)
        facts = []
        if member_id is not None:
            facts.append(f"Against {line.opponent}." if line.opponent else "A seat is free.")
        else:
            facts.append(" v ".join(seat.name or f"{seat.label} (free)" for seat in line.seats))
        if line.outcome:
            facts.append(f"You {line.outcome} ({line.end_reason_label}).")
        elif line.result_text:
            facts.append(f"Result: {line.result_text}.")
        events.append(
            calendar.kickoff_event(
                match_id=match.id,
                name=line.name,
                kickoff_at=start,
                url=_match_url(match.id),
                facts=facts,
                cancelled=match.status == Match.Status.ABANDONED,
                begun_at_once=match.kickoff_at is None,
                sequence=calendar.event_sequence(
                    organiser_changes=getattr(match, "organiser_changes", 0),
                    abandoned=match.end_reason == Match.EndReason.ABANDONED,
                ),
            )
        )
    return events


def _latest(matches: Any) -> list[Match]:
    return list(
        matches.exclude(kickoff_at__isnull=True, opened_at__isnull=True)
        .select_related("tournament")
        .prefetch_related("seats__member")
        .annotate(organiser_changes=Count("organiser_actions", distinct=True))
        .order_by("-kickoff_at", "-opened_at", "-id")[:MAX_EVENTS]
    )


def member_feed(member: Member) -> bytes:
    """The member's fixtures (kick-offs) and the deadline of every turn that is theirs."""
    mine = _latest(visibility.visible_matches(member).filter(seats__member=member))
    events = _kickoffs(mine, member_id=member.pk)
    waiting = [w for w in selectors.matches_waiting_on(member) if w.turn_deadline_at]
    turns = dict(
        Match.objects.filter(pk__in=[w.id for w in waiting]).values_list("id", "turn_number")
    )
    for line in waiting:
        assert line.turn_deadline_at is not None
        events.append(
            calendar.deadline_event(
                match_id=line.id,
                name=line.name,
                deadline=line.turn_deadline_at,
                turn_number=turns.get(line.id, 0),
                url=_match_url(line.id),
            )
        )
    return calendar.feed_calendar(name=f"Word Duel: {member.username}'s matches", events=events)


def tournament_feed(tournament_id: int, *, reader: Member | None) -> bytes:
    """A tournament's fixtures for ``reader`` (None: anyone, by the public address).

    A tournament that has a members-only fixture has no public feed (its page is not
    public either); a member's secret opens it, listing what members may see."""
    user: Member | AnonymousUser = reader if reader is not None else AnonymousUser()
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or not visibility.can_view_tournament(tournament, user):
        raise FeedNotFound(tournament_id)
    fixtures = _latest(visibility.visible_matches(user).filter(tournament=tournament))
    return calendar.feed_calendar(
        name=f"Word Duel: {tournament.name}", events=_kickoffs(fixtures, member_id=None)
    )
