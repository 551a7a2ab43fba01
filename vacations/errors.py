"""The vacation refusals: each a ``ServiceError`` with a stable code (RULES.md, "Vacation")."""

from __future__ import annotations

from common.errors import ServiceError


class VacationRefused(ServiceError):
    """A vacation that cannot be declared or cancelled as asked; nothing changed."""

    code = "vacation_refused"
    status = 400


class VacationMissing(ServiceError):
    """No such vacation of the member's (another's is not theirs to see)."""

    code = "not_found"
    status = 404
    MESSAGE = "There is no such vacation."


class AllowanceRefused(ServiceError):
    """A tournament's allowance that cannot be set as asked."""

    code = "allowance_refused"
    status = 400


class AllowanceNotAllowed(ServiceError):
    """Only organisers set a tournament's allowance."""

    code = "not_allowed"
    status = 403
    MESSAGE = "Only organisers can change a tournament's vacation allowance."
