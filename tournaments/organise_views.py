"""The organisers' fixture list (``/organise/fixtures/``) and its actions.

The list filters fixtures by status, tournament, player and kick-off range; each row offers
what its state allows: reschedule, cancel, substitute a player, adjudicate or void; a
tournament's list also postpones a round. Plain forms that work without JavaScript. Each
action view parses its form and calls exactly one service; a refusal (or a form error) is
shown on the list itself with the refusal's status, never a 500; success goes back to the
list as it was filtered. Organisers only, as on the Organise page: anyone else gets 403.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.models import ORGANISER_PERMISSION, Member
from matches import services
from matches.models import Match, Seat, Tournament
from tournaments import organise_selectors
from tournaments import services as tournament_services
from tournaments.forms import MEMBER_DATALIST
from tournaments.organise_forms import (
    RULING_LABELS,
    AdjudicateForm,
    CancelForm,
    FixtureFilterForm,
    PostponeForm,
    RescheduleForm,
    SubstituteForm,
)
from tournaments.services.organising import MAX_POSTPONE_DAYS

organiser_only = permission_required(ORGANISER_PERMISSION, raise_exception=True)


def _member(request: HttpRequest) -> Member:
    assert isinstance(request.user, Member)
    return request.user


def _list_url() -> str:
    return reverse("organise-fixtures")


def _filters_of(request: HttpRequest) -> QueryDict:
    """The list's filters an action form carried back (its ``back`` field: a query string)."""
    back = request.POST.get("back", "")
    return QueryDict(back.lstrip("?")[:2000])


def _render_list(
    request: HttpRequest,
    filters: QueryDict,
    *,
    refusal: str | None = None,
    refused_match: int | None = None,
    status: int = 200,
) -> HttpResponse:
    form = FixtureFilterForm(filters or None)
    rows: list[organise_selectors.FixtureRow] = []
    tournament: Tournament | None = None
    former_member: Member | None = None
    if not filters or form.is_valid():
        kwargs = form.selector_kwargs() if filters else {}
        rows = organise_selectors.fixture_rows(**kwargs, viewer=_member(request))
        tournament = kwargs.get("tournament")
        player = kwargs.get("member")
        if player is not None and not player.is_club_member:
            former_member = player
    elif status == 200:
        status = 400
    context = {
        "filter_form": form,
        "rows": rows,
        "limit": organise_selectors.FIXTURE_LIST_LIMIT,
        "back": filters.urlencode(),
        "tournament": tournament,
        "former_member": former_member,
        "postponable_rounds": (
            organise_selectors.postponable_rounds(tournament) if tournament else []
        ),
        "refusal": refusal,
        "refused_match": refused_match,
        "rulings": list(RULING_LABELS.items()),
        "positions": Seat.Position.choices,
        "datalist_id": MEMBER_DATALIST,
        "max_postpone_hours": MAX_POSTPONE_DAYS * 24,
    }
    return render(request, "matches/organise_fixtures.html", context, status=status)


@require_GET
@organiser_only
def organise_fixtures(request: HttpRequest) -> HttpResponse:
    """The fixture list, filtered as the query string asks (a bad filter is a form error)."""
    return _render_list(request, request.GET)


def _form_errors(form: forms.Form) -> str:
    return " ".join(str(error) for errors in form.errors.values() for error in errors)


def _act(
    request: HttpRequest,
    form: forms.Form,
    call: Callable[[dict[str, Any]], str],
    *,
    match_id: int | None = None,
) -> HttpResponse:
    """Run one action: the form's errors or the service's refusal on the list, or back to
    the list with ``call``'s message of success."""
    filters = _filters_of(request)
    if not form.is_valid():
        return _render_list(
            request, filters, refusal=_form_errors(form), refused_match=match_id, status=400
        )
    try:
        done = call(form.cleaned_data)
    except services.ServiceError as error:
        return _render_list(
            request, filters, refusal=error.message, refused_match=match_id, status=error.status
        )
    messages.success(request, done)
    query = filters.urlencode()
    return redirect(f"{_list_url()}?{query}" if query else _list_url())


def _fixture(match_id: int) -> Match:
    return get_object_or_404(Match, pk=match_id)


@require_POST
@organiser_only
def fixture_reschedule(request: HttpRequest, match_id: int) -> HttpResponse:
    """Move a fixture's kick-off: ``tournament_services.fixture_reschedule``."""
    match = _fixture(match_id)

    def call(data: dict[str, Any]) -> str:
        tournament_services.fixture_reschedule(
            organiser=_member(request),
            match_id=match.id,
            kickoff_at=data["kickoff_at"],
            reason=data["reason"],
        )
        return f"Rescheduled {match.name}."

    return _act(request, RescheduleForm(request.POST), call, match_id=match.id)


@require_POST
@organiser_only
def fixture_cancel(request: HttpRequest, match_id: int) -> HttpResponse:
    """Cancel a fixture before kick-off: ``tournament_services.fixture_cancel``."""
    match = _fixture(match_id)

    def call(data: dict[str, Any]) -> str:
        tournament_services.fixture_cancel(
            organiser=_member(request), match_id=match.id, reason=data["reason"]
        )
        return f"Cancelled {match.name}."

    return _act(request, CancelForm(request.POST), call, match_id=match.id)


@require_POST
@organiser_only
def fixture_substitute(request: HttpRequest, match_id: int) -> HttpResponse:
    """Replace a seat's player before kick-off: ``tournament_services.fixture_substitute``."""
    match = _fixture(match_id)

    def call(data: dict[str, Any]) -> str:
        tournament_services.fixture_substitute(
            organiser=_member(request),
            match_id=match.id,
            position=data["position"],
            member_id=data["member"].pk,
            reason=data["reason"],
        )
        return (
            f"{data['member']} now plays {Seat.Position(data['position']).label} in {match.name}."
        )

    return _act(request, SubstituteForm(request.POST), call, match_id=match.id)


@require_POST
@organiser_only
def match_adjudicate(request: HttpRequest, match_id: int) -> HttpResponse:
    """Rule on a live match (a win, a draw, or void): ``tournament_services.match_adjudicate``."""
    match = _fixture(match_id)

    def call(data: dict[str, Any]) -> str:
        tournament_services.match_adjudicate(
            organiser=_member(request),
            match_id=match.id,
            ruling=data["ruling"],
            reason=data["reason"],
        )
        return f"{match.name}: {RULING_LABELS[data['ruling']].lower()}."

    return _act(request, AdjudicateForm(request.POST), call, match_id=match.id)


@require_POST
@organiser_only
def round_postpone(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Put a tournament round back: ``tournament_services.round_postpone``."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    form = PostponeForm(request.POST)

    def call(data: dict[str, Any]) -> str:
        moved = tournament_services.round_postpone(
            organiser=_member(request),
            tournament_id=tournament.id,
            round_number=data["round_number"],
            by=form.interval(),
            reason=data["reason"],
            carry_later=data["carry_later"],
        )
        count = len(moved)
        fixtures = "fixture" if count == 1 else "fixtures"
        rounds = " and the later rounds" if data["carry_later"] else ""
        return (
            f"Postponed round {data['round_number']}{rounds} of {tournament.name}: "
            f"{count} {fixtures}."
        )

    return _act(request, form, call)
