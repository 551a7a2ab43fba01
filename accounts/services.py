"""Every change to membership and to one's own account: one keyword-only function each, one
transaction each. A refusal is an :mod:`accounts.errors` class (a ServiceError), raised
before anything is written or after the transaction rolled back, so it changes nothing.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from itertools import count
from typing import Any

from django.contrib.auth.hashers import make_password
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts import time_zones
from accounts.errors import (
    AccountRefused,
    InvitationUnusable,
    MembershipRefused,
    MembersImportRefused,
    SignUpRefused,
)
from accounts.models import BIO_LENGTH, NAME_TAKEN, Club, Invitation, Member
from accounts.names import ANONYMOUS_PREFIX, display_name_refusal, skeleton
from accounts.permissions import require_organiser
from common.events import MemberForgotten, MemberLeaving, MemberRemoved, SessionsEnded, emit
from common.text import is_one_line

SIGN_UP_BY_INVITATION = "Sign-up is by invitation only: use the link an organiser gave you."
INVITATION_UNKNOWN = "That invitation link is not valid."
INVITATION_REVOKED = "That invitation link has been withdrawn by an organiser."
INVITATION_EXPIRED = "That invitation link has expired."
INVITATION_USED_UP = "That invitation link has been used as many times as it allows."
INVITATION_TEXTS = {
    "unknown": INVITATION_UNKNOWN,
    "revoked": INVITATION_REVOKED,
    "expired": INVITATION_EXPIRED,
    "used_up": INVITATION_USED_UP,
}
NO_SUCH_REQUEST = "There is no such sign-up waiting for a decision."
NO_SUCH_MEMBER = "There is no such member to remove."
NO_SUCH_FORMER_MEMBER = "There is no such removed or declined member to reinstate."
#: The reason kept with a removed member's fixtures when the organiser gives none.
REMOVAL_REASON = "Removed from the club."
NOT_YOURSELF = "An organiser cannot remove their own membership."
BAD_INVITATION = "An invitation needs 1 to 500 uses and an expiry in the future."
EMAIL_TAKEN = "That email address belongs to another member."
BAD_EMAIL_LINK = "That verification link is not valid, or has expired. Ask for a new one."
BIO_TOO_LONG = f"A bio can be at most {BIO_LENGTH} characters."
UNKNOWN_TIME_ZONE = "There is no such time zone."
MAX_INVITATION_USES = 500
#: How long an email verification link works.
EMAIL_LINK_AGE = 3 * 24 * 60 * 60
EMAIL_LINK_SALT = "accounts.email-verification"


def _locked_member(member_id: int) -> Member | None:
    return Member.objects.select_for_update().filter(pk=member_id).first()


# ------------------------------------------------------------------ membership


def club_set_sign_up(*, organiser: Any, sign_up: str) -> Club:
    """Choose how people join (open, approval, invitation). Locks the club row."""
    require_organiser(organiser)
    if sign_up not in Club.SignUp.values:
        raise AccountRefused("There is no such way to join.")
    with transaction.atomic():
        Club.current()
        club = Club.objects.select_for_update().get(pk=1)
        club.sign_up = sign_up
        club.save(update_fields=["sign_up", "updated_at"])
    return club


def _usable_invitation(token: str, *, now: datetime) -> Invitation:
    """The invitation ``token`` names, locked, if it can take one more sign-up."""
    invitation = Invitation.objects.select_for_update().filter(token=token).first()
    if invitation is None:
        raise InvitationUnusable(INVITATION_UNKNOWN)
    state = invitation.state(now)
    if state == "revoked":
        raise InvitationUnusable(INVITATION_REVOKED)
    if state == "expired":
        raise InvitationUnusable(INVITATION_EXPIRED)
    if state == "used_up":
        raise InvitationUnusable(INVITATION_USED_UP)
    return invitation


def member_sign_up(*, member: Member, invitation_token: str | None = None) -> Member:
    """Save a new account (built and validated by the sign-up form) as the club's policy
    says: open makes a member, approval a pending request, invitation a member only with a
    usable link (whose use it counts). Locks the club row and the invitation, so a
    single-use link admits one sign-up however many arrive at once.

    The address given is kept as pending (the account has none until its link is opened),
    whether or not another member has it, so the sign-up answers alike either way: the
    caller mails what :func:`sign_up_address` says after the commit."""
    now = timezone.now()
    with transaction.atomic():
        Club.current()
        club = Club.objects.select_for_update().get(pk=1)
        invitation = _usable_invitation(invitation_token, now=now) if invitation_token else None
        if invitation is not None or club.sign_up == Club.SignUp.OPEN:
            member.membership = Member.Membership.APPROVED
        elif club.sign_up == Club.SignUp.APPROVAL:
            member.membership = Member.Membership.PENDING
        else:
            raise SignUpRefused(SIGN_UP_BY_INVITATION)
        member.pending_email = Member.objects.normalize_email((member.email or "").strip())
        member.email = ""
        member.email_verified = False
        member.save()
        if invitation is not None:
            invitation.uses += 1
            invitation.save(update_fields=["uses"])
    return member


def invitation_create(
    *, organiser: Any, expires_at: datetime, max_uses: int = 1, note: str = ""
) -> Invitation:
    """A new invitation link (single-use with ``max_uses=1``). Writes one new row."""
    require_organiser(organiser)
    if not 1 <= max_uses <= MAX_INVITATION_USES or expires_at <= timezone.now():
        raise AccountRefused(BAD_INVITATION)
    return Invitation.objects.create(
        created_by=organiser, expires_at=expires_at, max_uses=max_uses, note=note.strip()[:100]
    )


#: The most rows a members file may have.
MAX_MEMBER_ROWS = 500
NO_MEMBER_ROWS = "The file names nobody: one member a row, their name then their address."
TOO_MANY_MEMBER_ROWS = f"A members file has at most {MAX_MEMBER_ROWS} rows."
MEMBERS_REFUSED = "No invitation was made: correct the rows below and import the file again."
ROW_NEEDS_A_NAME = "The row has no name."
ROW_NAME_NOT_ONE_LINE = "The name must be one line."
ROW_BAD_EMAIL = "That is not an email address."
ROW_EMAIL_TWICE = "That address is on an earlier row too."
ROW_EMAIL_A_MEMBER = "That address belongs to a member already."
ROW_TOO_LONG = "The name and address together are at most 96 characters."


def members_import(
    *, organiser: Any, rows: list[list[str]], expires_at: datetime
) -> list[Invitation]:
    """One single-use invitation link per row of a members file (``name, email``; a first
    row ``name, email`` is a header), its note naming who it is for: the club's one way
    in for someone an organiser adds (an account needs its own password, set by its owner
    through the link, so the organiser never knows it).

    All or nothing: every row is checked first (a name, one line; an address, valid, not
    on another row, not a member's already) and a file with any bad row is refused with
    each bad row's number and error (:class:`MembersImportRefused`), making nothing.
    Writes only new rows, in one transaction."""
    require_organiser(organiser)
    if expires_at <= timezone.now():
        raise AccountRefused(BAD_INVITATION)
    numbered = [(n, row) for n, row in enumerate(rows, start=1) if any(c.strip() for c in row)]
    if numbered and [c.strip().lower() for c in numbered[0][1][:2]] == ["name", "email"]:
        numbered = numbered[1:]
    if not numbered:
        raise MembersImportRefused(NO_MEMBER_ROWS)
    if len(numbered) > MAX_MEMBER_ROWS:
        raise MembersImportRefused(TOO_MANY_MEMBER_ROWS)
    errors: list[tuple[int, str]] = []
    notes: list[str] = []
    seen: set[str] = set()
    for number, row in numbered:
        name = row[0].strip() if row else ""
        email = row[1].strip() if len(row) > 1 else ""
        refusal = _member_row_refusal(name, email, seen)
        if refusal:
            errors.append((number, refusal))
        else:
            notes.append(f"{name} <{email}>" if email else name)
        seen.add(email.lower())
    if errors:
        raise MembersImportRefused(MEMBERS_REFUSED, rows=errors)
    with transaction.atomic():
        return [
            Invitation.objects.create(
                created_by=organiser, expires_at=expires_at, max_uses=1, note=note
            )
            for note in notes
        ]


def _member_row_refusal(name: str, email: str, seen: set[str]) -> str:
    """What is wrong with one row of a members file, or ``""``."""
    if not name:
        return ROW_NEEDS_A_NAME
    if not is_one_line(name):
        return ROW_NAME_NOT_ONE_LINE
    if len(name) + len(email) > 96:
        return ROW_TOO_LONG
    if email:
        try:
            validate_email(email)
        except ValidationError:
            return ROW_BAD_EMAIL
        if email.lower() in seen:
            return ROW_EMAIL_TWICE
        if Member.objects.filter(email__iexact=email).exists():
            return ROW_EMAIL_A_MEMBER
    return ""


def invitation_revoke(*, organiser: Any, invitation_id: int) -> Invitation:
    """Withdraw a link: no more sign-ups through it. Locks the invitation."""
    require_organiser(organiser)
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().filter(pk=invitation_id).first()
        if invitation is None:
            raise InvitationUnusable(INVITATION_UNKNOWN)
        if invitation.revoked_at is None:
            invitation.revoked_at = timezone.now()
            invitation.save(update_fields=["revoked_at"])
    return invitation


def membership_decide(*, organiser: Any, member_id: int, approve: bool) -> Member:
    """Approve or decline a pending sign-up (declined: ``removed``). Locks the member."""
    require_organiser(organiser)
    with transaction.atomic():
        member = _locked_member(member_id)
        if member is None or member.membership != Member.Membership.PENDING:
            raise MembershipRefused(NO_SUCH_REQUEST)
        member.membership = Member.Membership.APPROVED if approve else Member.Membership.REMOVED
        member.membership_decided_by = organiser
        member.membership_decided_at = timezone.now()
        member.save(update_fields=["membership", "membership_decided_by", "membership_decided_at"])
    return member


def membership_remove(
    *, organiser: Any, member_id: int, reason: str = "", substitute_id: int | None = None
) -> Member:
    """Take an approved member out of the club: they keep their account and records but no
    longer see members-only matches, sit or appear in pickers, and their open sockets close
    once it commits. Every fixture of theirs not yet over is settled as RULES.md section 3
    says (``tournaments.services.organising.member_withdraw``): the ``substitute`` takes their
    seats in fixtures not yet kicked off; otherwise such a fixture is cancelled; a live match
    is lost (never handed over). Refused to an organiser who plays in one of those fixtures.
    Locks the member, then each of their fixtures; one transaction, so a refusal changes
    nothing."""
    require_organiser(organiser)
    if member_id == organiser.pk:
        raise MembershipRefused(NOT_YOURSELF)
    with transaction.atomic():
        member = _locked_member(member_id)
        if member is None or member.membership != Member.Membership.APPROVED:
            raise MembershipRefused(NO_SUCH_MEMBER)
        member.membership = Member.Membership.REMOVED
        member.membership_decided_by = organiser
        member.membership_decided_at = timezone.now()
        member.save(update_fields=["membership", "membership_decided_by", "membership_decided_at"])
        emit(  # their fixtures are settled with the removal (the tournaments app)
            MemberRemoved(
                member_id=member.pk,
                by_id=organiser.pk,
                reason=reason.strip() or REMOVAL_REASON,
                substitute_id=substitute_id,
            )
        )
        emit(SessionsEnded(member_id=member.pk))
    return member


def membership_reinstate(*, organiser: Any, member_id: int) -> Member:
    """Let a removed or declined account back into the club as a member (not a deleted
    one). Fixtures they were withdrawn from stay as they were settled. Locks the member."""
    require_organiser(organiser)
    with transaction.atomic():
        member = _locked_member(member_id)
        if (
            member is None
            or member.membership != Member.Membership.REMOVED
            or member.deleted_at is not None
            or not member.is_active
        ):
            raise MembershipRefused(NO_SUCH_FORMER_MEMBER)
        member.membership = Member.Membership.APPROVED
        member.membership_decided_by = organiser
        member.membership_decided_at = timezone.now()
        member.save(update_fields=["membership", "membership_decided_by", "membership_decided_at"])
    return member


# ------------------------------------------------------------------ one's own account


def email_verification_token(member: Member, address: str) -> str:
    """A signed, expiring token naming the member and the address it confirms."""
    return signing.dumps([member.pk, address], salt=EMAIL_LINK_SALT, compress=True)


@dataclass(frozen=True)
class EmailRequest:
    """What asking for an address came to, for the caller to mail after the commit: a
    confirmation link to ``link_to``, or to ``taken`` the word that it already belongs to an
    account (the asker is answered alike either way, so nobody learns who is registered)."""

    member: Member
    link_to: str = ""
    taken: str = ""


def _belongs_to_another(member: Member, address: str) -> bool:
    return Member.objects.exclude(pk=member.pk).filter(email__iexact=address).exists()


def sign_up_address(*, member: Member) -> EmailRequest:
    """What to mail about the address a new account asked for: its confirmation link, or,
    when another member has the address, the word to that member (at the address as they
    have it) that someone signed up with it. A read, for after the sign-up's commit."""
    address = member.pending_email
    if not address:
        return EmailRequest(member)
    owner = (
        Member.objects.exclude(pk=member.pk)
        .filter(email__iexact=address)
        .values_list("email", flat=True)
        .first()
    )
    if owner:
        return EmailRequest(member, taken=owner)
    return EmailRequest(member, link_to=address)


def account_set_email(*, member: Member, email: str) -> EmailRequest:
    """Ask for ``email`` as the member's address. Locks the member.

    A new address waits in ``pending_email`` until the link mailed to it is opened; the
    current address stays the account's (sign-in, password resets, notices) meanwhile.
    The current address again calls a pending change off (and mails its link again if it
    is not confirmed yet); an empty one removes the address. An address another member has
    is taken as pending like any other (never confirmable): its owner is told instead.
    """
    email = Member.objects.normalize_email(email.strip())
    with transaction.atomic():
        locked = _locked_member(member.pk)
        assert locked is not None
        if not email:
            locked.email = locked.pending_email = ""
            locked.email_verified = False
            locked.save(update_fields=["email", "pending_email", "email_verified"])
            return EmailRequest(locked)
        if locked.email and email.lower() == locked.email.lower():
            locked.pending_email = ""
            locked.save(update_fields=["pending_email"])
            return EmailRequest(locked, link_to="" if locked.email_verified else locked.email)
        locked.pending_email = email
        locked.save(update_fields=["pending_email"])
        if _belongs_to_another(locked, email):
            return EmailRequest(locked, taken=email)
        return EmailRequest(locked, link_to=email)


def account_verify_email(*, token: str) -> Member:
    """Confirm the address a link was sent to, if the link is fresh and the address is
    still the member's unconfirmed one (a sign-up's) or their pending one, which then
    becomes their address. Locks the member."""
    try:
        member_id, email = signing.loads(token, salt=EMAIL_LINK_SALT, max_age=EMAIL_LINK_AGE)
    except (signing.BadSignature, ValueError, TypeError):
        raise AccountRefused(BAD_EMAIL_LINK) from None
    with transaction.atomic():
        member = _locked_member(int(member_id))
        if member is None or not email or member.deleted_at:
            raise AccountRefused(BAD_EMAIL_LINK)
        if member.email == email:
            if not member.email_verified:
                member.email_verified = True
                member.save(update_fields=["email_verified"])
            return member
        if member.pending_email != email:
            raise AccountRefused(BAD_EMAIL_LINK)
        if _belongs_to_another(member, email):
            raise AccountRefused(EMAIL_TAKEN)
        member.email, member.email_verified, member.pending_email = email, True, ""
        member.save(update_fields=["email", "email_verified", "pending_email"])
    return member


def account_update_profile(
    *, member: Member, display_name: str, bio: str, time_zone: str
) -> Member:
    """Change the display name, bio and time zone. The time zone is stored once, in the
    notification settings every email reads (see :mod:`notifications.services`). Locks the
    member (and the settings row)."""
    display_name = display_name.strip()
    changed = display_name and display_name != member.display_name
    refusal = display_name_refusal(display_name) if changed else None
    if refusal is not None:
        raise AccountRefused(refusal)
    if len(bio) > BIO_LENGTH:
        raise AccountRefused(BIO_TOO_LONG)
    if time_zone not in {name for name, _ in time_zones.time_zone_choices()}:
        raise AccountRefused(UNKNOWN_TIME_ZONE)
    with transaction.atomic():
        locked = _locked_member(member.pk)
        assert locked is not None
        if display_name:
            own = {skeleton(locked.username), skeleton(display_name)}
            others = Member.objects.exclude(pk=locked.pk)
            if (
                others.filter(username_key__in=own).exists()
                or others.filter(display_key__in=own).exists()
            ):
                raise AccountRefused(NAME_TAKEN)
        locked.display_name = display_name
        locked.bio = bio
        locked.save(update_fields=["display_name", "bio"])
        time_zones.set_time_zone(locked, time_zone)
    return locked


def account_sign_out_elsewhere(*, member: Member) -> Member:
    """End every session of the member by changing the session epoch, and close the sockets
    on them once it commits; the caller keeps its own with ``update_session_auth_hash``.
    Locks the member."""
    with transaction.atomic():
        locked = _locked_member(member.pk)
        assert locked is not None
        locked.session_epoch = secrets.token_hex(8)
        locked.save(update_fields=["session_epoch"])
        emit(SessionsEnded(member_id=locked.pk))
    return locked


def anonymous_username(member_id: int) -> str:
    return f"{ANONYMOUS_PREFIX}{member_id}"


#: How many numbered alternatives of a deleted account's name are tried before a random one.
ANONYMOUS_ALTERNATIVES = 100


def _free_anonymous_username(member_id: int) -> str:
    """``former-member-N``, or ``former-member-N-2``, ``-3``... when an account (made before
    such names were reserved) has that name or one that looks like it."""
    base = anonymous_username(member_id)
    others = Member.objects.exclude(pk=member_id)
    names = (base if n == 1 else f"{base}-{n}" for n in count(1))
    for _, name in zip(range(ANONYMOUS_ALTERNATIVES), names, strict=False):
        key = skeleton(name)
        clash = Q(username__iexact=name) | Q(username_key=key) | Q(display_key=key)
        if not others.filter(clash).exists():
            return name
    return f"{base}-{secrets.token_hex(6)}"


def account_delete(*, member: Member) -> list[int]:
    """Delete one's account: live matches are resigned first (the opponent wins), then the
    row is anonymised rather than removed, so finished games keep their records under
    ``former-member-N`` (or a numbered variant of it, when an old account looks like that).
    Personal data (email, names, bio, password, notification settings, push subscriptions,
    calendar feed, notices, imported games) goes. Fixtures not yet
    started give up the seat. Each match is settled under its own lock; the rest locks the
    member. Returns the ids of the matches settled."""
    settled: list[int] = []
    emit(MemberLeaving(member_id=member.pk, settled=settled))  # (the matches app settles)
    with transaction.atomic():
        locked = _locked_member(member.pk)
        assert locked is not None
        locked.username = _free_anonymous_username(locked.pk)
        locked.display_name = ""
        locked.first_name = locked.last_name = locked.email = locked.bio = ""
        locked.pending_email = ""
        locked.email_verified = False
        locked.password = make_password(None)
        locked.is_active = False
        locked.is_staff = locked.is_superuser = False
        locked.membership = Member.Membership.REMOVED
        locked.session_epoch = secrets.token_hex(8)
        locked.deleted_at = timezone.now()
        locked.save()
        locked.user_permissions.clear()
        locked.groups.clear()
        emit(MemberForgotten(member_id=locked.pk))  # each app's rows about them go
        emit(SessionsEnded(member_id=locked.pk))  # its sockets close
    return settled
