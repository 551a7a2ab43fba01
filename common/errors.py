"""Refusals every app shares: a ServiceError has a stable ``code`` and an HTTP ``status``.

A service that refuses changes nothing and raises one of these after its transaction;
``str(error)`` is the message for people. Pages, the API and the socket each map them in one
place; each app's refusals subclass these (docs/RULES.md lists every code and text).
"""

from __future__ import annotations

from typing import Any, ClassVar


class ServiceError(Exception):
    """A request was refused; nothing changed. ``replayed`` when this is the stored answer
    to a request id that was sent before."""

    code: ClassVar[str] = "refused"
    status: ClassVar[int] = 400

    def __init__(self, message: str, *, replayed: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.replayed = replayed

    @classmethod
    def replay(cls, refusal: dict[str, Any]) -> ServiceError:
        """The refusal kept under a request id, raised again for its retry."""
        return cls(refusal["message"], replayed=True)


class NotAllowed(ServiceError):
    """The requester may not do this."""

    code = "not_allowed"
    status = 403


class SignInRequired(NotAllowed):
    """Only a signed-in member may do this."""

    code = "sign_in_required"
