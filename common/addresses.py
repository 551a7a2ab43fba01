"""Who a request came from, as every log line and every limit names them."""

from __future__ import annotations

from axes.helpers import get_client_ip_address
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """The client's address: the peer's, or (``TRUSTED_PROXY_COUNT``) the one our proxies
    put in X-Forwarded-For; never what a client wrote there itself."""
    return get_client_ip_address(request) or "unknown"
