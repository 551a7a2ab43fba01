"""A Word Skill tournament's pages: its own page at ``/rounds/series/<id>/`` (sessions,
standings, an entrant's "I'm here" before kick-off) and the organiser's pages at
``/organise/rounds-series/`` (create it; enter members, schedule sessions). Reads through
``rounds.series_selectors`` (one access check), changes through ``rounds.services.series``."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts.models import ORGANISER_PERMISSION
from common.errors import ServiceError
from rounds.models import RoundsSession
from rounds.series_forms import EnterForm, SeriesForm, SessionForm
from rounds.series_schemas import SeriesView
from rounds.series_selectors import series_view
from rounds.services import series


def _view(request: HttpRequest, tournament_id: int) -> SeriesView:
    try:
        return series_view(user=request.user, tournament_id=tournament_id)
    except series.SeriesMissing:
        raise Http404("No such Word Skill tournament.") from None


def series_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The sessions (kick-off, who is there, the match) and the standings."""
    view = _view(request, tournament_id)
    user = request.user
    entered = bool(user.is_authenticated and str(user) in view.entrants)
    context: dict[str, Any] = {
        "view": view,
        "entered": entered,
        "you": str(user) if user.is_authenticated else None,
    }
    return render(request, "rounds/series.html", context)


@require_POST
@login_required
def check_in(request: HttpRequest, tournament_id: int, number: int) -> HttpResponse:
    """An entrant says they are there for session ``number``."""
    _view(request, tournament_id)
    session = RoundsSession.objects.filter(
        series__tournament_id=tournament_id, number=number
    ).first()
    if session is None:
        raise Http404("No such session.")
    try:
        series.check_in(member=request.user, session_id=session.pk)
    except ServiceError as error:
        messages.error(request, str(error))
        return redirect("rounds:series", tournament_id=tournament_id)
    messages.success(request, f"You are in for session {number}.")
    return redirect("rounds:series", tournament_id=tournament_id)


def _organise_detail(
    request: HttpRequest,
    tournament_id: int,
    *,
    enter_form: EnterForm | None = None,
    session_form: SessionForm | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "view": _view(request, tournament_id),
        "enter_form": enter_form or EnterForm(),
        "session_form": session_form or SessionForm(),
    }
    return render(request, "rounds/series_organise.html", context, status=status)


@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise_new(request: HttpRequest) -> HttpResponse:
    """Create a Word Skill tournament: its name, entrants, timers and visibility."""
    form = SeriesForm(request.POST or None, initial={"visibility": "public"})
    if request.method == "POST":
        if form.is_valid():
            try:
                tournament = series.create_rounds_series(
                    organiser=request.user, **form.service_kwargs()
                )
            except ServiceError as error:
                form.add_error(None, str(error))
            else:
                messages.success(request, f"Created {tournament.name}.")
                return redirect("rounds-series-organise", tournament_id=tournament.pk)
        return render(request, "rounds/series_new.html", {"form": form}, status=400)
    return render(request, "rounds/series_new.html", {"form": form})


@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Enter members and schedule sessions."""
    return _organise_detail(request, tournament_id)


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise_enter(request: HttpRequest, tournament_id: int) -> HttpResponse:
    form = EnterForm(request.POST)
    if form.is_valid():
        try:
            series.enter_rounds_series(
                organiser=request.user,
                tournament_id=tournament_id,
                member=form.cleaned_data["username"],
            )
        except ServiceError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"Entered {form.cleaned_data['username']}.")
            return redirect("rounds-series-organise", tournament_id=tournament_id)
    return _organise_detail(request, tournament_id, enter_form=form, status=400)


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise_schedule(request: HttpRequest, tournament_id: int) -> HttpResponse:
    form = SessionForm(request.POST)
    if form.is_valid():
        try:
            session = series.schedule_session(
                organiser=request.user,
                tournament_id=tournament_id,
                kickoff_at=form.cleaned_data["kickoff_at"],
            )
        except ServiceError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"Scheduled session {session.number}.")
            return redirect("rounds-series-organise", tournament_id=tournament_id)
    return _organise_detail(request, tournament_id, session_form=form, status=400)
