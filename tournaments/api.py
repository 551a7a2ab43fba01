"""The tournaments' part of the HTTP JSON API (django-ninja), mounted at
``/api/tournaments/`` and ``/api/leagues/`` by ``wordduel/api_urls.py``: a tournament's
standings, a Swiss's rounds, a knockout's bracket, a league's tables. Read-only; each
answers whoever may see the page it mirrors, anyone else a 404."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router

from matches import visibility
from matches.api import NOT_FOUND, ApiRefusal
from matches.models import Tournament
from matches.schemas import Bracket, LeagueView, SwissRounds, TournamentStandings
from tournaments import standings
from tournaments.format_shapes import api_bracket, api_league, api_swiss
from tournaments.league_selectors import can_view_league
from tournaments.models import League

router = Router(tags=["tournaments"])
leagues_router = Router(tags=["tournaments"])


def _viewable_tournament(request: HttpRequest, tournament_id: int) -> Tournament:
    """The tournament, if the caller may see its page; else the 404 a missing one gets."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or not visibility.can_view_tournament(tournament, request.user):
        raise ApiRefusal(404, "not_found", "No such tournament.")
    return tournament


@router.get(
    "/{int:tournament_id}/standings",
    response={200: TournamentStandings, **NOT_FOUND},
    url_name="tournament-standings",
)
def tournament_standings(request: HttpRequest, tournament_id: int) -> TournamentStandings:
    """The tournament's table in its order, to whoever may see its page (members: every
    tournament; others: one whose fixtures are all public); anyone else gets a 404."""
    return standings.api_standings(_viewable_tournament(request, tournament_id))


@router.get(
    "/{int:tournament_id}/swiss",
    response={200: SwissRounds, **NOT_FOUND},
    url_name="tournament-swiss",
)
def tournament_swiss(request: HttpRequest, tournament_id: int) -> SwissRounds:
    """A Swiss's rounds as its page shows them: each round's bye and Gibson, how it was
    paired, the next round. A 404 for a tournament of another format."""
    answer = api_swiss(_viewable_tournament(request, tournament_id))
    if answer is None:
        raise ApiRefusal(404, "not_found", "No such Swiss tournament.")
    return answer


@router.get(
    "/{int:tournament_id}/bracket",
    response={200: Bracket, **NOT_FOUND},
    url_name="tournament-bracket",
)
def tournament_bracket(request: HttpRequest, tournament_id: int) -> Bracket:
    """A knockout's bracket as its page draws it: each round's ties with their seeds,
    games and winner; the champion. A 404 for a tournament of another format."""
    answer = api_bracket(_viewable_tournament(request, tournament_id))
    if answer is None:
        raise ApiRefusal(404, "not_found", "No such knockout tournament.")
    return answer


@leagues_router.get(
    "/{int:league_id}",
    response={200: LeagueView, **NOT_FOUND},
    url_name="league-detail",
)
def league_detail(request: HttpRequest, league_id: int) -> LeagueView:
    """A league as its page shows it, to whoever may see that page (every division of the
    current season visible to them); anyone else gets a 404."""
    league = League.objects.filter(pk=league_id).first()
    if league is None or not can_view_league(league, request.user):
        raise ApiRefusal(404, "not_found", "No such league.")
    return api_league(league)
