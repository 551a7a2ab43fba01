"""Pages: start a practice match (a member's, or a visitor's as a guest), change the
computer's level (its player's, a guest's too), seat the computer. All POST."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts import guests as accounts_guests
from common.addresses import client_address
from practice import guests, services
from practice.tasks import queue_warm_up


@require_POST
@login_required
def start(request: HttpRequest) -> HttpResponse:
    """A live match against the computer at the level chosen, Word Duel or Reword (or a
    practice table: how many seats, how many computers, which challenge rule); straight to
    its board."""
    try:
        match = services.start_practice(
            member=request.user,  # type: ignore[arg-type]
            level=str(request.POST.get("level", "normal")),
            seats=_count(request.POST.get("seats", "2")),
            computers=_count(request.POST.get("computers", "1")),
            challenge_rule=str(request.POST.get("challenge_rule", "void")),
            ruleset=str(request.POST.get("ruleset", "word-duel")),
        )
    except services.PracticeRefused as refusal:
        messages.error(request, refusal.message)
        return redirect("home")
    queue_warm_up()
    return redirect("match", match_id=match.id)


@require_POST
def play_now(request: HttpRequest) -> HttpResponse:
    """ "Play the computer now": a visitor's game at once, as the browser's guest (a new
    guest, and its cookie, on the first game); a signed-in member's practice as usual."""
    if request.user.is_authenticated:
        return start(request)
    try:
        match = guests.start_guest_practice(
            guest_id=accounts_guests.browser_guest_id(request),
            address=client_address(request),
            level=str(request.POST.get("level", "normal")),
        )
    except guests.GuestGameUnfinished as unfinished:
        messages.info(request, unfinished.message)
        return redirect("match", match_id=unfinished.match_id)
    except services.PracticeRefused as refusal:
        messages.error(request, refusal.message)
        return redirect("home")
    queue_warm_up()
    response = redirect("match", match_id=match.id)
    assert match.created_by is not None  # the guest who plays it
    accounts_guests.remember_guest(request, response, match.created_by)
    return response


@require_POST
def level(request: HttpRequest, match_id: int) -> HttpResponse:
    """The computer's level from its next move on: asked by the member it plays, signed in
    or the browser's guest."""
    player = accounts_guests.viewer(request)
    if not player.is_authenticated:
        return redirect_to_login(reverse("match", args=[match_id]))
    try:
        opponent = services.set_level(
            match_id=match_id, member=player, level=str(request.POST.get("level", ""))
        )
    except services.PracticeRefused as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, f"The computer now plays {opponent.get_level_display()}.")
    return redirect("match", match_id=match_id)


@require_POST
@login_required
def seat(request: HttpRequest, match_id: int) -> HttpResponse:
    """An organiser seats the computer in an empty seat of a scheduled fixture."""
    try:
        services.seat_computer(
            match_id=match_id,
            organiser=request.user,  # type: ignore[arg-type]
            position=_position(request.POST.get("position")),
            level=str(request.POST.get("level", "normal")),
        )
    except services.PracticeRefused as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, "The computer has taken the seat.")
    return redirect("match", match_id=match_id)


def _position(raw: object) -> int:
    return {"0": 0, "1": 1}.get(str(raw), -1)


def _count(raw: object) -> int:
    """A small count from a form (0 when it is not one: the service refuses it)."""
    return {"1": 1, "2": 2, "3": 3, "4": 4}.get(str(raw), 0)
