"""Failed sign-ins per client address: counted on every failure, refused once spent.

django-axes locks an *account* after ``AXES_FAILURE_LIMIT`` failures from anywhere. An
address gets a limit of its own, ten times larger (``SIGN_IN_ADDRESS_FAILURE_LIMIT``), kept
here: one limit for both would let one member's typos, or one attacker, lock out everyone
behind a club's shared address. The backend refuses inside ``authenticate``, so the site's
sign-in and the admin's are guarded alike.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver
from django.http import HttpRequest

from accounts import ratelimit
from common.addresses import client_address


def address_locked(request: HttpRequest) -> bool:
    """Whether the request's client address has spent its failed sign-ins."""
    return ratelimit.spent(ratelimit.sign_in_failures_per_address(), client_address(request))


class AddressLockoutBackend:
    """Refuses every sign-in from an address that has failed too often (first in
    ``AUTHENTICATION_BACKENDS``); never signs anyone in itself, so it has no ``get_user``
    (and is never the backend a session or ``force_login`` names)."""

    def authenticate(self, request: HttpRequest | None, **credentials: Any) -> None:
        if request is not None and address_locked(request):
            # django-axes's middleware answers a request so marked with ``locked_out``'s 429.
            request.axes_locked_out = True  # type: ignore[attr-defined]
            raise PermissionDenied("Too many failed sign-ins from this address.")


@receiver(user_login_failed, dispatch_uid="accounts.count_failure_per_address")
def count_failure_per_address(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    if request is not None:
        ratelimit.allow(ratelimit.sign_in_failures_per_address(), client_address(request))
