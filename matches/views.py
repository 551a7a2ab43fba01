"""Pages. Thin: parse with a form, read through selectors/visibility, change through services.

Every refusal from a service is shown with its own message and a fitting status (400 bad
input, 403 not allowed, 409 a seat no longer available); none is a 500. A members-only match
the viewer may not watch is a 404, so its existence is not revealed to outsiders.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.models import ORGANISER_PERMISSION
from matches import selectors, services, visibility
from matches.forms import FixtureForm, RoundRobinForm, TakeSeatForm
from matches.models import Match, Tournament


def _status_for(error: services.ServiceError) -> int:
    """The HTTP status of a refusal: 403 not allowed, 409 seat gone, 400 otherwise."""
    if isinstance(error, services.NotAllowed):
        return 403
    if isinstance(error, services.SeatUnavailable):
        return 409
    return 400


def home(request: HttpRequest) -> HttpResponse:
    """Upcoming, live and recently finished matches the visitor may watch."""
    return render(request, "matches/home.html", selectors.home_lists(request.user))


@login_required
def my_matches(request: HttpRequest) -> HttpResponse:
    """The signed-in member's own matches, newest first."""
    return render(
        request, "matches/my_matches.html", {"rows": selectors.my_match_rows(request.user)}
    )


# ---------------------------------------------------------------- a match


def _load_match(match_id: int) -> Match:
    return get_object_or_404(
        Match.objects.select_related("tournament").prefetch_related("seats__member"),
        pk=match_id,
    )


def _watchable(request: HttpRequest, match_id: int, key: str | None) -> Match:
    """The match if this visitor may watch it, else 404 (never revealing that it exists)."""
    match = _load_match(match_id)
    if not visibility.can_watch(match, visibility.viewer_for(match, request.user, key)):
        raise Http404("No such match.")
    return match


def _match_url(match: Match, key: str | None = None) -> str:
    url = reverse("match", args=[match.id])
    return f"{url}?{urlencode({'key': key})}" if key else url


def _render_match(
    request: HttpRequest,
    match: Match,
    key: str | None,
    *,
    status: int = 200,
    error: str = "",
) -> HttpResponse:
    viewer = visibility.viewer_for(match, request.user, key)
    page = visibility.match_page(match, viewer)
    share_url = (
        request.build_absolute_uri(_match_url(match, page["viewing_key"]))
        if page["can_share"]
        else ""
    )
    context: dict[str, Any] = {
        "m": page,
        "share_url": share_url,
        "key": key if viewer.has_key else "",
        "error": error,
        "sign_in_url": reverse("accounts:sign-in")
        + "?"
        + urlencode({"next": _match_url(match, key if viewer.has_key else None)}),
    }
    return render(request, "matches/match.html", context, status=status)


def _deadline_due(match: Match) -> bool:
    """Whether a stored deadline (kick-off, no-show, forfeit) has come and may change things.

    Checked without a lock so that watching a match takes none; the service re-checks all
    of it under the lock.
    """
    if match.is_over:
        return False
    now = timezone.now()
    return any(
        moment is not None and moment <= now
        for moment in (
            match.kickoff_at if match.status == Match.Status.SCHEDULED else None,
            match.no_show_at if match.status == Match.Status.SCHEDULED else None,
            match.turn_deadline_at if match.status == Match.Status.LIVE else None,
        )
    )


def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match page. Any deadline that has passed is applied first (time is data)."""
    key = request.GET.get("key") or None
    match = _watchable(request, match_id, key)
    if _deadline_due(match):
        services.match_apply_deadlines(match_id=match.id)
        match = _load_match(match_id)
    return _render_match(request, match, key)


@require_POST
def match_take_seat(request: HttpRequest, match_id: int) -> HttpResponse:
    """Take a free seat (the posted one, or the first free)."""
    key = request.POST.get("key") or None
    match = _watchable(request, match_id, key)
    form = TakeSeatForm(request.POST)
    if not form.is_valid():
        return _render_match(request, match, key, status=400, error="Choose First or Second.")
    try:
        seat = services.match_take_seat(
            match_id=match.id, member=request.user, position=form.cleaned_data["position"]
        )
    except services.ServiceError as error:
        return _render_match(
            request, _load_match(match_id), key, status=_status_for(error), error=str(error)
        )
    messages.success(request, f"You are seated as {seat.get_position_display()}.")
    return redirect(_match_url(match))


@require_POST
def match_new_key(request: HttpRequest, match_id: int) -> HttpResponse:
    """Replace the viewing key; every link carrying the old one stops working."""
    key = request.POST.get("key") or None
    match = _watchable(request, match_id, key)
    try:
        services.match_rotate_viewing_key(match_id=match.id, member=request.user)
    except services.ServiceError as error:
        return _render_match(request, match, key, status=_status_for(error), error=str(error))
    messages.success(request, "A new viewing key is in place; the old link no longer works.")
    return redirect(_match_url(match))


# ---------------------------------------------------------------- tournaments


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Fixtures by round and the standings table."""
    tournament = get_object_or_404(Tournament.objects.select_related("organiser"), pk=tournament_id)
    if not visibility.can_view_tournament(tournament, request.user):
        raise Http404("No such tournament.")
    context = {"tournament": tournament, **selectors.tournament_page(tournament)}
    return render(request, "matches/tournament.html", context)


# ---------------------------------------------------------------- organisers


def _organise_page(
    request: HttpRequest,
    *,
    fixture_form: FixtureForm | None = None,
    round_robin_form: RoundRobinForm | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "fixture_form": fixture_form or FixtureForm(prefix="fixture"),
        "round_robin_form": round_robin_form or RoundRobinForm(prefix="rr"),
    }
    return render(request, "matches/organise.html", context, status=status)


@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise(request: HttpRequest) -> HttpResponse:
    """The organiser's forms: one fixture, or a whole round robin."""
    return _organise_page(request)


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise_fixture(request: HttpRequest) -> HttpResponse:
    """Schedule one fixture through ``services.create_fixture``."""
    form = FixtureForm(request.POST, prefix="fixture")
    if not form.is_valid():
        return _organise_page(request, fixture_form=form, status=400)
    try:
        match = services.create_fixture(organiser=request.user, **form.service_kwargs())
    except services.ServiceError as error:
        form.add_error(None, str(error))
        return _organise_page(request, fixture_form=form, status=_status_for(error))
    messages.success(request, f"Scheduled {match.name}.")
    return redirect(_match_url(match))


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise_round_robin(request: HttpRequest) -> HttpResponse:
    """Create a round-robin tournament through ``services.create_round_robin``."""
    form = RoundRobinForm(request.POST, prefix="rr")
    if not form.is_valid():
        return _organise_page(request, round_robin_form=form, status=400)
    try:
        tournament = services.create_round_robin(organiser=request.user, **form.service_kwargs())
    except services.ServiceError as error:
        form.add_error(None, str(error))
        return _organise_page(request, round_robin_form=form, status=_status_for(error))
    count = tournament.matches.count()
    messages.success(request, f"Created {tournament.name} with {count} fixtures.")
    return redirect("tournament", tournament_id=tournament.id)
