"""The tournaments' part of the HTTP JSON API (django-ninja), mounted at
``/api/tournaments/`` by ``wordduel/api_urls.py``: a tournament's standings."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router

from matches import visibility
from matches.api import NOT_FOUND, ApiRefusal
from matches.models import Tournament
from matches.schemas import TournamentStandings
from tournaments import standings

router = Router(tags=["tournaments"])


@router.get(
    "/{int:tournament_id}/standings",
    response={200: TournamentStandings, **NOT_FOUND},
    url_name="tournament-standings",
)
def tournament_standings(request: HttpRequest, tournament_id: int) -> TournamentStandings:
    """The tournament's table in its order, to whoever may see its page (members: every
    tournament; others: one whose fixtures are all public); anyone else gets a 404."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or not visibility.can_view_tournament(tournament, request.user):
        raise ApiRefusal(404, "not_found", "No such tournament.")
    return standings.api_standings(tournament)
