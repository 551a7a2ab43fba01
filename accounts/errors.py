"""Refusals of the account services: ServiceError subclasses (stable ``code``, HTTP
``status``), so pages map them like every other refusal and docs/RULES.md lists their texts."""

from __future__ import annotations

from common.errors import ServiceError


class SignUpRefused(ServiceError):
    """Sign-up is by invitation and no usable invitation came with it."""

    code = "sign_up_closed"
    status = 403


class InvitationUnusable(ServiceError):
    """An invitation link that is unknown, expired, revoked or used up."""

    code = "invitation_unusable"
    status = 403


class MembershipRefused(ServiceError):
    """A membership decision that cannot be made (no such request, not pending, oneself)."""

    code = "membership_refused"
    status = 409


class AccountRefused(ServiceError):
    """A change to one's own account refused: an address taken, a bad link, a bad value."""

    code = "account_refused"


class GuestUnknown(ServiceError):
    """A guest's games asked for that are no longer kept (swept when idle, or taken on)."""

    code = "guest_unknown"
    status = 404


class GuestRefused(ServiceError):
    """A guest's games offered to an account that cannot take them (a guest, the computer,
    an account that is not active)."""

    code = "guest_refused"
    status = 409


class MembersImportRefused(ServiceError):
    """A members file with at least one bad row: no invitation was made. ``rows`` holds each
    bad row's number (the first row is 1) and what is wrong with it."""

    code = "members_import_refused"

    def __init__(self, message: str, *, rows: list[tuple[int, str]] | None = None) -> None:
        super().__init__(message)
        self.rows = rows or []
