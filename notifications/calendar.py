"""Fixtures as iCalendar (RFC 5545) with the ``icalendar`` library: the attachment of a
"fixture scheduled" email, and the events a calendar feed can list."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from icalendar import Calendar, Event

#: How long a fixture's event lasts in a calendar: the hour around its kick-off (the match
#: itself runs for days, a turn at a time).
EVENT_LENGTH = timedelta(hours=1)


def fixture_event(*, match_id: int, name: str, kickoff_at: datetime, url: str) -> Event:
    """One fixture's kick-off as a VEVENT, with a stable UID (a later copy replaces it)."""
    event = Event()
    event.add("uid", f"match-{match_id}@{settings.CALENDAR_UID_DOMAIN}")
    event.add("dtstamp", timezone.now())
    event.add("dtstart", kickoff_at)
    event.add("dtend", kickoff_at + EVENT_LENGTH)
    event.add("summary", f"Kick-off: {name}")
    event.add("description", f"Word Duel fixture {name}. Open the board: {url}")
    event.add("url", url)
    return event


def calendar_of(events: list[Event]) -> Calendar:
    cal = Calendar()
    cal.add("prodid", "-//Word Duel//notifications//EN")
    cal.add("version", "2.0")
    cal.add("method", "PUBLISH")
    for event in events:
        cal.add_component(event)
    return cal


def fixture_calendar(*, match_id: int, name: str, kickoff_at: datetime, url: str) -> bytes:
    """The ``.ics`` of one fixture."""
    event = fixture_event(match_id=match_id, name=name, kickoff_at=kickoff_at, url=url)
    return calendar_of([event]).to_ical()
