"""Per-address socket limits hold across web processes, and an IPv6 client's /64 is one address.

Two Daphne processes (``python -m wordduel.serve``, as deployed) share a throwaway Redis and
this run's test database; the clients are real websocket clients over loopback, a handful of
sockets each (a bounded load). Before, each process counted its own sockets, so a second
process doubled what one address could hold, every IPv6 address of a /64 was a fresh
allowance, and nothing limited new sockets or ``sync`` frames per address.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from matches.models import Match
from tests.reliability.harness import ORIGIN, DaphneServer, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]

#: Generous bound for a frame that must arrive; a failure, never a measurement.
ARRIVAL_TIMEOUT = 20
#: Daphne believing X-Forwarded-For, as deployed behind the proxy (deploy/Caddyfile).
BEHIND_A_PROXY = [sys.executable, "-m", "wordduel.serve", "--proxy-headers"]


class Opened:
    """A socket whose handshake was answered: its snapshot, or the code it was refused with."""

    def __init__(self, connection: ClientConnection | None, refused: int | None) -> None:
        self.connection = connection
        self.refused = refused


@pytest.fixture
def sockets() -> Iterator[Callable[..., Opened]]:
    """Open a socket to ``web`` for ``match`` (from ``address`` through the proxy's header);
    every one still open is closed after the test."""
    opened = contextlib.ExitStack()

    def open_(web: DaphneServer, match: Match, address: str | None = None) -> Opened:
        headers = {"X-Forwarded-For": address} if address else {}
        connection = opened.enter_context(
            connect(
                f"{web.ws_url}/ws/matches/{match.pk}/",
                origin=ORIGIN,  # type: ignore[arg-type]
                additional_headers=headers,
                proxy=None,
                open_timeout=ARRIVAL_TIMEOUT,
            )
        )
        try:
            first = json.loads(connection.recv(timeout=ARRIVAL_TIMEOUT))
        except ConnectionClosed as closed:
            return Opened(None, closed.rcvd.code if closed.rcvd else None)
        assert (first["type"], first.get("reason")) == ("snapshot", "connect"), first
        return Opened(connection, None)

    with opened:
        yield open_


def refused_with(opened: Opened) -> int | None:
    return opened.refused


def close(opened: Opened) -> None:
    assert opened.connection is not None
    opened.connection.close()


def sync(opened: Opened, client_id: str) -> dict[str, Any]:
    assert opened.connection is not None
    opened.connection.send(json.dumps({"type": "sync", "id": client_id}))
    while True:
        frame = json.loads(opened.connection.recv(timeout=ARRIVAL_TIMEOUT))
        if frame.get("id") == client_id:
            return frame


def test_two_web_processes_share_one_addresss_socket_cap(start_daphne, sockets, live_match):
    first, second = (start_daphne(WS_MAX_SOCKETS_PER_ADDRESS="3") for _ in range(2))
    held = [sockets(first, live_match), sockets(first, live_match), sockets(second, live_match)]
    assert [refused_with(opened) for opened in held] == [None, None, None]
    assert refused_with(sockets(second, live_match)) == 4430  # the address's fourth, anywhere
    assert refused_with(sockets(first, live_match)) == 4430
    close(held[0])  # a socket that closes gives its slot back, to the other process too
    opened = wait_until(
        lambda: (o := sockets(second, live_match)).refused is None and o,
        timeout=30,
        what="the closed socket's slot to come back",
        every=0.2,
    )
    assert opened.connection is not None
    assert refused_with(sockets(first, live_match)) == 4430


def test_an_ipv6_clients_whole_64_counts_as_one_address(start_daphne, sockets, live_match):
    first, second = (
        start_daphne(command=BEHIND_A_PROXY, WS_MAX_SOCKETS_PER_ADDRESS="2") for _ in range(2)
    )
    assert refused_with(sockets(first, live_match, "2001:db8:7:1::1")) is None
    assert refused_with(sockets(second, live_match, "2001:db8:7:1:abcd:ef01:2345:6789")) is None
    # A third address of the same /64, on either process: the same client.
    assert refused_with(sockets(first, live_match, "2001:db8:7:1:ffff:ffff:ffff:ffff")) == 4430
    assert refused_with(sockets(second, live_match, "2001:db8:7:1::2")) == 4430
    # The next /64, and an IPv4 client, are others.
    assert refused_with(sockets(second, live_match, "2001:db8:7:2::1")) is None
    assert refused_with(sockets(first, live_match, "198.51.100.7")) is None
    assert refused_with(sockets(second, live_match, "198.51.100.8")) is None


def test_new_sockets_a_minute_are_limited_per_address_across_processes(
    start_daphne, sockets, live_match
):
    first, second = (
        start_daphne(command=BEHIND_A_PROXY, WS_NEW_SOCKETS_PER_MINUTE="4") for _ in range(2)
    )
    for web in (first, second, first, second):  # each closed at once: never more than one open
        opened = sockets(web, live_match, "203.0.113.40")
        assert refused_with(opened) is None
        close(opened)
    assert refused_with(sockets(first, live_match, "203.0.113.40")) == 4431
    assert refused_with(sockets(second, live_match, "203.0.113.40")) == 4431
    assert refused_with(sockets(second, live_match, "203.0.113.41")) is None  # another address


def test_syncs_a_minute_are_limited_per_address_across_processes(start_daphne, sockets, live_match):
    first, second = (
        start_daphne(command=BEHIND_A_PROXY, WS_SYNCS_PER_MINUTE_PER_ADDRESS="4") for _ in range(2)
    )
    here = [sockets(first, live_match, "203.0.113.50"), sockets(second, live_match, "203.0.113.50")]
    answers = [sync(here[n % 2], f"s-{n}")["type"] for n in range(6)]
    assert answers == ["snapshot"] * 4 + ["error"] * 2
    assert sync(here[0], "s-again") == {
        "type": "error",
        "code": "sync_limited",
        "message": "Too many sync requests. Wait a minute; the news keeps coming.",
        "id": "s-again",
    }
    elsewhere = sockets(second, live_match, "203.0.113.51")
    assert sync(elsewhere, "s-elsewhere")["type"] == "snapshot"


def test_the_slots_of_a_process_that_died_expire(start_daphne, sockets, live_match):
    dying = start_daphne(WS_MAX_SOCKETS_PER_ADDRESS="2", WS_SOCKET_SLOT_SECONDS="3")
    staying = start_daphne(WS_MAX_SOCKETS_PER_ADDRESS="2", WS_SOCKET_SLOT_SECONDS="3")
    assert [refused_with(sockets(dying, live_match)) for _ in range(2)] == [None, None]
    assert refused_with(sockets(staying, live_match)) == 4430  # held while the process lives
    dying.kill()  # no goodbye: its sockets never give their slots back
    wait_until(
        lambda: refused_with(sockets(staying, live_match)) is None,
        timeout=60,
        what="the dead process's slots to expire",
        every=0.5,
    )
