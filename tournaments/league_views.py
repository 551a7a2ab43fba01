"""A league's page (its season's divisions with their zones, the earlier seasons) and the
organiser's actions on it: start the next season, withdraw a member after this one. Thin:
a form parses, a service changes, a selector reads; without JavaScript."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.models import ORGANISER_PERMISSION, Member
from common.errors import ServiceError
from tournaments import services
from tournaments.league_forms import LeagueWithdrawForm, NextSeasonForm
from tournaments.league_selectors import can_view_league, league_summary
from tournaments.models import League


def _viewable_league(request: HttpRequest, league_id: int) -> League:
    """The league, if the visitor may see it (``can_view_league``: every division of its
    current season)."""
    league = get_object_or_404(League.objects.select_related("organiser"), pk=league_id)
    if not can_view_league(league, request.user):
        raise Http404("No such league.")
    return league


def _league_page(
    request: HttpRequest,
    league: League,
    *,
    next_form: NextSeasonForm | None = None,
    withdraw_form: LeagueWithdrawForm | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "summary": league_summary(league),
        "next_form": next_form or NextSeasonForm(prefix="next"),
        "withdraw_form": withdraw_form or LeagueWithdrawForm(prefix="withdraw"),
    }
    return render(request, "tournaments/league.html", context, status=status)


def league_detail(request: HttpRequest, league_id: int) -> HttpResponse:
    """The current season's divisions, each table with its promotion and relegation zones
    and a link to the division's tournament page; the earlier seasons; for organisers,
    the next season's and a withdrawal's forms."""
    return _league_page(request, _viewable_league(request, league_id))


def _member(request: HttpRequest) -> Member:
    assert isinstance(request.user, Member)
    return request.user


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def league_next_season(request: HttpRequest, league_id: int) -> HttpResponse:
    """Start the next season through ``services.start_next_season``; a refusal is shown on
    the league page with its status."""
    league = _viewable_league(request, league_id)
    form = NextSeasonForm(request.POST, prefix="next")
    if not form.is_valid():
        return _league_page(request, league, next_form=form, status=400)
    try:
        season = services.start_next_season(
            organiser=_member(request), league_id=league.id, **form.service_kwargs()
        )
    except ServiceError as error:
        form.add_error(None, error.message)
        return _league_page(request, league, next_form=form, status=error.status)
    messages.success(request, f"Started season {season.number}.")
    return redirect("league", league_id=league.id)


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def league_withdraw(request: HttpRequest, league_id: int) -> HttpResponse:
    """Withdraw a member after this season through ``services.withdraw_from_league``."""
    league = _viewable_league(request, league_id)
    form = LeagueWithdrawForm(request.POST, prefix="withdraw")
    if not form.is_valid():
        return _league_page(request, league, withdraw_form=form, status=400)
    member = form.cleaned_data["member"]
    try:
        services.withdraw_from_league(
            organiser=_member(request),
            league_id=league.id,
            member_id=member.pk,
            reason=form.cleaned_data["reason"],
        )
    except ServiceError as error:
        form.add_error(None, error.message)
        return _league_page(request, league, withdraw_form=form, status=error.status)
    messages.success(request, f"{member} will not be in the next season.")
    return redirect("league", league_id=league.id)
