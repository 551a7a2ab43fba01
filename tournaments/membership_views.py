"""The organisers' membership pages: sign-ups waiting for a decision, the members (removing
one asks first, listing their fixtures and what becomes of them; a removed or declined one
can be reinstated), how people join (the club's policy) and the invitation links. Thin views
over :mod:`accounts.services`."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts import services
from accounts.forms import ClubForm, InvitationForm
from accounts.models import ORGANISER_PERMISSION, Club, Invitation, Member
from common.errors import ServiceError
from tournaments.forms import MEMBER_DATALIST
from tournaments.membership_forms import SUBSTITUTE, RemovalForm
from tournaments.organise_selectors import held_fixtures


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


def _removable(member_id: int | None) -> Member | None:
    if member_id is None:
        return None
    return Member.objects.filter(
        pk=member_id, membership=Member.Membership.APPROVED, is_active=True
    ).first()


def _confirm_removal(
    request: HttpRequest,
    member: Member,
    form: RemovalForm,
    *,
    refusal: str | None = None,
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "accounts/member_remove.html",
        {
            "member": member,
            "fixtures": held_fixtures(member),
            "form": form,
            "refusal": refusal,
            "datalist_id": MEMBER_DATALIST,
        },
        status=status,
    )


@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def confirm_remove(request: HttpRequest, member_id: int) -> HttpResponse:
    """Removing a member, asked first: their live and future fixtures, and what becomes of
    them (withdrawn, or a substitute seated)."""
    member = _removable(member_id)
    if member is None:
        raise Http404(services.NO_SUCH_MEMBER)
    return _confirm_removal(request, member, RemovalForm())


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def remove(request: HttpRequest) -> HttpResponse:
    """Remove a member once confirmed (``confirm=yes``); asked without it, the confirmation
    page, with nothing changed."""
    member = _removable(_member_id(request))
    if member is None:
        return _refused(request, services.MembershipRefused(services.NO_SUCH_MEMBER))
    form = RemovalForm(request.POST)
    if request.POST.get("confirm") != "yes":
        return _confirm_removal(request, member, RemovalForm(initial=request.POST.dict()))
    if not form.is_valid():
        return _confirm_removal(request, member, form, status=400)
    held = held_fixtures(member)
    try:
        services.membership_remove(
            organiser=request.user,
            member_id=member.pk,
            reason=form.cleaned_data["reason"],
            substitute_id=form.substitute_id(),
        )
    except ServiceError as refusal:
        return _confirm_removal(
            request, member, form, refusal=refusal.message, status=refusal.status
        )
    messages.success(request, _removal_done(member, len(held), form))
    return redirect("accounts:members")


def _removal_done(member: Member, held: int, form: RemovalForm) -> str:
    done = f"{member.username} is no longer a member."
    if not held:
        return done
    fixtures = "fixture" if held == 1 else "fixtures"
    if form.cleaned_data["fixtures"] == SUBSTITUTE:
        substitute = form.cleaned_data["substitute"].username
        return (
            f"{done} {substitute} took their seat wherever their {held} {fixtures} had not "
            "kicked off; they were withdrawn from the rest."
        )
    return f"{done} They were withdrawn from their {held} {fixtures} not yet over."


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def reinstate(request: HttpRequest) -> HttpResponse:
    """Let a removed or declined account back in as a member."""
    member_id = _member_id(request)
    try:
        if member_id is None:
            raise services.MembershipRefused(services.NO_SUCH_FORMER_MEMBER)
        member = services.membership_reinstate(organiser=request.user, member_id=member_id)
    except ServiceError as refusal:
        return _refused(request, refusal)
    messages.success(request, f"{member.username} is a member again.")
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
