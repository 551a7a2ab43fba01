"""A member's matches in "download my data": each one's facts, and its GCG record.

Registered with :mod:`accounts.data_export` by ``MatchesConfig.ready()``. Read as the player
they were, through ``visibility`` (the one door out): a player may hold the match's viewing
link (its share link), so a members-only match stays theirs after they leave the club.
"""

from __future__ import annotations

import zipfile
from typing import Any

from matches import services, visibility
from matches.models import Seat


def matches_part(member: Any, archive: zipfile.ZipFile) -> dict[str, Any]:
    """Write each of the member's matches as GCG; list them for ``profile.json``."""
    seats = Seat.objects.filter(member=member).select_related("match").order_by("match_id")
    matches = []
    for seat in seats:
        match = seat.match
        access = services.look_at_match(user=member, match_id=match.id, key=match.viewing_key)
        matches.append(
            {
                "id": match.id,
                "name": visibility.match_title(access.match, access.seats),
                "seat": seat.position,
                "status": match.status,
                "result": match.result,
                "end_reason": match.end_reason,
                "kickoff_at": match.kickoff_at.isoformat() if match.kickoff_at else None,
            }
        )
        gcg = visibility.gcg_for(access)
        if gcg:
            archive.writestr(f"matches/match-{match.id}.gcg", gcg)
    return {"matches": matches}
