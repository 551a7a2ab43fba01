"""A Word Skill tournament over HTTP (django-ninja), mounted at ``/api/series/``: its sessions
and standings as ``SeriesView`` (``rounds.series_schemas``), for whoever may see the
tournament (``matches.visibility.pages.can_view_tournament``; otherwise a 404 ``not_found``,
as for a tournament that does not exist)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router

from matches.schemas import ApiError
from rounds.series_schemas import SeriesView
from rounds.series_selectors import series_view

router = Router(tags=["rounds series"])

REFUSALS: dict[int | str, Any] = {404: ApiError}


@router.get(
    "/{int:tournament_id}", response={200: SeriesView, **REFUSALS}, url_name="rounds-series"
)
def rounds_series(request: HttpRequest, tournament_id: int) -> SeriesView:
    """A Word Skill tournament: its sessions (kick-off, status, match, top) and its standings
    (each entrant's total over every session, a session missed counting 0, and its
    percentage of the top: the sum of every closed round's best play)."""
    return series_view(user=request.user, tournament_id=tournament_id)
