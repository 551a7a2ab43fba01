"""Whatever ends a member's sessions closes their open sockets at once, over the real server.

The web process runs as deployed (tests/live_server.py: ``python -m wordduel.serve``). A
member's socket sits idle on a members-only match; then their sessions end (signing out
everywhere else, a password change, a password reset by the mailed link, deleting the
account) or their membership does (an organiser removes them), here in the test process, as
another web process would: the sign-out travels through the channel layer. The very next move
is made at once by a player still signed in. The idle socket must be told why and closed
(4401) before that move's news: no ``turn``, and no ``rack`` even when the move is its own
member's (made from a new session). Before, such a socket stayed open and received both.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from accounts import services as account_services
from accounts.models import Member
from matches.models import Match
from tests.live_server import WebServer
from tests.matches.test_ws_helpers import new_client_id, seeded_match, session_cookie, socket_path

pytestmark = pytest.mark.django_db(transaction=True)

#: Generous bound for a frame that must arrive; a failure, never a measurement.
ARRIVAL_TIMEOUT = 15
PASSWORD = "pw-correct-horse"
NEW_PASSWORD = "a-new-horse-battery-9"
SIGNED_OUT = {
    "type": "error",
    "code": "signed_out",
    "message": "Your session has ended. Sign in again.",
}
MEMBERSHIP_ENDED = {
    "type": "error",
    "code": "membership_ended",
    "message": "You are no longer a member of the club.",
}


@pytest.fixture
def open_socket(web_server: WebServer) -> Iterator[Callable[..., ClientConnection]]:
    """A socket on the real server with ``cookie`` (a session), its snapshot read."""
    connections = contextlib.ExitStack()

    def open_(match: Match, cookie: str) -> ClientConnection:
        connection = connections.enter_context(
            connect(
                web_server.ws_url + socket_path(match.id),
                origin=web_server.url,  # type: ignore[arg-type]
                additional_headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={cookie}"},
                proxy=None,
                open_timeout=ARRIVAL_TIMEOUT,
            )
        )
        first = json.loads(connection.recv(timeout=ARRIVAL_TIMEOUT))
        assert (first["type"], first.get("reason")) == ("snapshot", "connect"), first
        return connection

    with connections:
        yield open_


def until_closed(connection: ClientConnection) -> tuple[list[dict[str, Any]], int | None]:
    """Every frame the socket receives until the server closes it, and the close code (None
    for a socket still open once nothing more has come for ``ARRIVAL_TIMEOUT``)."""
    frames = []
    try:
        while True:
            frames.append(json.loads(connection.recv(timeout=ARRIVAL_TIMEOUT)))
    except ConnectionClosed as closed:
        return frames, closed.rcvd.code if closed.rcvd else None
    except TimeoutError:
        return frames, None


def until(connection: ClientConnection, wanted: Callable[[dict[str, Any]], bool]) -> dict:
    while True:
        frame = json.loads(connection.recv(timeout=ARRIVAL_TIMEOUT))
        if wanted(frame):
            return frame


def signed_in_client(member: Member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def sign_out_elsewhere(member: Member, organiser: Member) -> dict[str, str]:
    response = signed_in_client(member).post("/accounts/sign-out-elsewhere/")
    assert response.status_code == 302
    return SIGNED_OUT


def change_password(member: Member, organiser: Member) -> dict[str, str]:
    response = signed_in_client(member).post(
        "/accounts/password/change/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return SIGNED_OUT


def reset_password(member: Member, organiser: Member) -> dict[str, str]:
    """Through the link the reset mail carries (Django's token for the member)."""
    client = Client()
    uid = urlsafe_base64_encode(force_bytes(member.pk))
    token = default_token_generator.make_token(member)
    form_page = client.get(f"/accounts/password/reset/{uid}/{token}/", follow=True)
    form_url = form_page.redirect_chain[-1][0]
    assert form_url.endswith("/set-password/"), form_page.redirect_chain
    response = client.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert response.status_code == 302
    assert response["Location"].endswith("/accounts/password/reset/complete/")
    return SIGNED_OUT


def delete_account(member: Member, organiser: Member) -> dict[str, str]:
    response = signed_in_client(member).post("/accounts/delete/", {"password": PASSWORD})
    assert "Your account is deleted." in response.content.decode()
    return SIGNED_OUT


def remove_from_the_club(member: Member, organiser: Member) -> dict[str, str]:
    account_services.membership_remove(organiser=organiser, member_id=member.pk)
    return MEMBERSHIP_ENDED


@pytest.mark.parametrize(
    ("end_it", "whose"),
    [
        (sign_out_elsewhere, "player"),
        (change_password, "player"),
        (reset_password, "player"),
        (delete_account, "spectator"),
        (remove_from_the_club, "spectator"),
    ],
    ids=lambda value: getattr(value, "__name__", value),
)
def test_an_idle_socket_is_closed_before_the_next_moves_news(
    end_it, whose, open_socket, make_fixture, make_member, organiser, alice, bob
) -> None:
    """(A deleted account's own matches are resigned first, and a removed member's seats are
    the organisers' to settle: those two watch someone else's game here.)"""
    carol = make_member("carol")
    match = seeded_match(make_fixture, alice, bob, seed=3, visibility=Match.Visibility.MEMBERS)
    subject = alice if whose == "player" else carol
    idle = open_socket(match, session_cookie(subject))
    bob_socket = open_socket(match, session_cookie(bob))

    told = end_it(subject, organiser)
    # At once, from a session of alice's that is signed in now: the next move, hers.
    alice_now = open_socket(match, session_cookie(Member.objects.get(pk=alice.pk)))
    alice_now.send(json.dumps({"type": "pass", "id": new_client_id("after"), "turn": 0}))

    frames, code = until_closed(idle)
    assert (frames, code) == ([told], 4401)  # not the turn, nor alice's new rack
    # The move went out: to the other player, and its rack to alice's socket still signed in.
    until(bob_socket, lambda frame: frame["type"] == "turn")
    rack = until(alice_now, lambda frame: frame["type"] == "rack")
    assert rack["data"]["turn_number"] == 1
