"""Pages: the notification settings, the one-click unsubscribe, a browser's push
subscription (JSON), the service worker, the calendar feeds, and the match page's "your
move" helpers (the next board waiting, the list of waiting matches as JSON). Thin: forms
and pydantic validate, services change."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
    require_safe,
)
from pydantic import ValidationError

from accounts.models import Member
from notifications import feeds, services, your_move
from notifications.errors import NotificationError
from notifications.forms import NotificationSettingsForm
from notifications.models import Kind, PushSubscription
from notifications.schemas import Answer, EndpointIn, SubscriptionIn

SERVICE_WORKER = Path(__file__).resolve().parent / "static" / "notifications" / "sw.js"
MAX_BODY = 4096


def _member(request: HttpRequest) -> Member:
    assert isinstance(request.user, Member)
    return request.user


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    """Which notices by which channel, warnings, digest, quiet hours, time zone."""
    member = _member(request)
    prefs = services.settings_of(member)
    if request.method == "POST":
        form = NotificationSettingsForm(request.POST)
        if form.is_valid():
            services.update_notification_settings(member=member, values=form.values())
            messages.success(request, "Your notification settings are saved.")
            return redirect("notifications:settings")
        status = 400
    else:
        form = NotificationSettingsForm(initial=NotificationSettingsForm.initial_of(prefs))
        status = 200
    context = {
        "form": form,
        "has_email": bool(member.email),
        "push_ready": services.push_configured(),
        "vapid_public_key": settings.VAPID_PUBLIC_KEY,
        "subscriptions": PushSubscription.objects.filter(member=member).count(),
        "calendar_url": _feed_url(request, member),
    }
    return render(request, "notifications/settings.html", context, status=status)


@csrf_exempt  # the signed token is the authority; mail clients post without a session
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows one button (link scanners must not unsubscribe anyone); POST, from that
    button or a mail client's one-click (RFC 8058), turns that notice off by email."""
    try:
        _member_id, kind = services.read_unsubscribe_token(token)
    except NotificationError as error:
        return render(
            request, "notifications/unsubscribe.html", {"error": error.message}, status=400
        )
    label = Kind(Kind.YOUR_MOVE if kind == Kind.DIGEST else kind).label
    if request.method == "GET":
        return render(request, "notifications/unsubscribe.html", {"label": label, "token": token})
    services.unsubscribe(token=token)
    return render(request, "notifications/unsubscribe.html", {"label": label, "done": True})


def _json_body(request: HttpRequest) -> bytes:
    if len(request.body) > MAX_BODY:
        raise NotificationError("That request is too large.")
    return request.body


def _refusal(error: NotificationError) -> JsonResponse:
    answer = Answer(ok=False, code=error.code, message=error.message)
    return JsonResponse(answer.model_dump(), status=error.status)


@login_required
@require_POST
def push_subscribe(request: HttpRequest) -> JsonResponse:
    """Store this browser's push subscription (``PushSubscription.toJSON()``)."""
    try:
        subscription = SubscriptionIn.model_validate_json(_json_body(request))
        services.push_subscribe(
            member=_member(request),
            subscription=subscription,
            user_agent=request.headers.get("User-Agent", ""),
        )
    except ValidationError:
        return _refusal(NotificationError("That is not a push subscription."))
    except NotificationError as error:
        return _refusal(error)
    return JsonResponse(Answer(ok=True).model_dump())


@login_required
@require_POST
def push_unsubscribe(request: HttpRequest) -> JsonResponse:
    """Forget this browser's push subscription."""
    try:
        endpoint = EndpointIn.model_validate_json(_json_body(request))
    except ValidationError:
        return _refusal(NotificationError("That is not a push subscription."))
    except NotificationError as error:
        return _refusal(error)
    services.push_unsubscribe(member=_member(request), endpoint=str(endpoint.endpoint))
    return JsonResponse(Answer(ok=True).model_dump())


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, allowed to control the whole site (``Service-Worker-Allowed``)."""
    response = HttpResponse(SERVICE_WORKER.read_bytes(), content_type="text/javascript")
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"
    return response


# ---------------------------------------------------------------- calendar feeds


def _feed_url(request: HttpRequest, member: Member) -> str:
    feed = feeds.feed_of(member)
    path = reverse("notifications:calendar-member", args=[member.pk, feed.secret])
    return request.build_absolute_uri(path)


def _calendar(body: bytes, *, filename: str, private: bool) -> HttpResponse:
    """An ``.ics`` a calendar app subscribes to: never cached by a shared cache when its
    address is a secret, never indexed, never passing its address on as a referrer."""
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    response["Cache-Control"] = f"{'private' if private else 'public'}, max-age=300"
    response["X-Robots-Tag"] = "noindex"
    response["Referrer-Policy"] = "no-referrer"
    return response


@require_safe
def member_calendar(request: HttpRequest, member_id: int, secret: str) -> HttpResponse:
    """The member's fixtures and deadlines, at their secret address (404 for any other)."""
    try:
        member = feeds.member_by_secret(member_id, secret)
    except feeds.FeedNotFound:
        raise Http404("No such calendar.") from None
    return _calendar(feeds.member_feed(member), filename="wordduel.ics", private=True)


@require_safe
def tournament_calendar(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A tournament's fixtures for anyone, when all of them are public (else 404)."""
    try:
        body = feeds.tournament_feed(tournament_id, reader=None)
    except feeds.FeedNotFound:
        raise Http404("No such calendar.") from None
    return _calendar(body, filename=f"tournament-{tournament_id}.ics", private=False)


@require_safe
def member_tournament_calendar(
    request: HttpRequest, member_id: int, secret: str, tournament_id: int
) -> HttpResponse:
    """A tournament's fixtures through a member's secret (members-only ones included)."""
    try:
        member = feeds.member_by_secret(member_id, secret)
        body = feeds.tournament_feed(tournament_id, reader=member)
    except feeds.FeedNotFound:
        raise Http404("No such calendar.") from None
    return _calendar(body, filename=f"tournament-{tournament_id}.ics", private=True)


@login_required
@require_POST
def rotate_calendar(request: HttpRequest) -> HttpResponse:
    """A new secret address for the member's calendar feeds; the old one stops working."""
    feeds.rotate_secret(_member(request))
    messages.success(
        request, "Your calendar has a new address. The old one no longer works: subscribe again."
    )
    return redirect(reverse("notifications:settings") + "#calendar")


# ---------------------------------------------------------------- your move, in the page


@login_required
@require_GET
def next_move(request: HttpRequest) -> HttpResponse:
    """Straight to the next board waiting for the member's move (``?after=`` the board they
    are on, which is skipped); My matches, saying so, when no other board waits."""
    raw = request.GET.get("after", "")
    if raw and not raw.isdigit():
        return HttpResponse(
            "That is not a match number.", status=400, content_type="text/plain; charset=utf-8"
        )
    after = int(raw) if raw else None
    target = your_move.next_waiting(_member(request), after=after)
    if target is None:
        messages.info(request, "No other match is waiting for your move.")
        return redirect("my-matches")
    return redirect("match", target.id)


@login_required
@require_GET
def waiting(request: HttpRequest) -> JsonResponse:
    """Every match waiting on the member's move, most urgent first (for ``your_move.js``)."""
    listing = your_move.waiting_list(_member(request))
    response = JsonResponse(listing.model_dump(mode="json"))
    response["Cache-Control"] = "no-store"
    return response
