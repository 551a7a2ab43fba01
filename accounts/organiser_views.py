"""The organisers' membership pages: sign-ups waiting for a decision, the members, how people
join (the club's policy) and the invitation links. Thin views over :mod:`accounts.services`."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts import services
from accounts.forms import ClubForm, InvitationForm
from accounts.models import ORGANISER_PERMISSION, Club, Invitation, Member
from matches.services.errors import ServiceError


def invitation_link(invitation: Invitation) -> str:
    return (
        settings.SITE_URL.rstrip("/") + reverse("accounts:sign-up") + f"?invite={invitation.token}"
    )


def _members_page(
    request: HttpRequest,
    *,
    club_form: ClubForm | None = None,
    invitation_form: InvitationForm | None = None,
    status: int = 200,
) -> HttpResponse:
    now = timezone.now()
    club = Club.current()
    invitations = [
        {
            "invitation": invitation,
            "state": invitation.state(now),
            "link": invitation_link(invitation),
        }
        for invitation in Invitation.objects.order_by("-created_at")[:100]
    ]
    return render(
        request,
        "accounts/members.html",
        {
            "pending": Member.objects.filter(membership=Member.Membership.PENDING).order_by(
                "date_joined"
            ),
            "members": Member.objects.filter(
                membership=Member.Membership.APPROVED, is_active=True
            ).order_by("username"),
            "removed": Member.objects.filter(
                membership=Member.Membership.REMOVED, deleted_at__isnull=True
            ).order_by("username"),
            "club_form": club_form or ClubForm(initial={"sign_up": club.sign_up}),
            "invitation_form": invitation_form or InvitationForm(),
            "invitations": invitations,
        },
        status=status,
    )


@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def members(request: HttpRequest) -> HttpResponse:
    """Pending sign-ups first, then the policy, the invitations and the members."""
    return _members_page(request)


def _member_id(request: HttpRequest) -> int | None:
    raw = request.POST.get("member_id", "")
    return int(raw) if raw.isdigit() else None


def _refused(request: HttpRequest, refusal: ServiceError) -> HttpResponse:
    messages.error(request, refusal.message)
    return _members_page(request, status=refusal.status)


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def decide(request: HttpRequest) -> HttpResponse:
    """Approve (``decision=approve``) or decline a pending sign-up."""
    member_id, decision = _member_id(request), request.POST.get("decision")
    if member_id is None or decision not in ("approve", "decline"):
        return _refused(request, services.MembershipRefused(services.NO_SUCH_REQUEST))
    try:
        member = services.membership_decide(
            organiser=request.user, member_id=member_id, approve=decision == "approve"
        )
    except ServiceError as refusal:
        return _refused(request, refusal)
    verb = "is now a member" if decision == "approve" else "was declined"
    messages.success(request, f"{member.username} {verb}.")
    return redirect("accounts:members")


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def remove(request: HttpRequest) -> HttpResponse:
    member_id = _member_id(request)
    try:
        if member_id is None:
            raise services.MembershipRefused(services.NO_SUCH_MEMBER)
        member = services.membership_remove(organiser=request.user, member_id=member_id)
    except ServiceError as refusal:
        return _refused(request, refusal)
    messages.success(request, f"{member.username} is no longer a member.")
    return redirect("accounts:members")


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def set_sign_up(request: HttpRequest) -> HttpResponse:
    form = ClubForm(request.POST)
    if not form.is_valid():
        return _members_page(request, club_form=form, status=400)
    services.club_set_sign_up(organiser=request.user, sign_up=form.cleaned_data["sign_up"])
    messages.success(request, "Saved how people join.")
    return redirect("accounts:members")


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def create_invitation(request: HttpRequest) -> HttpResponse:
    form = InvitationForm(request.POST)
    if not form.is_valid():
        return _members_page(request, invitation_form=form, status=400)
    invitation = services.invitation_create(
        organiser=request.user,
        max_uses=form.cleaned_data["max_uses"],
        expires_at=timezone.now() + timedelta(days=form.cleaned_data["days"]),
        note=form.cleaned_data["note"],
    )
    messages.success(request, f"New invitation link: {invitation_link(invitation)}")
    return redirect("accounts:members")


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def revoke_invitation(request: HttpRequest) -> HttpResponse:
    raw = request.POST.get("invitation_id", "")
    try:
        if not raw.isdigit():
            raise services.InvitationUnusable(services.INVITATION_UNKNOWN)
        services.invitation_revoke(organiser=request.user, invitation_id=int(raw))
    except ServiceError as refusal:
        return _refused(request, refusal)
    messages.success(request, "The invitation link no longer works.")
    return redirect("accounts:members")
