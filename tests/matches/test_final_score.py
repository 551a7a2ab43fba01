"""How the final score was reached (issue 20): the end-of-game breakdown in the API's match
state, the replay's last step, the socket's ``ended`` news and the match page.

It reveals nothing early: ``null`` until the game is over, and never a rack's letters (the
GCG record's end-of-game lines publish the same counts and values after the end, RECORDS.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse

from accounts.models import Member
from engine import get_ruleset
from matches import services, visibility
from matches.models import Match, Seat
from tests.matches.api_schema import answer_conforms
from tests.matches.helpers import commit_now, opening_play, rack_of
from tests.matches.test_records import play_out

pytestmark = pytest.mark.django_db


def _get(member: Member | None, url: str, params: dict[str, Any] | None = None) -> Any:
    """An API answer for ``member`` (or a signed-out visitor), checked against the schema."""
    client = Client()
    if member is not None:
        client.force_login(member)
    response = client.get(url, params or {})
    assert response.status_code == 200, response.content[:300]
    answer_conforms("GET", url, response.status_code, response.json())
    return response.json()


def _six_scoreless(match: Match, alice: Member, bob: Member) -> Match:
    """An opening, then six passes: the game ends and both racks are deducted."""
    commit_now(match, alice, opening_play(rack_of(match, 0)), assert_accepted=True)
    for turn in range(6):
        commit_now(match, bob if turn % 2 == 0 else alice, {"kind": "pass"}, assert_accepted=True)
    match.refresh_from_db()
    assert match.end_reason == Match.EndReason.SIX_SCORELESS
    return match


def _letters_in(final: dict[str, Any]) -> set[str]:
    """Every string anywhere in a final_score: there should be none (only numbers)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item)
                assert isinstance(key, str)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(final)
    return found


def test_nothing_is_shown_before_the_end(live_match: Match, alice: Member, bob: Member) -> None:
    match = live_match
    commit_now(match, alice, opening_play(rack_of(match, 0)), assert_accepted=True)
    state = _get(bob, reverse("api:match", args=[match.id]))
    assert state["final_score"] is None
    replay = _get(None, reverse("api:match-replay", args=[match.id]), {"turn": 1})
    assert replay["final"] is True  # the latest position of a live match
    assert replay["final_score"] is None


def test_six_scoreless_turns_each_rack_deducted_in_the_api_and_the_replays_last_step(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = _six_scoreless(live_match, alice, bob)
    rules = get_ruleset(match.ruleset)
    racks = [rack_of(match, 0), rack_of(match, 1)]
    last = match.turns.order_by("number").last()
    assert last is not None
    before = [last.first_total, last.second_total]
    final = list(
        Seat.objects.filter(match=match).order_by("position").values_list("score", flat=True)
    )
    expected = {
        "before": before,
        "adjustments": [
            {
                "position": 0,
                "rack_owner": 0,
                "tile_count": len(racks[0]),
                "points": -rules.rack_value(tuple(racks[0])),
                "totals": [before[0] - rules.rack_value(tuple(racks[0])), before[1]],
            },
            {
                "position": 1,
                "rack_owner": 1,
                "tile_count": len(racks[1]),
                "points": -rules.rack_value(tuple(racks[1])),
                "totals": final,
            },
        ],
        "final": final,
    }
    for viewer in (None, alice, bob):
        state = _get(viewer, reverse("api:match", args=[match.id]))
        assert state["final_score"] == expected
        assert _letters_in(state["final_score"]) == set()
        url = reverse("api:match-replay", args=[match.id])
        assert _get(viewer, url, {"turn": 7})["final_score"] == expected
        assert _get(viewer, url, {"turn": 6})["final_score"] is None
    # The socket's news of the end carries the same (its builder, as the service sends it).
    seats = list(Seat.objects.filter(match=match).order_by("position"))
    news = visibility.result_news(match, seats).model_dump(mode="json")
    assert news["final_score"] == expected


def test_going_out_gains_the_opponents_rack(live_match: Match, alice: Member, bob: Member) -> None:
    match = play_out(live_match, (alice, bob), seed=3)
    assert match.end_reason == Match.EndReason.PLAYED_OUT, "seed 3 plays out (deterministic)"
    access = services.look_at_match(user=AnonymousUser(), match_id=match.id, key=None)
    final = visibility.match_view(access).final_score
    assert final is not None
    out = 0 if match.turns.order_by("number").last().position == 0 else 1  # type: ignore[union-attr]
    gain, loss = final.adjustments
    assert (gain.position, gain.rack_owner) == (out, 1 - out)
    assert (loss.position, loss.rack_owner) == (1 - out, 1 - out)
    assert gain.points == -loss.points > 0
    assert gain.tile_count == loss.tile_count == len(rack_of(match, 1 - out))
    assert final.final == (match.seats.get(position=0).score, match.seats.get(position=1).score)
    assert final.before[out] + gain.points == final.final[out]


def test_the_match_page_shows_the_breakdown_without_javascript(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = _six_scoreless(live_match, alice, bob)
    html = Client().get(reverse("match", args=[match.id])).content.decode()
    assert 'id="final-score"' in html
    assert "How the final score was reached" in html
    assert f"alice (First): {len(rack_of(match, 0))} tiles left on the rack" in html
    value = get_ruleset(match.ruleset).rack_value(tuple(rack_of(match, 0)))
    assert f"<td>\u2212{value}</td><td></td>" in html
