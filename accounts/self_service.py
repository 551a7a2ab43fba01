"""One's own account: profile, email (verified by a link), password change, signing out
everywhere else, downloading one's data, deleting the account. Thin views over
:mod:`accounts.services`; the password views are Django's own."""

from __future__ import annotations

import io
import json
import zipfile

from django.contrib import messages
from django.contrib.auth import logout, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts import data_export, emails, services, time_zones
from accounts.forms import DeleteAccountForm, EmailForm, ProfileForm
from accounts.models import Member
from common.errors import ServiceError


def _profile_page(
    request: HttpRequest,
    *,
    profile_form: ProfileForm | None = None,
    email_form: EmailForm | None = None,
    status: int = 200,
) -> HttpResponse:
    member = request.user
    assert isinstance(member, Member)
    profile_form = profile_form or ProfileForm(
        initial={
            "display_name": member.display_name,
            "bio": member.bio,
            "time_zone": time_zones.time_zone_of(member),
        }
    )
    email_form = email_form or EmailForm(initial={"email": member.email})
    return render(
        request,
        "accounts/profile.html",
        {"member": member, "profile_form": profile_form, "email_form": email_form},
        status=status,
    )


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """The profile page; a POST saves the display name, bio and time zone."""
    if request.method != "POST":
        return _profile_page(request)
    form = ProfileForm(request.POST)
    if form.is_valid():
        try:
            services.account_update_profile(member=request.user, **form.cleaned_data)  # type: ignore[arg-type]
        except ServiceError as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, "Profile saved.")
            return redirect("accounts:profile")
    return _profile_page(request, profile_form=form, status=400)


@login_required
@require_POST
def change_email(request: HttpRequest) -> HttpResponse:
    """Ask for a new address: a confirmation link goes to it, and the confirmed address
    stays the account's until the link is opened. The page says the same whether or not
    the address belongs to someone else (:func:`services.account_set_email`)."""
    form = EmailForm(request.POST)
    if not form.is_valid():
        return _profile_page(request, email_form=form, status=400)
    asked = services.account_set_email(
        member=request.user,  # type: ignore[arg-type]
        email=form.cleaned_data["email"],
    )
    address = asked.link_to or asked.taken
    if asked.link_to:
        emails.send_verification(asked.member, asked.link_to)
    elif asked.taken:
        emails.send_address_taken(asked.taken)
    if address:
        messages.success(
            request, f"We sent a message to {address}: open the link in it to confirm."
        )
    elif asked.member.email:
        messages.success(request, f"Your address stays {asked.member.email}.")
    else:
        messages.success(request, "Your account has no email address now.")
    return redirect("accounts:profile")


def verify_email(request: HttpRequest, token: str) -> HttpResponse:
    """The link from the verification email (works signed in or not)."""
    try:
        member = services.account_verify_email(token=token)
    except ServiceError as refusal:
        return render(request, "accounts/message.html", {"text": refusal.message}, status=400)
    return render(
        request, "accounts/message.html", {"text": f"Thank you: {member.email} is confirmed."}
    )


@login_required
@require_POST
def sign_out_elsewhere(request: HttpRequest) -> HttpResponse:
    """End every other session (and its open sockets); this one stays signed in."""
    member = services.account_sign_out_elsewhere(member=request.user)  # type: ignore[arg-type]
    update_session_auth_hash(request, member)
    messages.success(request, "You are signed out everywhere else.")
    return redirect("accounts:profile")


@login_required
def download_data(request: HttpRequest) -> HttpResponse:
    """A zip of one's own data: profile.json, and what each app keeps about the member
    (their matches as GCG: :mod:`accounts.data_export`)."""
    member = request.user
    assert isinstance(member, Member)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        parts: dict[str, object] = {}
        for part in data_export.parts():
            parts.update(part(member, archive))
        profile_data = {
            "username": member.username,
            "display_name": member.display_name,
            "email": member.email,
            "email_verified": member.email_verified,
            "pending_email": member.pending_email,
            "bio": member.bio,
            "time_zone": time_zones.time_zone_of(member),
            "membership": member.membership,
            "date_joined": member.date_joined.isoformat(),
            **parts,
        }
        archive.writestr("profile.json", json.dumps(profile_data, indent=2))
    stamp = timezone.now().strftime("%Y%m%d")
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = (
        f'attachment; filename="wordduel-{member.username}-{stamp}.zip"'
    )
    return response


@login_required
def delete_account(request: HttpRequest) -> HttpResponse:
    """Confirm with the password; live matches are resigned, the account anonymised."""
    member = request.user
    assert isinstance(member, Member)
    form = DeleteAccountForm(member, request.POST or None)
    if request.method == "POST" and form.is_valid():
        settled = services.account_delete(member=member)
        logout(request)
        text = "Your account is deleted."
        if settled:
            text += f" {len(settled)} unfinished match(es) were resigned or left."
        return render(request, "accounts/message.html", {"text": text})
    return render(
        request,
        "accounts/delete.html",
        {"form": form},
        status=400 if form.errors else 200,
    )
