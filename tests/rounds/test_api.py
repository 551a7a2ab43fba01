"""/api/rounds/: open, join, start, start a round, submit, read; every refusal a clear 4xx
with the service's code, nothing changed; the state as the caller may see it."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from rounds.models import RoundsMatch

pytestmark = pytest.mark.django_db(transaction=True)


def _post(client: Client, path: str, body: object | None = None):
    data = "" if body is None else json.dumps(body)
    return client.post(path, data=data, content_type="application/json")


def test_a_rounds_match_through_the_api(make_member) -> None:
    alice, bob = make_member("alice"), make_member("bob")
    host, guest, visitor = Client(), Client(), Client()
    host.force_login(alice)
    guest.force_login(bob)

    opened = _post(host, "/api/rounds/", {"name": "API night", "turn_seconds": 120})
    assert opened.status_code == 201, opened.content
    state = opened.json()["state"]
    match_id = state["id"]
    assert (state["status"], state["settings"]["turn_seconds"]) == ("open", 120)

    for body in ({"name": "x", "turn_seconds": 10**20}, {"name": "x", "turn_seconds": 30}, {}):
        bad = _post(host, "/api/rounds/", body)
        assert bad.status_code == 400, bad.content
        assert bad.json()["code"] in {"bad_body", "invalid_rounds_match"}
    assert RoundsMatch.objects.count() == 1
    refused = _post(host, f"/api/rounds/{match_id}/start")
    assert (refused.status_code, refused.json()["code"]) == (409, "not_enough_players")
    assert _post(guest, f"/api/rounds/{match_id}/join").json()["code"] == "joined"
    refused = _post(guest, f"/api/rounds/{match_id}/start")
    assert (refused.status_code, refused.json()["code"]) == (403, "host_only")
    started = _post(host, f"/api/rounds/{match_id}/start")
    assert started.json()["state"]["round_number"] == 1

    bad = _post(host, f"/api/rounds/{match_id}/start-round", {"round": "one"})
    assert (bad.status_code, bad.json()["code"]) == (400, "bad_body")
    early = _post(host, f"/api/rounds/{match_id}/submit", {"round": 1, "pass": True})
    assert (early.status_code, early.json()["code"]) == (409, "round_not_started")
    mine = _post(host, f"/api/rounds/{match_id}/start-round", {"round": 1}).json()["state"]
    assert len(mine["your_round"]["tray"]) == 7
    # Nobody else sees alice's tray: not bob, not a visitor.
    for other in (guest, visitor):
        seen = other.get(f"/api/rounds/{match_id}").json()
        assert seen["your_round"] is None
        assert mine["your_round"]["tray"] not in json.dumps(seen)
        assert seen["players"][0]["started"] is True
        assert seen["bag_seed"] is None

    both = _post(host, f"/api/rounds/{match_id}/submit", {"round": 1, "pass": True, "tiles": [
        {"row": 7, "col": 7, "letter": "A"}]})  # fmt: skip
    assert (both.status_code, both.json()["code"]) == (400, "bad_body")
    passed = _post(host, f"/api/rounds/{match_id}/submit", {"round": 1, "pass": True})
    assert passed.json()["state"]["your_round"]["submission"]["kind"] == "pass"
    stale = _post(host, f"/api/rounds/{match_id}/start-round", {"round": 2})
    assert (stale.status_code, stale.json()["code"]) == (409, "stale_round")

    anonymous = _post(visitor, f"/api/rounds/{match_id}/join")
    assert (anonymous.status_code, anonymous.json()["code"]) == (403, "sign_in_required")
    assert visitor.get("/api/rounds/999999").status_code == 404
    match = RoundsMatch.objects.get(pk=match_id)
    assert match.players.count() == 2
