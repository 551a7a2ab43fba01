"""``/api/challenges/``: the same services over JSON, each answer checked against the served
OpenAPI document, every refusal a JSON error with its code that changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from challenges import services
from challenges.models import Challenge, RematchOffer
from matches.models import Match
from tests.matches.api_schema import answer_conforms

pytestmark = pytest.mark.django_db

TOKEN = "t" * 32


def _client(member=None) -> Client:
    client = Client(enforce_csrf_checks=True)
    if member is not None:
        client.force_login(member)
    client.cookies["csrftoken"] = TOKEN
    return client


def _call(client: Client, method: str, url: str, body: Any = None, *, csrf: bool = True):
    headers = {"X-CSRFToken": TOKEN} if csrf else {}
    if method == "GET":
        response = client.get(url)
    else:
        data = body if isinstance(body, str) else json.dumps(body if body is not None else {})
        response = client.post(url, data, content_type="application/json", headers=headers)
    payload = response.json()
    answer_conforms(method, url, response.status_code, payload)
    return response.status_code, payload


def test_post_list_and_accept_over_the_api(alice, bob) -> None:
    status, posted = _call(
        _client(alice), "POST", "/api/challenges/", {"rated": True, "opponent": "bob"}
    )
    assert status == 201
    assert posted == {"id": posted["id"], "status": "open", "match_id": None}
    assert Challenge.objects.get().rated is True
    status, listed = _call(_client(bob), "GET", "/api/challenges/")
    assert status == 200
    [line] = listed["results"]
    assert (line["poster"], line["opponent"], line["can_accept"]) == ("alice", "bob", True)
    status, accepted = _call(_client(bob), "POST", f"/api/challenges/{posted['id']}/accept")
    assert status == 200
    match = Match.objects.get()
    assert accepted == {"id": posted["id"], "status": "accepted", "match_id": match.id}
    assert match.status == Match.Status.LIVE


def test_withdraw_over_the_api(alice) -> None:
    challenge = services.challenge_post(member=alice)
    status, body = _call(_client(alice), "POST", f"/api/challenges/{challenge.pk}/withdraw")
    assert (status, body["status"]) == (200, "withdrawn")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("not json", "bad_body"),
        ([], "bad_body"),
        ({"rated": "yes"}, "bad_body"),
        ({"ruleset": 5}, "bad_body"),
        ({"ruleset": "speedy"}, "invalid_challenge"),
        ({"opponent": "nobody"}, "invalid_challenge"),
    ],
)
def test_a_bad_challenge_is_a_400_that_changes_nothing(alice, unchanged, body, code) -> None:
    with unchanged():
        status, answer = _call(_client(alice), "POST", "/api/challenges/", body)
    assert (status, answer["code"]) == (400, code)


def test_refusals_by_who_asks(alice, bob, pending, unchanged) -> None:
    challenge = services.challenge_post(member=alice)
    with unchanged():
        assert _call(_client(), "GET", "/api/challenges/")[1]["code"] == "sign_in_required"
        assert _call(_client(pending), "GET", "/api/challenges/")[1]["code"] == "members_only"
        status, answer = _call(_client(pending), "POST", "/api/challenges/", {})
        assert (status, answer["code"]) == (403, "members_only")
        status, answer = _call(_client(alice), "POST", f"/api/challenges/{challenge.pk}/accept")
        assert (status, answer["code"], answer["error"]) == (
            409,
            "challenge_unavailable",
            services.OWN_CHALLENGE,
        )
        status, answer = _call(_client(bob), "POST", f"/api/challenges/{challenge.pk}/withdraw")
        assert (status, answer["code"]) == (403, "not_allowed")
        status, _ = _call(
            _client(bob), "POST", f"/api/challenges/{challenge.pk}/accept", csrf=False
        )
        assert status == 403  # no CSRF token: refused before anything is read


def test_a_rematch_over_the_api(finished_friendly, alice, bob, carol, unchanged) -> None:
    base = f"/api/challenges/rematch/{finished_friendly.id}"
    with unchanged():
        status, answer = _call(_client(carol), "POST", f"{base}/offer")
        assert (status, answer["code"]) == (403, "not_allowed")
        status, answer = _call(_client(bob), "POST", f"{base}/accept")
        assert (status, answer["code"]) == (409, "rematch_unavailable")
        status, answer = _call(_client(bob), "POST", "/api/challenges/rematch/999999/offer")
        assert (status, answer["code"]) == (404, "not_found")
    status, offered = _call(_client(alice), "POST", f"{base}/offer")
    assert (status, offered["status"], offered["rematch_id"]) == (200, "offered", None)
    status, accepted = _call(_client(bob), "POST", f"{base}/accept")
    rematch = RematchOffer.objects.get().rematch
    assert rematch is not None
    assert accepted == {
        "match_id": finished_friendly.id,
        "status": "accepted",
        "offered_by": "alice",
        "rematch_id": rematch.id,
    }
    assert [s.member_id for s in rematch.seats.order_by("position")] == [bob.pk, alice.pk]
