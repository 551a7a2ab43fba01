"""Pages: start a practice match, change the computer's level. Both POST, signed in."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from practice import services
from practice.tasks import queue_warm_up


@require_POST
@login_required
def start(request: HttpRequest) -> HttpResponse:
    """A live match against the computer at the level chosen; straight to its board."""
    try:
        match = services.start_practice(
            member=request.user,  # type: ignore[arg-type]
            level=str(request.POST.get("level", "normal")),
        )
    except services.PracticeRefused as refusal:
        messages.error(request, refusal.message)
        return redirect("home")
    queue_warm_up()
    return redirect("match", match_id=match.id)


@require_POST
@login_required
def level(request: HttpRequest, match_id: int) -> HttpResponse:
    """The computer's level from its next move on."""
    try:
        opponent = services.set_level(
            match_id=match_id,
            member=request.user,  # type: ignore[arg-type]
            level=str(request.POST.get("level", "")),
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
