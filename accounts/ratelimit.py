"""Fixed-window rate limits kept in the cache (Redis in deployments), shared by every process.

Used where flooding is cheap for an attacker: sign-up (failed sign-ins are django-axes's).
"""

from __future__ import annotations

from dataclasses import dataclass

from axes.helpers import get_client_ip_address
from django.core.cache import cache
from django.http import HttpRequest


@dataclass(frozen=True)
class Limit:
    """At most ``count`` attempts per ``seconds`` for one key; ``message`` says what to do."""

    name: str
    count: int
    seconds: int
    message: str


SIGN_UP = Limit("sign-up", 5, 3600, "Too many new accounts from here. Try again in an hour.")


def client_address(request: HttpRequest) -> str:
    """The client's address: the peer's, or (``TRUSTED_PROXY_COUNT``) the one our proxies
    put in X-Forwarded-For; never what a client wrote there itself."""
    return get_client_ip_address(request) or "unknown"


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
