"""The member's vacation page (/me/vacation/) and a tournament's allowance form."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.models import Member
from common.errors import ServiceError
from matches.models import Tournament
from vacations import selectors, services
from vacations.forms import AllowanceForm, DeclareForm


def _page(request: HttpRequest, form: DeclareForm | None = None, status: int = 200) -> HttpResponse:
    member = request.user
    assert isinstance(member, Member)
    now = timezone.now()
    return render(
        request,
        "vacations/vacation.html",
        {
            "form": form or DeclareForm(),
            "allowances": selectors.allowance_lines(member.pk),
            "vacations": selectors.vacation_lines(member.pk, now),
            "time_zone": selectors.time_zone_of(member.pk),
            "today": selectors.today_for(member.pk, now),
        },
        status=status,
    )


@login_required
def vacation(request: HttpRequest) -> HttpResponse:
    """See the allowance left and one's vacations; a POST declares days away."""
    if request.method != "POST":
        return _page(request)
    form = DeclareForm(request.POST)
    if form.is_valid():
        try:
            declared = services.declare_vacation(
                member=request.user,  # type: ignore[arg-type]
                first_day=form.cleaned_data["first_day"],
                last_day=form.cleaned_data["last_day"],
            )
        except ServiceError as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(
                request, f"Vacation declared: {declared.first_day} to {declared.last_day}."
            )
            return redirect("vacations:mine")
    return _page(request, form, status=400)


@login_required
@require_POST
def cancel(request: HttpRequest, vacation_id: int) -> HttpResponse:
    try:
        services.cancel_vacation(member=request.user, vacation_id=vacation_id)  # type: ignore[arg-type]
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect("vacations:mine")
    messages.success(request, "Vacation cancelled; its days are yours again.")
    return redirect("vacations:mine")


@login_required
def allowance(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A tournament's vacation allowance: organisers change it."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    member = request.user
    assert isinstance(member, Member)
    if tournament is None or not member.is_organiser:
        raise Http404("There is no such tournament.")
    form = AllowanceForm(
        request.POST if request.method == "POST" else None,
        initial={"days": selectors.allowance_of(tournament)},
    )
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                services.set_allowance(
                    organiser=member, tournament_id=tournament.pk, days=form.cleaned_data["days"]
                )
            except ServiceError as refusal:
                form.add_error(None, refusal.message)
            else:
                messages.success(request, "Vacation allowance saved.")
                return redirect("vacations:allowance", tournament_id=tournament.pk)
    return render(
        request,
        "vacations/allowance.html",
        {"tournament": tournament, "form": form, "allowance": selectors.allowance_of(tournament)},
        status=status,
    )
