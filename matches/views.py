"""Pages. Thin: parse with a form, read through selectors/visibility, change through services.

Every refusal from a service is shown with its own message and the status the refusal carries
(400 bad input, 403 not allowed, 409 a seat no longer available); none is a 500. A match is
read through ``visibility.access_match``, as the API and the socket read it: one the viewer
may not watch is a 404, so its existence is not revealed to outsiders.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts import guests
from accounts.models import Member
from matches import api, selectors, services, visibility
from matches.forms import TakeSeatForm


def _member(request: HttpRequest) -> Member:
    """The signed-in member of a view that requires one (its decorator made sure)."""
    assert isinstance(request.user, Member)
    return request.user


def home(request: HttpRequest) -> HttpResponse:
    """Upcoming, live and recently finished matches the visitor may watch."""
    return render(request, "matches/home.html", selectors.home_lists(request.user))


@login_required
def my_matches(request: HttpRequest) -> HttpResponse:
    """The signed-in member's own matches, most urgent first, with whose move and until when."""
    return render(
        request, "matches/my_matches.html", {"rows": selectors.my_match_lines(_member(request))}
    )


# ---------------------------------------------------------------- a match


def _access(request: HttpRequest, match_id: int, raw_key: object) -> visibility.MatchAccess:
    """The match as this visitor may see it, or 404 (never revealing that it exists); a
    browser's guest sees its own games against the computer (``accounts.guests``)."""
    try:
        return services.look_at_match(
            user=guests.viewer(request), match_id=match_id, key=visibility.viewing_key(raw_key)
        )
    except visibility.MatchNotFound:
        raise Http404("No such match.") from None


def _match_url(match_id: int, key: str | None = None) -> str:
    url = reverse("match", args=[match_id])
    return f"{url}?{urlencode({'key': key})}" if key else url


def _render_match(
    request: HttpRequest,
    access: visibility.MatchAccess,
    key: str | None,
    *,
    status: int = 200,
    error: str = "",
) -> HttpResponse:
    page = visibility.match_page(access)
    match_id = access.match.id
    has_key = access.viewer.has_key
    share_url = (
        request.build_absolute_uri(_match_url(match_id, page.viewing_key)) if page.can_share else ""
    )
    context: dict[str, Any] = {
        "m": page,
        "share_url": share_url,
        "key": key if has_key else "",
        "error": error,
        # Seated approved members, linked to their pages (names this viewer already sees).
        "player_pages": [
            (seat.member.label, seat.member.username)
            for seat in access.seats
            if seat.member is not None and seat.member.is_club_member
        ],
        "sign_in_url": reverse("accounts:sign-in")
        + "?"
        + urlencode({"next": _match_url(match_id, key if has_key else None)}),
    }
    return render(request, "matches/match.html", context, status=status)


def _refused(
    request: HttpRequest, match_id: int, key: str | None, error: services.ServiceError
) -> HttpResponse:
    """A refusal shown on the match page with its own message and status."""
    return _render_match(
        request, _access(request, match_id, key), key, status=error.status, error=str(error)
    )


def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match page. Any deadline that has passed is applied first (time is data)."""
    access = _access(request, match_id, request.GET.get("key"))
    return _render_match(request, access, visibility.viewing_key(request.GET.get("key")))


def match_export_gcg(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match as a GCG file for the visitor: their own racks only, as during play."""
    access = _access(request, match_id, request.GET.get("key"))
    return api.gcg_download(access, not_dealt=Http404("This match has no moves to export yet."))


def match_verification_file(request: HttpRequest, match_id: int) -> HttpResponse:
    """The finished match's record for this visitor plus a small script that checks its bag
    and turn chain offline (Python's standard library only); 404 before the end."""
    access = _access(request, match_id, request.GET.get("key"))
    text = visibility.verification_file(access)
    if text is None:
        raise Http404("This match can be checked once it is over.")
    response = HttpResponse(text, content_type="text/x-python; charset=utf-8")
    filename = f"verify-match-{match_id}.py"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_POST
def match_take_seat(request: HttpRequest, match_id: int) -> HttpResponse:
    """Take a free seat (the posted one, or the first free)."""
    key = visibility.viewing_key(request.POST.get("key"))
    access = _access(request, match_id, key)
    form = TakeSeatForm(request.POST)
    if not form.is_valid():
        return _render_match(request, access, key, status=400, error="Choose First or Second.")
    try:
        taken = services.match_take_seat(
            match_id=match_id, member=request.user, position=form.cleaned_data["position"]
        )
    except services.ServiceError as error:
        return _refused(request, match_id, key, error)
    messages.success(request, f"You are seated as {taken.seat.get_position_display()}.")
    return redirect(_match_url(match_id))


@require_POST
def match_new_key(request: HttpRequest, match_id: int) -> HttpResponse:
    """Replace the viewing key; every link carrying the old one stops working."""
    key = visibility.viewing_key(request.POST.get("key"))
    _access(request, match_id, key)
    try:
        services.match_rotate_viewing_key(match_id=match_id, member=request.user)
    except services.ServiceError as error:
        return _refused(request, match_id, key, error)
    messages.success(request, "A new viewing key is in place; the old link no longer works.")
    return redirect(_match_url(match_id))
