"""Pages: the open challenges and the form to post one; accept, withdraw; the match page's
rematch buttons. Plain HTML forms (POST), no JavaScript needed. A refusal shows its message
(the list page again, with the refusal's HTTP status; or a message on the match page)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from challenges import selectors, services
from challenges.forms import ChallengeForm
from challenges.models import CHALLENGE_LIFETIME
from common.errors import ServiceError
from matches.visibility.access import is_club_member


def _page(
    request: HttpRequest,
    *,
    form: ChallengeForm | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    member = is_club_member(request.user)
    context: dict[str, Any] = {
        "is_member": member,
        "members_only": services.MEMBERS_CHALLENGE,
        "challenges": selectors.open_challenges(request.user),
        "accepted": selectors.accepted_challenges(request.user),
        "form": form or ChallengeForm(),
        "error": error,
        "lifetime_days": CHALLENGE_LIFETIME.days,
    }
    if not member:
        status = 403
    return render(request, "challenges/list.html", context, status=status)


@require_GET
@login_required
def challenge_list(request: HttpRequest) -> HttpResponse:
    """The open challenges a member may accept or withdraw, and the form to post one."""
    return _page(request)


@require_POST
@login_required
def post(request: HttpRequest) -> HttpResponse:
    form = ChallengeForm(request.POST)
    if not form.is_valid():
        return _page(request, form=form, status=400)
    try:
        services.challenge_post(
            member=request.user,
            ruleset=form.cleaned_data["ruleset"],
            rated=form.cleaned_data["rated"],
            opponent_username=form.cleaned_data["opponent"],
        )
    except ServiceError as refusal:
        form.add_error(None, refusal.message)
        return _page(request, form=form, status=refusal.status)
    messages.success(request, "Your challenge is posted.")
    return redirect("challenges:list")


@require_POST
@login_required
def accept(request: HttpRequest, challenge_id: int) -> HttpResponse:
    """Accept: straight to the live match."""
    try:
        match = services.challenge_accept(challenge_id=challenge_id, member=request.user)
    except ServiceError as refusal:
        return _page(request, error=refusal.message, status=refusal.status)
    messages.success(request, "Challenge accepted: the match has begun.")
    return redirect("match", match_id=match.id)


@require_POST
@login_required
def withdraw(request: HttpRequest, challenge_id: int) -> HttpResponse:
    try:
        services.challenge_withdraw(challenge_id=challenge_id, member=request.user)
    except ServiceError as refusal:
        return _page(request, error=refusal.message, status=refusal.status)
    messages.success(request, "Your challenge is withdrawn.")
    return redirect("challenges:list")


def _rematch(request: HttpRequest, match_id: int, service: Any, done: str) -> HttpResponse:
    try:
        state = service(match_id=match_id, member=request.user)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect("match", match_id=match_id)
    if state.rematch is not None:
        messages.success(request, "Rematch agreed: the new match has begun, seats swapped.")
        return redirect("match", match_id=state.rematch.id)
    messages.success(request, done)
    return redirect("match", match_id=match_id)


@require_POST
@login_required
def rematch_offer(request: HttpRequest, match_id: int) -> HttpResponse:
    return _rematch(request, match_id, services.rematch_offer, "Rematch offered.")


@require_POST
@login_required
def rematch_accept(request: HttpRequest, match_id: int) -> HttpResponse:
    return _rematch(request, match_id, services.rematch_accept, "Rematch accepted.")


@require_POST
@login_required
def rematch_decline(request: HttpRequest, match_id: int) -> HttpResponse:
    return _rematch(request, match_id, services.rematch_decline, "Rematch declined.")
