"""Pages: the notification settings, the one-click unsubscribe, a browser's push
subscription (JSON), and the service worker. Thin: forms and pydantic validate, services
change."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from pydantic import ValidationError

from accounts.models import Member
from notifications import services
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
