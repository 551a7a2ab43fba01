"""Fixed-window rate limits kept in the cache (Redis in deployments), shared by every process.

Used where flooding is cheap for an attacker: sign-up, failed sign-ins per address (those per
account are django-axes's), and new websockets and ``sync`` frames per address
(:mod:`matches.live.floodgate`). An address is limited as its :func:`address_scope`: an IPv6
client's whole /64 counts as one address.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache


@dataclass(frozen=True)
class Limit:
    """At most ``count`` attempts per ``seconds`` for one key; ``message`` says what to do."""

    name: str
    count: int
    seconds: int
    message: str


SIGN_UP = Limit("sign-up", 5, 3600, "Too many new accounts from here. Try again in an hour.")


def sign_in_failures_per_address() -> Limit:
    """Failed sign-ins one address may make (to any accounts) in a cool-off: far more than one
    account's limit, so a club behind one address is never locked out by one member's typos
    or one attacker among them, while guessing across many accounts from one place stops."""
    return Limit(
        "sign-in-failures",
        settings.SIGN_IN_ADDRESS_FAILURE_LIMIT,
        int(settings.AXES_COOLOFF_TIME.total_seconds()),
        "Too many failed sign-ins from this address.",
    )


GUEST_MATCHES_SPENT = "Too many games against the computer from here today. Sign up to play more."


def guest_matches_per_address() -> Limit:
    """Games against the computer visitors without an account may start from one address in
    a day (``GUEST_MATCHES_PER_ADDRESS_DAY``): each makes rows, and the computer's moves cost
    CPU."""
    return Limit(
        "guest-matches",
        settings.GUEST_MATCHES_PER_ADDRESS_DAY,
        24 * 60 * 60,
        GUEST_MATCHES_SPENT,
    )


def address_scope(address: str) -> str:
    """What one client address is limited as: an IPv4 address itself, and an IPv6 address's
    whole /64 (a host picks addresses in its /64 at will, so each would otherwise be a fresh
    allowance); an IPv4 address written as IPv6 (``::ffff:a.b.c.d``) is that IPv4 address.
    Anything that is not an address (``unknown``, a member's key) is left as it is."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(parsed), 64), strict=False))
    return str(parsed)


def _key(limit: Limit, key: str) -> str:
    return f"ratelimit:{limit.name}:{address_scope(key)}"


def spent(limit: Limit, key: str) -> bool:
    """Whether ``key`` has used up the window's allowance (without counting an attempt)."""
    return int(cache.get(_key(limit, key)) or 0) >= limit.count


def forget(limit: Limit, key: str) -> None:
    """Start ``key``'s allowance afresh (an organiser unlocking an address)."""
    cache.delete(_key(limit, key))


def allow(limit: Limit, key: str) -> bool:
    """Count one attempt for ``key``; False once the window's allowance is spent."""
    cache_key = _key(limit, key)
    cache.add(cache_key, 0, timeout=limit.seconds)
    try:
        attempts = cache.incr(cache_key)
    except ValueError:  # expired between add and incr: start a new window
        cache.set(cache_key, 1, timeout=limit.seconds)
        attempts = 1
    return attempts <= limit.count
