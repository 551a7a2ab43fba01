"""Fixed-window rate limits kept in the cache (Redis in deployments), shared by every process.

Used where guessing or flooding is cheap for an attacker: sign-in, sign-up.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.http import HttpRequest


@dataclass(frozen=True)
class Limit:
    """At most ``count`` attempts per ``seconds`` for one key; ``message`` says what to do."""

    name: str
    count: int
    seconds: int
    message: str


SIGN_IN = Limit("sign-in", 10, 300, "Too many sign-in attempts. Wait five minutes and try again.")
SIGN_UP = Limit("sign-up", 5, 3600, "Too many new accounts from here. Try again in an hour.")


def client_address(request: HttpRequest) -> str:
    """The peer address (behind a proxy, configure it to set REMOTE_ADDR)."""
    return request.META.get("REMOTE_ADDR", "unknown")


def allow(limit: Limit, key: str) -> bool:
    """Count one attempt for ``key``; False once the window's allowance is spent."""
    cache_key = f"ratelimit:{limit.name}:{key}"
    cache.add(cache_key, 0, timeout=limit.seconds)
    try:
        attempts = cache.incr(cache_key)
    except ValueError:  # expired between add and incr: start a new window
        cache.set(cache_key, 1, timeout=limit.seconds)
        attempts = 1
    return attempts <= limit.count
