"""Which pages may open a websocket (wordduel/origins.py): the allowed origins and, in
development, the socket's own origin, on whatever port the site was served (``make run``
on another port served boards that never connected: the origins were fixed to :8000)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.testing import WebsocketCommunicator

from wordduel.asgi import application
from wordduel.origins import SiteOriginValidator

FIXED = ["http://127.0.0.1:8000"]


async def _accept(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})


def _headers(origin: str | None, host: str | None) -> list[tuple[bytes, bytes]]:
    headers = []
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if host is not None:
        headers.append((b"host", host.encode()))
    return headers


async def _opens(app: Any, origin: str | None, host: str | None) -> bool:
    communicator = WebsocketCommunicator(app, "/ws/", headers=_headers(origin, host))
    connected, _ = await communicator.connect(timeout=5)
    await communicator.disconnect()
    return connected


@pytest.mark.parametrize(
    ("origin", "host", "opens"),
    [
        ("http://127.0.0.1:8123", "127.0.0.1:8123", True),  # the page's own origin
        ("http://localhost:8123", "localhost:8123", True),
        ("https://127.0.0.1:8443", "127.0.0.1:8443", True),
        ("http://127.0.0.1:8000", "127.0.0.1:8123", True),  # an allowed origin, any address
        ("http://127.0.0.1:9999", "127.0.0.1:8123", False),  # another port: another origin
        ("http://evil.example", "127.0.0.1:8123", False),
        ("http://evil.example:8123", "evil.example:8123", False),  # a host not of this site
        (None, "127.0.0.1:8123", False),  # no Origin: not a browser we can vouch for
        ("http://127.0.0.1:8123", None, False),  # no Host to compare with
    ],
)
async def test_in_development_a_socket_may_come_from_its_own_origin(origin, host, opens) -> None:
    validator = SiteOriginValidator(_accept, FIXED, own_origin=True)
    assert await _opens(validator, origin, host) is opens


@pytest.mark.parametrize(
    ("origin", "host", "opens"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
        ("http://127.0.0.1:8000", "duel.example.org", True),
        ("http://127.0.0.1:8123", "127.0.0.1:8123", False),  # only the listed origins
    ],
)
async def test_deployed_only_the_listed_origins_pass(origin, host, opens) -> None:
    validator = SiteOriginValidator(_accept, FIXED, own_origin=False)
    assert await _opens(validator, origin, host) is opens


@pytest.mark.django_db(transaction=True)
async def test_the_sites_socket_on_another_port_reaches_its_consumer() -> None:
    """Through the site's own application (DEBUG, as `make run`): a page served on port 8123
    opens its socket, which the consumer then answers (4404: no such match)."""
    communicator = WebsocketCommunicator(
        application,
        "/ws/matches/987654/",
        headers=_headers("http://127.0.0.1:8123", "127.0.0.1:8123"),
    )
    connected, _ = await communicator.connect(timeout=10)
    try:
        assert connected
        closed = await communicator.receive_output(timeout=10)
        assert (closed["type"], closed["code"]) == ("websocket.close", 4404)
    finally:
        await communicator.disconnect()
