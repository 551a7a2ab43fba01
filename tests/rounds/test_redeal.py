"""A tray with no play is put back and redealt (docs/RULES.md section 19) on the server: the
rejected tray is public at once, on the board page, the API and the replay, and the bag check
(docs/RECORDS.md, "Word Skill rounds") deals the same trays from the seed and the log."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.test import Client

from engine import Pass
from engine.rounds import action_from_json, replay
from lexicon.lexicon import get_lexicon
from rounds import services
from rounds.models import RoundsMatch
from tests.rounds.helpers import TURN, game, open_match, record
from tests.rounds.test_pages import client_for, embedded_view

pytestmark = pytest.mark.django_db

#: A bag seed whose first tray (DLNNTWX) has no word on the empty board in ENABLE.
UNPLAYABLE_FIRST = (20).to_bytes(32, "big").hex()


def redealt_match(host, *others) -> RoundsMatch:
    match = open_match(host, *others, start=False)
    RoundsMatch.objects.filter(pk=match.pk).update(
        bag_seed=UNPLAYABLE_FIRST,
        bag_commitment=hashlib.sha256(bytes.fromhex(UNPLAYABLE_FIRST)).hexdigest(),
    )
    services.rounds_start(match_id=match.pk, member=host)
    match.refresh_from_db()
    return match


def test_a_first_tray_with_no_play_is_redealt_and_shown_to_everyone(alice, bob) -> None:
    match = redealt_match(alice, bob)
    assert match.status == RoundsMatch.Status.LIVE
    current = game(match).current
    assert current is not None
    assert current.redealt == (tuple("DLNNTWX"),)
    for member in (alice, bob, None):
        view = embedded_view(client_for(member).get(f"/rounds/{match.pk}/").content.decode())
        assert view["redealt"] == ["DLNNTWX"]
        assert view["your_round"] is None  # the tray dealt after it is still secret
        assert "".join(current.tray) not in json.dumps(view)
    api = Client().get(f"/api/rounds/{match.pk}").json()
    assert api["redealt"] == ["DLNNTWX"]


def test_the_replay_and_the_bag_check_follow_the_redeal(alice, bob) -> None:
    match = redealt_match(alice, bob)
    for member in (alice, bob):
        services.rounds_start_round(match_id=match.pk, member=member, round_number=1)
        services.rounds_submit(match_id=match.pk, member=member, round_number=1, move=Pass())
    assert record(match, 1).redealt == (tuple("DLNNTWX"),)
    html = client_for(None).get(f"/rounds/{match.pk}/replay/").content.decode()
    assert "Tray redealt: no play possible with" in html
    assert "D L N N T W X" in html
    view = Client().get(f"/api/rounds/{match.pk}").json()
    assert view["rounds"][0]["redealt"] == ["DLNNTWX"]
    assert view["redealt"] == []  # round 2's tray had a play at once
    # The bag check: the seed and the log deal round 1's rejected tray, then its tray.
    match.refresh_from_db()
    rebuilt = replay(
        [action_from_json(row) for row in match.actions],
        players=2,
        seed=bytes.fromhex(match.bag_seed),
        turn_time_ms=int(TURN.total_seconds() * 1000),
        lexicon=get_lexicon("enable", max_len=15),
    )
    assert rebuilt.rounds[0].redealt == record(match, 1).redealt
    assert rebuilt.rounds[0].tray == record(match, 1).tray
    assert rebuilt.position_json() == game(match).position_json()
