"""Fixtures as iCalendar (RFC 5545) with the ``icalendar`` library: the attachment of a
"fixture scheduled" email, and the events of the calendar feeds (``notifications.feeds``).

Every event has a stable UID (``match-<id>@...`` for a kick-off, ``match-<id>-move@...``
for the member's current deadline), so a calendar app that reads a feed again, or imports
a fixture's attachment, replaces its copy instead of adding another. A kick-off's
``SEQUENCE`` grows with every organiser's change to the fixture (:func:`event_sequence`), so
a calendar app takes a moved, re-seated or cancelled fixture's event over the copy it has.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from icalendar import Calendar, Event

from matches.models import Match, OrganiserAction

#: How long a fixture's event lasts in a calendar: the hour around its kick-off (the match
#: itself runs for days, a turn at a time).
EVENT_LENGTH = timedelta(hours=1)
#: A deadline's event: the hour before it (time to move), ending when the turn runs out.
DEADLINE_LENGTH = timedelta(hours=1)
#: How often a subscribed calendar app should read the feed again (RFC 7986, and Outlook's
#: older ``X-PUBLISHED-TTL``).
REFRESH = timedelta(hours=1)


def event_sequence(*, organiser_changes: int, abandoned: bool) -> int:
    """A kick-off event's SEQUENCE (RFC 5545: a calendar keeps the copy with the highest):
    one for each organiser's change to the fixture (a new kick-off, a new player, a
    cancellation or ruling), and one more when it ended with both seats empty (cancelled
    without one). It only ever grows."""
    return organiser_changes + (1 if abandoned else 0)


def calendar_sequence(match: Match) -> int:
    """The SEQUENCE of ``match``'s kick-off event now (:func:`event_sequence`)."""
    return event_sequence(
        organiser_changes=OrganiserAction.objects.filter(match=match).count(),
        abandoned=match.end_reason == Match.EndReason.ABANDONED,
    )


def fixture_event(
    *,
    match_id: int,
    name: str,
    kickoff_at: datetime,
    url: str,
    sequence: int = 0,
    cancelled: bool = False,
) -> Event:
    """One fixture's kick-off as a VEVENT, with a stable UID (a later copy replaces it) and
    its SEQUENCE; ``STATUS:CANCELLED`` once it will not be played."""
    event = Event()
    event.add("uid", f"match-{match_id}@{settings.CALENDAR_UID_DOMAIN}")
    event.add("dtstamp", timezone.now())
    event.add("sequence", sequence)
    if cancelled:
        event.add("status", "CANCELLED")
    event.add("dtstart", kickoff_at)
    event.add("dtend", kickoff_at + EVENT_LENGTH)
    event.add("summary", f"Kick-off: {name}")
    event.add("description", f"Word Duel fixture {name}. Open the board: {url}")
    event.add("url", url)
    return event


def kickoff_event(
    *,
    match_id: int,
    name: str,
    kickoff_at: datetime,
    url: str,
    facts: list[str],
    cancelled: bool,
    sequence: int = 0,
    begun_at_once: bool = False,
) -> Event:
    """A feed's kick-off event: the fixture's event (same UID and SEQUENCE as the emails'
    attachments), its description telling what is publicly known now (opponent, result),
    free time (a match is played over days), cancelled when nobody played it. A match with
    no kick-off time (``begun_at_once``: it began when both seats were taken) is named as
    begun, as its notices name it, never as kicked off."""
    event = fixture_event(
        match_id=match_id, name=name, kickoff_at=kickoff_at, url=url, sequence=sequence
    )
    if begun_at_once:
        event.pop("SUMMARY")
        event.add("summary", f"Began: {name}")
    event.pop("DESCRIPTION")
    event.add("description", "\n".join([f"Word Duel fixture {name}.", *facts, url]))
    event.add("transp", "TRANSPARENT")
    event.add("status", "CANCELLED" if cancelled else "CONFIRMED")
    return event


def deadline_event(
    *, match_id: int, name: str, deadline: datetime, turn_number: int, url: str
) -> Event:
    """The member's current turn deadline in a match as a VEVENT: one UID per match, its
    SEQUENCE the turn, so the event moves with each new turn of theirs."""
    event = Event()
    event.add("uid", f"match-{match_id}-move@{settings.CALENDAR_UID_DOMAIN}")
    event.add("dtstamp", timezone.now())
    event.add("sequence", turn_number)
    event.add("dtstart", deadline - DEADLINE_LENGTH)
    event.add("dtend", deadline)
    event.add("summary", f"Your move is due: {name}")
    event.add(
        "description",
        f"It is your move in {name}. Move before this event ends, or you forfeit.\n{url}",
    )
    event.add("url", url)
    event.add("transp", "TRANSPARENT")
    return event


def calendar_of(events: list[Event]) -> Calendar:
    cal = Calendar()
    cal.add("prodid", "-//Word Duel//notifications//EN")
    cal.add("version", "2.0")
    cal.add("method", "PUBLISH")
    for event in events:
        cal.add_component(event)
    return cal


def feed_calendar(*, name: str, events: list[Event]) -> bytes:
    """A subscribable calendar: named, with how often to read it again."""
    cal = calendar_of(events)
    cal.add("name", name)
    cal.add("x-wr-calname", name)
    cal.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", REFRESH)
    return cal.to_ical()


def fixture_calendar(
    *,
    match_id: int,
    name: str,
    kickoff_at: datetime,
    url: str,
    sequence: int = 0,
    cancelled: bool = False,
) -> bytes:
    """The ``.ics`` of one fixture (an email's attachment)."""
    event = fixture_event(
        match_id=match_id,
        name=name,
        kickoff_at=kickoff_at,
        url=url,
        sequence=sequence,
        cancelled=cancelled,
    )
    return calendar_of([event]).to_ical()
