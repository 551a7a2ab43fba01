"""A member's time zone: chosen on the profile page, kept by whichever app registers itself
the keeper (the notifications app: every email and calendar entry reads it there).

Accounts imports no app above it; the keeper comes to it (:func:`register`, from the
keeper's ``AppConfig.ready()``). With none registered a member's zone is the site's.
"""

from __future__ import annotations

import zoneinfo
from typing import Any, Protocol

from django.conf import settings


class Keeper(Protocol):
    """Where the time zone lives: read it, and change it in the caller's transaction."""

    def time_zone_of(self, member: Any) -> str: ...

    def set_time_zone(self, member: Any, time_zone: str) -> None: ...


_keepers: list[Keeper] = []


def register(keeper: Keeper) -> None:
    """Make ``keeper`` the one place a member's time zone is kept."""
    _keepers[:] = [keeper]


def time_zone_choices() -> list[tuple[str, str]]:
    """Every IANA time zone a member may choose, as (name, label)."""
    names = sorted(zoneinfo.available_timezones() - {"localtime", "Factory"})
    return [(name, name.replace("_", " ")) for name in names]


def time_zone_of(member: Any) -> str:
    """The member's time zone (the site's when no keeper is registered)."""
    return _keepers[0].time_zone_of(member) if _keepers else settings.TIME_ZONE


def set_time_zone(member: Any, time_zone: str) -> None:
    """Keep ``time_zone`` as the member's (a name from :func:`time_zone_choices`)."""
    if _keepers:
        _keepers[0].set_time_zone(member, time_zone)
