"""Sign up, sign in, sign out: Django's own auth, thin views; and unlocking a locked sign-in."""

from __future__ import annotations

from typing import Any

from axes.models import AccessAttempt
from axes.utils import reset
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import permission_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView, LogoutView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts import emails, guests, ratelimit, services
from accounts.forms import SignUpForm
from accounts.models import ORGANISER_PERMISSION, Club, Member
from common.addresses import client_address
from common.errors import ServiceError

LOCKED_OUT = (
    "Too many failed sign-ins for this account or from this address. Wait {minutes} minutes, "
    "or ask an organiser to unlock it."
)


GUEST_GAMES_ADOPTED = "Your games as a guest are now yours: they are in My matches."

PENDING_MESSAGE = (
    "Welcome! Your sign-up now waits for an organiser's approval; until then you can watch "
    "public matches, but not members-only ones, and you cannot take a seat."
)


def sign_up(request: HttpRequest) -> HttpResponse:
    """Create an account as the club's policy says (:func:`services.member_sign_up`) and
    sign it straight in; ``?invite=`` carries an invitation link's token."""
    invite = (request.POST.get("invite") or request.GET.get("invite") or "").strip()[:64]
    club = Club.current()
    context: dict[str, Any] = {"club": club, "invite": invite}
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and not ratelimit.allow(ratelimit.SIGN_UP, client_address(request)):
        messages.error(request, ratelimit.SIGN_UP.message)
        return render(
            request, "accounts/sign_up.html", {**context, "form": SignUpForm()}, status=429
        )
    if request.method == "POST" and form.is_valid():
        try:
            member = services.member_sign_up(
                member=form.save(commit=False), invitation_token=invite or None
            )
        except ServiceError as refusal:
            form.add_error(None, refusal.message)
            return render(
                request, "accounts/sign_up.html", {**context, "form": form}, status=refusal.status
            )
        login(request, member, backend="django.contrib.auth.backends.ModelBackend")
        asked = services.sign_up_address(member=member)  # alike, whoever has the address
        if asked.link_to:
            emails.send_verification(member, asked.link_to)
        elif asked.taken:
            emails.send_sign_up_address_taken(asked.taken)
        if member.membership == Member.Membership.PENDING:
            messages.info(request, PENDING_MESSAGE)
        adopted = _adopt_browser_guest(request, member)
        next_url = request.POST.get("next", "")
        if next_url and url_has_allowed_host_and_scheme(
            next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            response = redirect(next_url)
        else:
            response = redirect("home")
        if adopted is not None:
            guests.forget_guest(response)
        return response
    return render(
        request,
        "accounts/sign_up.html",
        {**context, "form": form},
        status=400 if form.errors else 200,
    )


def _adopt_browser_guest(request: HttpRequest, member: Member) -> int | None:
    """A sign-up in a browser that played as a guest: its games become the new member's
    (:func:`guests.adopt_guest`); the guest's id, or None when it had none or it is gone."""
    guest_id = guests.browser_guest_id(request)
    if guest_id is None:
        return None
    try:
        guests.adopt_guest(guest_id=guest_id, member=member)
    except ServiceError as refusal:  # swept meanwhile: the sign-up stands, the cookie goes
        messages.info(request, refusal.message)
        return guest_id
    messages.success(request, GUEST_GAMES_ADOPTED)
    return guest_id


class SignInView(LoginView):
    """Django's sign-in; a locked account (django-axes) or address (``accounts.lockouts``)
    is refused with ``locked_out``."""

    template_name = "accounts/sign_in.html"
    redirect_authenticated_user = True


class SignOutView(LogoutView):
    pass


def locked_out(request: HttpRequest, response: Any, credentials: dict[str, Any]) -> HttpResponse:
    """What a locked-out sign-in gets (django-axes calls it): a 429 with a clear message, on
    the site's sign-in page (the admin's sign-in included)."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    messages.error(request, LOCKED_OUT.format(minutes=minutes))
    form = AuthenticationForm(request, data=None)
    return render(request, "accounts/sign_in.html", {"form": form, "next": ""}, status=429)


@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def locked(request: HttpRequest) -> HttpResponse:
    """The accounts and addresses that failed to sign in lately, for an organiser to unlock."""
    attempts = AccessAttempt.objects.order_by("-attempt_time")[:200]
    return render(
        request,
        "accounts/locked.html",
        {
            "attempts": attempts,
            "limit": settings.AXES_FAILURE_LIMIT,
            "address_limit": settings.SIGN_IN_ADDRESS_FAILURE_LIMIT,
        },
    )


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def unlock(request: HttpRequest) -> HttpResponse:
    """Forget an account's (or an address's) failed sign-ins: it may sign in again at once."""
    username = (request.POST.get("username") or "").strip()
    address = (request.POST.get("ip_address") or "").strip()
    if username:
        reset(username=username)
        messages.success(request, f"{username} may sign in again.")
    elif address:
        reset(ip=address)
        ratelimit.forget(ratelimit.sign_in_failures_per_address(), address)
        messages.success(request, f"Sign-ins from {address} are allowed again.")
    return redirect("accounts:locked")
