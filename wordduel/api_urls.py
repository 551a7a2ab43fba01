"""API routes, mounted at ``/api/`` by ``wordduel/urls.py``: ``/api/`` itself leads to the
interactive docs, then django-ninja's (with the word checker's router, ``matches.words``, at
``/api/words/``, the organisers' member picker, ``tournaments.organise_api``, at
``/api/organise/``, and the tournaments' routers, ``tournaments.api``, at
``/api/tournaments/`` and ``/api/leagues/``), then a JSON 404 for every other path under
``/api/`` (a non-numeric id included)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import path, re_path, reverse

from challenges.api import router as challenges_router
from matches.api import api, refusal_response
from matches.schemas import ApiError
from matches.words import router as words_router
from rounds.api import router as rounds_router
from rounds.series_api import router as series_router
from tournaments.api import leagues_router
from tournaments.api import router as tournaments_router
from tournaments.organise_api import router as organise_router

api.add_router("/words", words_router)
api.add_router("/organise", organise_router)
api.add_router("/tournaments", tournaments_router)
api.add_router("/leagues", leagues_router)
api.add_router("/challenges", challenges_router)
api.add_router("/rounds", rounds_router)
api.add_router("/series", series_router)


def api_root(request: HttpRequest) -> HttpResponse:
    """``/api/``: the interactive docs (ninja's own view there only raises a 404)."""
    return redirect(reverse("api:openapi-view"))


def no_such_path(request: HttpRequest, rest: str = "") -> HttpResponse:
    return refusal_response(request, 404, ApiError(error="No such match.", code="not_found"))


urlpatterns = [
    path("", api_root, name="api-index"),
    path("", api.urls),
    re_path(r"^(?P<rest>.*)$", no_such_path),
]
