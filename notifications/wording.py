"""How every notice words time and links: in the member's own time zone, with the site's
address; and :class:`Stale`, a notice that no longer holds and is not sent."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings


@dataclass(frozen=True)
class Stale:
    """Why a notice is not sent after all."""

    reason: str


def absolute(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def local_time(when: datetime, zone: ZoneInfo) -> str:
    """``Tue 14 May 2026, 18:00 CEST``: a moment in the member's own time zone."""
    return when.astimezone(zone).strftime("%a %d %b %Y, %H:%M %Z")


def time_left(delta: timedelta) -> str:
    """``2 days 3 hours``, ``5 hours``, ``40 minutes``."""
    minutes = max(0, int(delta.total_seconds() // 60))
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = []
    if days:
        parts.append(f"{days} day{'s' if days != 1 else ''}")
    if hours:
        parts.append(f"{hours} hour{'s' if hours != 1 else ''}")
    if not days and (minutes or not hours):
        parts.append(f"{minutes} minute{'s' if minutes != 1 else ''}")
    return " ".join(parts)


#: A place in a table, in words ("second"); beyond these, "number 9".
PLACES = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}
PLACES |= {7: "seventh", 8: "eighth"}


def place_outcome(place: int, *, shared: bool, count: int) -> str:
    """A player's place among ``count``: "You won", "You shared first place", "You came
    third of 4", "You shared second of 4"."""
    if place == 1:
        return "You shared first place" if shared else "You won"
    where = PLACES.get(place, f"number {place}")
    return f"You {'shared' if shared else 'came'} {where} of {count}"
