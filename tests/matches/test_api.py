"""The JSON API: the replay equals what each viewer saw live, access is the pages', bad input
is a 4xx JSON answer, and the bag's seed never leaves the server before the end.
"""

from __future__ import annotations

import json
from typing import Any

import openapi_schema_validator
import openapi_spec_validator
import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse

from accounts.models import Member
from matches import services, visibility
from matches.models import Match
from tests.matches.api_schema import answer_conforms, served_schema
from tests.matches.test_records import play_out, play_to_the_end

pytestmark = pytest.mark.django_db

#: The facts of a position that a replay must reproduce exactly. Left out: the clock
#: (deadlines move on), the share link, and the seed (revealed only at the end).
POSITION_KEYS = (
    "match_id",
    "name",
    "ruleset",
    "lexicon",
    "board_size",
    "visibility",
    "status",
    "result",
    "end_reason",
    "turn_number",
    "to_move",
    "bag_count",
    "board",
    "moves",
    "seats",
    "your_seat",
    "rack",
    "bag_commitment",
)


def _client(member: Member | None = None) -> Client:
    client = Client()
    if member is not None:
        client.force_login(member)
    return client


def _get(client: Client, url: str, params: dict[str, Any] | None = None) -> tuple[int, Any]:
    """GET an API answer; every one is JSON and must be what the served schema says."""
    response = client.get(url, params or {})
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    answer_conforms("GET", url, response.status_code, response.json())
    return response.status_code, response.json()


def _conforms(instance: Any, name: str) -> None:
    """Check an answer against the served OpenAPI schema's component ``name``."""
    spec = served_schema()
    schema = {"$ref": f"#/components/schemas/{name}", "components": spec["components"]}
    openapi_schema_validator.validate(instance, schema, cls=openapi_schema_validator.OAS31Validator)


# ---------------------------------------------------------------- the schema


def test_the_schema_is_served_and_is_valid_openapi() -> None:
    status, body = _get(Client(), reverse("api:openapi-json"))
    assert status == 200
    assert body["openapi"].startswith("3.")
    openapi_spec_validator.validate(body)
    assert set(body["paths"]) >= {
        "/api/matches/",
        "/api/matches/{match_id}/",
        "/api/matches/{match_id}/replay",
        "/api/matches/{match_id}/contribute",
        "/api/matches/{match_id}/export.gcg",
    }


# ---------------------------------------------------------------- replay == live


def test_replay_at_every_turn_equals_what_each_viewer_saw_live(
    live_match: Match, alice: Member, bob: Member
) -> None:
    viewers = {"spectator": None, "alice": alice, "bob": bob}
    live: dict[str, list[dict[str, Any]]] = {name: [] for name in viewers}

    def record(match: Match) -> None:
        match = Match.objects.prefetch_related("seats__member").get(pk=match.pk)
        for name, member in viewers.items():
            access = services.look_at_match(
                user=member or AnonymousUser(), match_id=match.pk, key=None
            )
            snapshot = visibility.match_view(access).model_dump(mode="json")
            if snapshot["turn_number"] == len(live[name]) - 1:
                # A resignation ends the game without a turn: what viewers see at the last
                # turn is now the ended position.
                assert match.status == Match.Status.FINISHED
                live[name][-1] = snapshot
                continue
            assert snapshot["turn_number"] == len(live[name])
            live[name].append(snapshot)

    record(live_match)  # the opening position, right after the deal
    match = play_to_the_end(live_match, (alice, bob), seed=12, after_turn=record)
    assert match.status == Match.Status.FINISHED
    count = match.turn_number
    assert count == len(live["alice"]) - 1 >= 6
    assert any(move["kind"] == "swap" for move in live["alice"][-1]["moves"])

    for name, member in viewers.items():
        client = _client(member)
        url = reverse("api:match-replay", args=[match.id])
        for turn in range(count + 1):
            status, replay = _get(client, url, {"turn": turn})
            assert status == 200, replay
            expected = live[name][turn]
            assert {key: replay[key] for key in POSITION_KEYS} == {
                key: expected[key] for key in POSITION_KEYS
            }, f"{name} at turn {turn}"
            assert replay["turn"] == turn
            assert replay["turn_count"] == count
            assert replay["final"] == (turn == count)
            assert replay["bag_seed"] == match.bag_seed  # the match is over now
            if turn in (0, count):
                _conforms(replay, "Replay")
    assert all(snapshot["rack"] is None for snapshot in live["spectator"])


def test_replay_of_a_live_match_stops_at_the_current_turn(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=5, turns=3)
    url = reverse("api:match-replay", args=[match.id])
    client = _client(bob)
    status, body = _get(client, url, {"turn": 3})
    assert status == 200
    assert body["status"] == Match.Status.LIVE
    assert body["final"] is True
    assert body["bag_seed"] is None
    assert body["rack"] == list(match.seats.get(position=1).rack)
    status, body = _get(client, url, {"turn": 4})
    assert status == 400
    assert body["code"] == "bad_turn"
    assert body["turn_count"] == 3


@pytest.mark.parametrize("turn", ["", "x", "-1", "1.5", "99", "1e3", "9" * 5000, "0x1"])
def test_a_bad_turn_is_a_clear_400(live_match: Match, turn: str) -> None:
    url = reverse("api:match-replay", args=[live_match.id])
    status, body = _get(Client(), url, {"turn": turn})
    assert status == 400
    assert body["code"] == "bad_turn"
    assert "turn must be a whole number from 0 to 0" in body["error"]


def test_a_missing_turn_is_a_clear_400(live_match: Match) -> None:
    status, body = _get(Client(), reverse("api:match-replay", args=[live_match.id]))
    assert status == 400
    assert body["error"].startswith("Name the turn")


def test_turn_zero_of_a_scheduled_match_is_the_empty_board(make_fixture, alice: Member) -> None:
    match = make_fixture(first=alice)
    status, body = _get(_client(alice), reverse("api:match-replay", args=[match.id]), {"turn": 0})
    assert status == 200
    assert body["status"] == Match.Status.SCHEDULED
    assert body["moves"] == []
    assert set("".join(body["board"])) == {"."}
    assert body["rack"] == []


# ---------------------------------------------------------------- access, as for the pages

ACTORS = ("anonymous", "right key", "wrong key", "member", "player", "opponent", "organiser")


@pytest.fixture
def actors(organiser: Member, alice: Member, bob: Member, make_member) -> dict[str, Any]:
    return {
        "anonymous": None,
        "right key": None,
        "wrong key": None,
        "member": make_member("carol"),
        "player": alice,
        "opponent": bob,
        "organiser": organiser,
    }


@pytest.mark.parametrize("visibility_", [Match.Visibility.PUBLIC, Match.Visibility.MEMBERS])
@pytest.mark.parametrize("actor", ACTORS)
def test_access_matrix(
    make_fixture, actors: dict[str, Any], alice: Member, bob: Member, visibility_: str, actor: str
) -> None:
    match = make_fixture(first=alice, second=bob, visibility=visibility_)
    match = play_out(match, (alice, bob), seed=2, turns=2)
    key = {"right key": match.viewing_key, "wrong key": "not-the-key"}.get(actor)
    params = {"key": key} if key else {}
    client = _client(actors[actor])
    allowed = visibility_ == Match.Visibility.PUBLIC or actor not in ("anonymous", "wrong key")

    state_url = reverse("api:match", args=[match.id])
    replay_url = reverse("api:match-replay", args=[match.id])
    status, state = _get(client, state_url, params)
    replay_status, replay = _get(client, replay_url, {**params, "turn": 1})
    gcg = client.get(reverse("api:match-export-gcg", args=[match.id]), params)
    if not allowed:
        assert (status, replay_status, gcg.status_code) == (404, 404, 404)
        assert state == {"error": "No such match.", "code": "not_found"}
        assert replay == state
        return
    assert (status, replay_status, gcg.status_code) == (200, 200, 200)
    _conforms(state, "MatchState")
    seat = {"player": 0, "opponent": 1}.get(actor)
    assert state["your_seat"] == seat
    assert replay["your_seat"] == seat
    seats = {s.position: s for s in match.seats.all()}
    if seat is None:
        assert state["rack"] is None
        assert replay["rack"] is None
    else:
        assert state["rack"] == list(seats[seat].rack)
        # After turn 1: First has not moved again (their rack now); Second's is the rack
        # they held before turn 2.
        then = seats[0].rack if seat == 0 else match.turns.get(number=2).rack_before
        assert replay["rack"] == list(then)
    # Only the players and the organiser are handed a members-only match's viewing key.
    shares = visibility_ == Match.Visibility.MEMBERS and actor in (
        "player",
        "opponent",
        "organiser",
    )
    assert state["can_share"] is shares
    assert (state["viewing_key"] == match.viewing_key) is shares


@pytest.mark.parametrize("actor", ACTORS)
def test_the_list_holds_public_matches_and_members_only_ones_for_members(
    make_fixture, actors: dict[str, Any], alice: Member, bob: Member, actor: str
) -> None:
    public = make_fixture(first=alice, second=bob, name="Open")
    private = make_fixture(first=alice, second=bob, name="Closed", visibility="members")
    key = {"right key": private.viewing_key, "wrong key": "nope"}.get(actor)
    status, body = _get(_client(actors[actor]), reverse("api:matches"), {"key": key} if key else {})
    assert status == 200
    _conforms(body, "MatchList")
    ids = [row["id"] for row in body["results"]]
    signed_in = actors[actor] is not None
    assert ids == ([private.id, public.id] if signed_in else [public.id])
    assert body["count"] == len(ids)


def test_the_list_filters_and_pages(make_fixture, alice: Member, bob: Member) -> None:
    live = make_fixture(first=alice, second=bob)
    scheduled = make_fixture(first=alice)
    url = reverse("api:matches")
    _, body = _get(Client(), url, {"status": "scheduled"})
    assert [row["id"] for row in body["results"]] == [scheduled.id]
    _, body = _get(Client(), url, {"limit": 1, "offset": 1})
    assert [row["id"] for row in body["results"]] == [live.id]
    assert body["count"] == 2
    for params in ({"status": "won"}, {"limit": 0}, {"limit": "x"}, {"offset": -1}):
        status, body = _get(Client(), url, params)
        assert status == 400, params
        assert body["error"]


def test_unknown_matches_and_wrong_methods_answer_in_json(live_match: Match) -> None:
    client = Client()
    for url in (
        reverse("api:match", args=[live_match.id + 999]),
        "/api/matches/99999999999999999999999/",
        "/api/matches/99999999999999999999999/replay?turn=0",
    ):
        status, body = _get(client, url)
        assert status == 404, url
        assert body["code"] == "not_found"
    response = client.post(reverse("api:match", args=[live_match.id]))
    assert response.status_code == 405
    assert response["Allow"] == "GET"
    assert response.json()["code"] == "method_not_allowed"
    response = client.get(reverse("api:match-contribute", args=[live_match.id]))
    assert response.status_code == 405


# ---------------------------------------------------------------- the seed stays secret


def test_the_seed_is_in_no_answer_or_page_before_the_end(
    make_fixture, organiser: Member, alice: Member, bob: Member
) -> None:
    match = make_fixture(first=alice, second=bob, visibility="members")
    seed = match.bag_seed
    key = match.viewing_key

    def scan(client: Client, *, keyed: bool = False) -> int:
        extra = f"?key={key}" if keyed else ""
        join = "&" if keyed else "?"
        urls = [
            reverse("home"),
            reverse("match", args=[match.id]) + extra,
            reverse("api:openapi-json"),
            reverse("api:matches"),
            reverse("api:match", args=[match.id]) + extra,
            reverse("api:match-export-gcg", args=[match.id]) + extra,
        ]
        urls += [
            reverse("api:match-replay", args=[match.id]) + f"{extra}{join}turn={turn}"
            for turn in range(match.turn_number + 1)
        ]
        checked = 0
        for url in urls:
            response = client.get(url)
            assert response.status_code in (200, 302), url
            text = response.content.decode()
            assert seed not in text.lower(), url
            checked += 1
        return checked

    clients = [(_client(m), False) for m in (alice, bob, organiser)] + [(Client(), True)]
    match = play_out(match, (alice, bob), seed=4, turns=5)
    assert match.status == Match.Status.LIVE
    for client, keyed in clients:
        assert scan(client, keyed=keyed) >= 12
    my_matches = _client(alice).get(reverse("my-matches")).content.decode()
    assert seed not in my_matches
    # After the end, the seed is published with the commitment.
    match = play_out(match, (alice, bob), seed=4)
    assert match.is_over
    _, state = _get(_client(alice), reverse("api:match", args=[match.id]))
    assert state["bag"]["seed"] == seed == state["bag_seed"]
    assert state["bag"]["commitment"] == match.bag_commitment


# ---------------------------------------------------------------- contributing over HTTP


@pytest.fixture
def scheduled(make_fixture, alice: Member) -> Match:
    """Alice seated, Bob's seat free: the deal has not happened yet."""
    return make_fixture(first=alice)


def _csrf_client(member: Member | None) -> tuple[Client, str]:
    client = Client(enforce_csrf_checks=True)
    if member is not None:
        client.force_login(member)
    token = "t" * 32
    client.cookies["csrftoken"] = token
    return client, token


def _post(client: Client, url: str, body: Any, token: str | None) -> Any:
    headers = {"X-CSRFToken": token} if token else {}
    data = body if isinstance(body, str) else json.dumps(body)
    return client.post(url, data, content_type="application/json", headers=headers)


def test_contributing_needs_the_csrf_token(scheduled: Match, alice: Member) -> None:
    url = reverse("api:match-contribute", args=[scheduled.id])
    client, token = _csrf_client(alice)
    value = "ab" * 16
    assert _post(client, url, {"value": value}, None).status_code == 403
    scheduled.refresh_from_db()
    assert scheduled.seats.get(position=0).contribution == ""
    response = _post(client, url, {"value": value.upper()}, token)
    assert response.status_code == 200, response.content
    assert response.json() == {"position": 0, "value": value}
    _, state = _get(_client(alice), reverse("api:match", args=[scheduled.id]))
    assert state["bag"]["contributions"] == [
        {"position": 0, "value": value},
        {"position": 1, "value": None},
    ]
    response = _post(client, url, {"value": "cd" * 16}, token)
    assert response.status_code == 400
    assert response.json()["error"] == "Your seat has already added its value to the bag."


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ("not json", 400, "bad_body"),
        ([], 400, "bad_body"),
        ({"value": 5}, 400, "bad_body"),
        ({}, 400, "bad_body"),
        ({"value": "ab" * 15}, 400, "refused"),
        ({"value": "ab" * 33}, 400, "refused"),
        ({"value": "zz" * 16}, 400, "refused"),
        ({"value": "abc" * 11}, 400, "refused"),
    ],
)
def test_bad_contributions_are_clear_400s(
    scheduled: Match, alice: Member, body: Any, status: int, code: str
) -> None:
    client, token = _csrf_client(alice)
    response = _post(client, reverse("api:match-contribute", args=[scheduled.id]), body, token)
    assert response.status_code == status
    assert response.json()["code"] == code
    assert response.json()["error"]


def test_only_a_seated_member_may_contribute(
    scheduled: Match, bob: Member, make_fixture, alice: Member
) -> None:
    url = reverse("api:match-contribute", args=[scheduled.id])
    for member, message in (
        (None, "Sign in to add your randomness to the bag."),
        (bob, "Only a player seated in this match can add to its bag."),
    ):
        client, token = _csrf_client(member)
        response = _post(client, url, {"value": "ab" * 16}, token)
        assert response.status_code == 403
        assert response.json()["error"] == message
    private = make_fixture(first=alice, visibility="members")
    client, token = _csrf_client(None)
    url = reverse("api:match-contribute", args=[private.id])
    assert _post(client, url, {"value": "ab" * 16}, token).status_code == 404


def test_the_fair_bag_include_renders_for_a_seated_player(scheduled: Match, alice: Member) -> None:
    from django.template.loader import render_to_string
    from django.test import RequestFactory

    request = RequestFactory().get("/")
    request.user = alice
    match = scheduled
    page = visibility.match_page(services.look_at_match(user=alice, match_id=match.pk, key=None))
    html = render_to_string("matches/_fair_bag.html", {"m": page}, request=request)
    assert "crypto.getRandomValues" in html
    assert reverse("api:match-contribute", args=[match.id]) in html
    assert "csrfmiddlewaretoken" in html
    assert match.bag_commitment in html
    assert match.bag_seed not in html
    # A spectator sees the commitment but no contribute button.
    request.user = bob = Member.objects.create_user(username="dave", password="x")
    page = visibility.match_page(services.look_at_match(user=bob, match_id=match.pk, key=None))
    html = render_to_string("matches/_fair_bag.html", {"m": page}, request=request)
    assert match.bag_commitment in html
    assert "crypto.getRandomValues" not in html
