"""Which pages may open a websocket: the site's own.

A browser sends the Origin of the page that opens a socket; the socket is refused (a 403
before it opens) unless that origin, scheme, host and port alike, is one of
``WEBSOCKET_ALLOWED_ORIGINS``. In development (``WEBSOCKET_ALLOW_OWN_ORIGIN``, on with DEBUG)
the origin of the address the socket was opened at passes too, when its host is one of
``ALLOWED_HOSTS``: a page served by ``make run PORT=8123`` opens its socket on that port, and
``localhost`` or ``127.0.0.1`` alike, with nothing to configure. A page of another origin
(another port included) is refused either way.
"""

from __future__ import annotations

from typing import Any

from channels.security.websocket import OriginValidator
from django.conf import settings
from django.http.request import split_domain_port, validate_host


def own_origins(scope: dict[str, Any]) -> list[str]:
    """``http://`` and ``https://`` with the socket's own Host header, when that host is one
    the site answers to; else nothing."""
    hosts = [value for name, value in scope.get("headers", []) if name == b"host"]
    if len(hosts) != 1:
        return []
    try:
        host = hosts[0].decode("ascii")
    except UnicodeDecodeError:
        return []
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return []
    return [f"http://{host}", f"https://{host}"]


class SiteOriginValidator:
    """channels' :class:`OriginValidator` over the allowed origins, and in development also
    over the socket's own origin (:func:`own_origins`)."""

    def __init__(self, application: Any, allowed_origins: list[str], *, own_origin: bool) -> None:
        self.application = application
        self.allowed_origins = list(allowed_origins)
        self.own_origin = own_origin
        self.fixed = OriginValidator(application, self.allowed_origins)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if not self.own_origin:
            return await self.fixed(scope, receive, send)
        allowed = [*self.allowed_origins, *own_origins(scope)]
        return await OriginValidator(self.application, allowed)(scope, receive, send)
