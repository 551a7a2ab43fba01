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
