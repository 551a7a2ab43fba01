"""Live play over websockets, end to end through the real ASGI application.

Every socket passes the origin check and session authentication of ``wordduel.asgi`` and
talks over the channels-redis layer to PostgreSQL. The frames sent here are the ones
``docs/PROTOCOL.md`` documents.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.sessions.models import Session
from django.utils import timezone

from accounts.models import Member
from lexicon.lexicon import get_lexicon
from matches import services
from matches.live.protocol import MAX_FRAME_BYTES
from matches.models import Match, Turn
from tests.matches.test_ws_helpers import (
    Opener,
    Socket,
    assert_tiles_conserved,
    legal_play,
    match_state,
    move_frame,
    new_client_id,
    privacy_leaks,
    public_record,
    rack_of,
    racks_ever_held,
    refusal_code,
    seeded_match,
    session_cookie,
    socket_opener,
)

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    """Opens sockets through the real application; closes them when the test ends."""
    async with socket_opener() as open_:
        yield open_


SNAPSHOT_FIELDS = {
    "match_id", "status", "kickoff_at", "turn_number", "to_move", "bag_count", "board",
    "moves", "seats", "your_seat", "rack", "result", "end_reason",
}  # fmt: skip


#: Longer than channels-redis's 5 s blocking read of the channel layer.
QUIET_SECONDS = 7


def pass_frame(turn: int, client_id: str | None = None) -> dict[str, Any]:
    return {"type": "pass", "id": client_id or new_client_id("pass"), "turn": turn}


async def assert_quiet(*sockets: Socket) -> None:
    for socket in sockets:
        assert await socket.is_quiet(), f"{socket.name} has frames it should not: {socket.unread}"


async def assert_private(match_id: int, sockets: dict[int | None, list[Socket]]) -> None:
    """No socket ever received a rack that was not its own seat's (None: not seated)."""
    racks = {position: await db(racks_ever_held)(match_id, position) for position in (0, 1)}
    public = await db(public_record)(match_id)
    for position, group in sockets.items():
        own = racks.get(position, set())
        foreign = set().union(*(racks[other] for other in (0, 1) if other != position))
        for socket in group:
            leaks = privacy_leaks(
                socket.frames, own_racks=own, foreign_racks=foreign, public=public
            )
            assert not leaks, f"{socket.name}: {leaks}"


@pytest.fixture
def carol(make_member) -> Member:
    """A signed-in member with no seat: a spectator."""
    return make_member("carol")


# ---------------------------------------------------------------- connecting


async def test_connect_sends_each_viewer_its_snapshot_and_only_its_own_rack(
    live_match, alice, bob, carol, connect
):
    alice_socket, alice_view = await connect(live_match.id, member=alice)
    bob_socket, bob_view = await connect(live_match.id, member=bob)
    carol_socket, carol_view = await connect(live_match.id, member=carol)
    anon_socket, anon_view = await connect(live_match.id)

    assert alice_view["rack"] == list(await db(rack_of)(live_match.id, 0))
    assert alice_view["your_seat"] == 0
    assert bob_view["rack"] == list(await db(rack_of)(live_match.id, 1))
    assert bob_view["your_seat"] == 1
    for view in (carol_view, anon_view):
        assert view["rack"] is None
        assert view["your_seat"] is None
    for view in (alice_view, bob_view, carol_view, anon_view):
        assert view.keys() >= SNAPSHOT_FIELDS
        assert view["status"] == "live"
        assert view["turn_number"] == 0
        assert view["to_move"] == 0
        assert view["bag_count"] == 101 - 14
        assert view["board"] == ["." * 15] * 15
        assert view["moves"] == []
        assert [seat["rack_count"] for seat in view["seats"]] == [7, 7]
        assert [seat["score"] for seat in view["seats"]] == [0, 0]
    await assert_private(
        live_match.id,
        {0: [alice_socket], 1: [bob_socket], None: [carol_socket, anon_socket]},
    )


async def test_members_only_match_refuses_anonymous_viewers_without_the_key_at_the_handshake(
    make_fixture, alice, bob, carol, connect
):
    match = await db(make_fixture)(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    assert await refusal_code(match.id) == 4403
    assert await refusal_code(match.id, key="not-the-key") == 4403
    assert await refusal_code(match.id, key=match.viewing_key) is None
    assert await refusal_code(match.id, member=carol) is None
    _, view = await connect(match.id, key=match.viewing_key)
    assert view["rack"] is None
    assert view["viewing_key"] is None  # only players and the organiser may share it


async def test_unknown_match_and_foreign_origin_are_refused(live_match, alice, connect):
    assert await refusal_code(live_match.id + 1000) == 4404
    assert (
        await refusal_code(live_match.id, origin=(b"origin", b"https://evil.example")) is not None
    )
    assert await refusal_code(live_match.id, member=alice) is None


# ---------------------------------------------------------------- playing


async def test_a_play_is_acknowledged_to_the_mover_and_announced_to_everyone(
    make_fixture, alice, bob, carol, connect
):
    match = await db(seeded_match)(make_fixture, alice, bob, visibility=Match.Visibility.MEMBERS)
    alice_socket, _ = await connect(match.id, member=alice)
    alice_tab, _ = await connect(match.id, member=alice, name="alice's second tab")
    bob_socket, _ = await connect(match.id, member=bob)
    carol_socket, _ = await connect(match.id, member=carol)
    key_socket, _ = await connect(match.id, key=match.viewing_key, name="key holder")
    everyone = [alice_socket, alice_tab, bob_socket, carol_socket, key_socket]

    play = await db(legal_play)(match.id)
    ack = await alice_socket.request(move_frame(play, turn=0, client_id="first-word"))

    turn = await db(Turn.objects.get)(match_id=match.id, number=1)
    new_rack = list(await db(rack_of)(match.id, 0))
    assert ack["accepted"] is True
    assert ack["replayed"] is False
    assert ack["code"] == "accepted"
    assert ack["score"] == turn.score > 0
    assert ack["rack"] == new_rack
    assert ack["turn_number"] == 1
    for socket in everyone:
        news = (await socket.event("turn", number=1))["data"]
        assert news["move"]["kind"] == "play"
        assert news["move"]["tiles"] == play["tiles"]
        assert news["move"]["score"] == turn.score
        assert [word["word"] for word in news["move"]["words"]] == [
            word["word"] for word in turn.words
        ]
        assert news["move"]["totals"] == [turn.score, 0]
        assert news["turn_number"] == 1
        assert news["to_move"] == 1
        assert news["bag_count"] == 87 - len(play["tiles"])
        assert [seat["rack_count"] for seat in news["seats"]] == [7, 7]
    for tab in (alice_socket, alice_tab):  # the new rack reaches all of the mover's tabs
        rack = await tab.event("rack")
        assert rack["data"]["rack"] == new_rack
        assert rack["match_id"] == match.id
    await assert_quiet(*everyone)
    await assert_private(
        match.id, {0: [alice_socket, alice_tab], 1: [bob_socket], None: [carol_socket, key_socket]}
    )
    await db(assert_tiles_conserved)(match.id)

    board = (await bob_socket.sync())["board"]
    for tile in play["tiles"]:
        assert board[tile["row"]][tile["col"]] == tile["letter"].upper()


async def test_a_swap_is_announced_only_as_a_count(make_fixture, alice, bob, carol, connect):
    match = await db(seeded_match)(make_fixture, alice, bob)
    alice_socket, view = await connect(match.id, member=alice)
    bob_socket, _ = await connect(match.id, member=bob)
    carol_socket, _ = await connect(match.id, member=carol)
    returned = view["rack"][:3]

    ack = await alice_socket.request({"type": "swap", "id": "swap-1", "turn": 0, "tiles": returned})

    assert ack["accepted"] is True
    assert ack["score"] == 0
    assert ack["rack"] == list(await db(rack_of)(match.id, 0))
    for socket in (alice_socket, bob_socket, carol_socket):
        move = (await socket.event("turn", number=1))["data"]["move"]
        assert move["kind"] == "swap"
        assert move["swap_count"] == 3
        assert move["tiles"] == []
    await alice_socket.event("rack")
    for socket in (bob_socket, carol_socket):
        text = json.dumps(socket.frames, separators=(",", ":"))
        assert json.dumps(returned, separators=(",", ":")) not in text
    await assert_quiet(alice_socket, bob_socket, carol_socket)
    await assert_private(match.id, {0: [alice_socket], 1: [bob_socket], None: [carol_socket]})
    await db(assert_tiles_conserved)(match.id)


async def test_the_same_client_id_applies_once_and_answers_the_same(
    live_match, alice, bob, connect
):
    alice_socket, _ = await connect(live_match.id, member=alice)
    bob_socket, _ = await connect(live_match.id, member=bob)

    first = await alice_socket.request(pass_frame(0, "retry-me"))
    again = await alice_socket.request(pass_frame(0, "retry-me"))

    assert first["accepted"] is again["accepted"] is True
    assert (first["replayed"], again["replayed"]) == (False, True)
    assert {**first, "replayed": None} == {**again, "replayed": None}
    assert await db(Turn.objects.filter(match=live_match).count)() == 1
    await bob_socket.event("turn", number=1)
    await alice_socket.event("turn", number=1)
    await alice_socket.event("rack")
    await assert_quiet(alice_socket, bob_socket)

    # A refusal is remembered too: the same id keeps its answer even once it could succeed.
    refused = await bob_socket.request(pass_frame(0, "bob-early"))
    assert refused["code"] == "stale_turn"
    still_refused = await bob_socket.request(pass_frame(1, "bob-early"))
    assert still_refused["replayed"] is True
    assert still_refused["message"] == "Your opponent moved. Board updated."
    assert (await bob_socket.request(pass_frame(1)))["accepted"] is True


async def test_refusals_use_the_rules_words_go_only_to_the_sender_and_change_nothing(
    make_fixture, alice, bob, carol, connect
):
    match = await db(seeded_match)(make_fixture, alice, bob)
    alice_socket, view = await connect(match.id, member=alice)
    bob_socket, _ = await connect(match.id, member=bob)
    carol_socket, _ = await connect(match.id, member=carol)
    anon_socket, _ = await connect(match.id)
    before = await db(match_state)(match.id)
    rack = [tile for tile in view["rack"] if tile != "?"]
    absent = next(letter for letter in "QZXJKVWYFB" if letter not in view["rack"])
    lexicon = await db(get_lexicon)("enable")
    non_word = next(
        a + b for a in rack for b in rack if a + b not in lexicon and rack.count(a) > (a == b)
    )

    def tile(row: int, col: int, letter: str | None, blank: bool = False) -> dict[str, Any]:
        return {"row": row, "col": col, "letter": letter, "blank": blank}

    def play(*tiles: dict[str, Any], turn: int = 0) -> dict[str, Any]:
        return {"type": "play", "id": new_client_id("play"), "turn": turn, "tiles": list(tiles)}

    refusals: list[tuple[Socket, dict[str, Any], str, str]] = [
        (bob_socket, play(tile(7, 7, rack[0]), tile(7, 8, rack[1])), "not_your_turn",
         "It is not your turn."),
        (carol_socket, pass_frame(0), "not_your_turn", "It is not your turn."),
        (alice_socket, pass_frame(3), "stale_turn", "Your opponent moved. Board updated."),
        (alice_socket, play(tile(7, 7, absent), tile(7, 8, rack[0])), "tiles_not_on_rack",
         "You do not have those tiles."),
        (alice_socket, play(tile(7, 7, None, blank=True)), "blank_needs_letter",
         "Choose a letter for the blank."),
        (alice_socket, play(tile(7, 7, rack[0]), tile(8, 8, rack[1])), "not_in_line",
         "Tiles must go in one row or one column, with no gaps."),
        (alice_socket, play(tile(0, 0, rack[0]), tile(0, 1, rack[1])), "misses_star",
         "The first word has to cover the star."),
        (alice_socket, play(tile(7, 7, rack[0])), "first_word_too_short",
         "The first word must be at least two tiles long."),
        (alice_socket, play(tile(7, 7, non_word[0]), tile(7, 8, non_word[1])), "not_a_word",
         f"{non_word} is not in the dictionary."),
        (alice_socket, play(tile(7, 15, rack[0]), tile(7, 14, rack[1])), "malformed_move",
         "Square (7, 15) is off the board."),
        (alice_socket, {"type": "swap", "id": "sw", "turn": 0, "tiles": [absent]},
         "tiles_not_on_rack", "You do not have those tiles."),
    ]  # fmt: skip
    for socket, frame, code, message in refusals:
        answer = await socket.request(frame)
        assert answer["type"] == "ack", answer
        assert answer["accepted"] is False
        assert (answer["code"], answer["message"]) == (code, message)
        if code in {"not_your_turn", "stale_turn"}:
            assert answer["snapshot"]["turn_number"] == 0
            assert answer["snapshot"]["to_move"] == 0
        else:
            assert "snapshot" not in answer

    answer = await anon_socket.request(pass_frame(0))
    assert (answer["type"], answer["code"]) == ("error", "sign_in_required")
    assert await db(match_state)(match.id) == before
    await assert_quiet(alice_socket, bob_socket, carol_socket, anon_socket)
    for socket in (alice_socket, bob_socket, carol_socket, anon_socket):
        assert (await socket.sync())["turn_number"] == 0


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        pytest.param("this is not json", "bad_json", id="not-json"),
        pytest.param('{"type": "pass", "id": "x", "turn": NaN}', "bad_json", id="nan"),
        pytest.param("[1, 2, 3]", "not_an_object", id="array"),
        pytest.param({"type": "dance", "id": "x"}, "unknown_type", id="unknown-type"),
        pytest.param({"id": "x", "turn": 0}, "unknown_type", id="no-type"),
        pytest.param({"type": "pass", "id": "x"}, "missing_field", id="missing-turn"),
        pytest.param({"type": "pass", "turn": 0}, "missing_field", id="missing-id"),
        pytest.param({"type": "pass", "id": "x", "turn": 0, "please": 1}, "unexpected_field",
                     id="extra-field"),
        pytest.param({"type": "pass", "id": 7, "turn": 0}, "invalid_field", id="id-number"),
        pytest.param({"type": "pass", "id": "x" * 65, "turn": 0}, "invalid_field",
                     id="id-too-long"),
        pytest.param({"type": "pass", "id": "a\x00b", "turn": 0}, "invalid_field",
                     id="id-control-character"),
        pytest.param({"type": "pass", "id": "x", "turn": "0"}, "invalid_field", id="turn-text"),
        pytest.param({"type": "pass", "id": "x", "turn": -1}, "invalid_field", id="turn-minus"),
        pytest.param({"type": "pass", "id": "x", "turn": True}, "invalid_field", id="turn-bool"),
        pytest.param({"type": "pass", "id": "x", "turn": 0.0}, "invalid_field", id="turn-float"),
        pytest.param({"type": "play", "id": "x", "turn": 0, "tiles": "AB"}, "invalid_field",
                     id="tiles-text"),
        # a play names at most 13 tiles: a 9-tile rack and Reword's four taken
        pytest.param({"type": "play", "id": "x", "turn": 0, "tiles": [{"row": 7}] * 14},
                     "invalid_field", id="fourteen-tiles"),
        pytest.param({"type": "play", "id": "x", "turn": 0, "tiles": [],
                      "takes": [{"take": "steal", "row": 7, "col": 7}] * 5},
                     "invalid_field", id="five-takes"),
        pytest.param({"type": "play", "id": "x", "turn": 0, "tiles": [],
                      "takes": [{"take": "nab", "row": 7, "col": 7}]},
                     "invalid_field", id="take-of-no-kind"),
        pytest.param({"type": "play", "id": "x", "turn": 0,
                      "tiles": [{"row": 7, "col": 7, "letter": "A", "colour": "red"}]},
                     "unexpected_field", id="tile-extra-field"),
        pytest.param({"type": "play", "id": "x", "turn": 0, "tiles": [{"row": 7, "letter": "A"}]},
                     "missing_field", id="tile-no-col"),
        pytest.param({"type": "play", "id": "x", "turn": 0,
                      "tiles": [{"row": "7", "col": 7, "letter": "A"}]},
                     "invalid_field", id="tile-row-text"),
        pytest.param({"type": "play", "id": "x", "turn": 0,
                      "tiles": [{"row": 7, "col": 7, "letter": "A", "blank": "no"}]},
                     "invalid_field", id="tile-blank-text"),
        pytest.param({"type": "swap", "id": "x", "turn": 0, "tiles": [1, 2]}, "invalid_field",
                     id="swap-numbers"),
        pytest.param({"type": "take_seat", "id": "x", "position": 4}, "invalid_field",
                     id="seat-four"),
        pytest.param({"type": "sync", "id": "x", "full": True}, "unexpected_field",
                     id="sync-extra"),
        pytest.param(json.dumps({"type": "pass", "id": "x", "turn": 0,
                                 "pad": "x" * MAX_FRAME_BYTES}), "too_large", id="huge-text"),
        pytest.param(b'{"type": "pass", "id": "x", "turn": 0}', "binary_frame", id="binary"),
    ],
)  # fmt: skip
async def test_bad_frames_get_an_error_to_the_sender_only_and_the_socket_stays_open(
    frame, code, live_match, alice, bob, connect
):
    alice_socket, _ = await connect(live_match.id, member=alice)
    bob_socket, _ = await connect(live_match.id, member=bob)
    before = await db(match_state)(live_match.id)

    await alice_socket.send(frame)
    answer = await alice_socket.next()

    assert answer["type"] == "error"
    assert answer["code"] == code
    assert answer["message"]
    if isinstance(frame, dict) and frame.get("id") == "x":
        assert answer["id"] == "x"  # a usable id is named even in an error
    assert await db(match_state)(live_match.id) == before
    assert (await alice_socket.sync())["turn_number"] == 0
    await assert_quiet(alice_socket, bob_socket)


async def test_the_move_after_a_refusal_still_goes_through(live_match, alice, connect):
    alice_socket, _ = await connect(live_match.id, member=alice)
    await alice_socket.send("{broken")
    assert (await alice_socket.next())["code"] == "bad_json"
    assert (await alice_socket.request(pass_frame(0)))["accepted"] is True


async def test_frames_are_answered_without_channels_hop_to_its_synchronous_thread(
    live_match, alice, connect, monkeypatch
):
    """channels closes stale connections on its one synchronous thread before every message
    it dispatches; this consumer holds none on the loop's thread, so it makes no such hop."""
    import channels.consumer

    hops: list[str] = []

    async def counted() -> None:
        hops.append("close_old_connections")

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
    alice_socket, _ = await connect(live_match.id, member=alice)
    await alice_socket.send("{broken")
    assert (await alice_socket.next())["code"] == "bad_json"
    assert (await alice_socket.request(pass_frame(0)))["accepted"] is True
    assert hops == []


# ---------------------------------------------------------------- sessions


@pytest.mark.parametrize(
    "frame", [pass_frame(0, "after-expiry"), {"type": "sync", "id": "s"}, "garbage"]
)
async def test_an_expired_session_is_told_to_sign_in_again_and_a_new_one_resumes(
    frame, make_fixture, alice, bob, connect
):
    match = await db(make_fixture)(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    cookie = await db(session_cookie)(alice)
    stale_socket, _ = await connect(match.id, member=alice, cookie=cookie)
    bob_socket, _ = await connect(match.id, member=bob)
    before = await db(match_state)(match.id)
    await db(Session.objects.filter(session_key=cookie).update)(
        expire_date=timezone.now() - timedelta(seconds=1)
    )

    await stale_socket.send(frame)  # whatever it sends, it is told, then closed
    assert await stale_socket.next() == {
        "type": "error",
        "code": "signed_out",
        "message": "Your session has ended. Sign in again.",
        **({"id": frame["id"]} if isinstance(frame, dict) else {}),
    }
    closed = await stale_socket.communicator.receive_output(timeout=10)
    assert closed == {"type": "websocket.close", "code": 4401}
    assert await db(match_state)(match.id) == before

    fresh_socket, view = await connect(match.id, member=alice)  # signed in again
    assert view["rack"] == list(await db(rack_of)(match.id, 0))
    assert (await fresh_socket.request(pass_frame(0, "after-expiry")))["accepted"] is True
    await fresh_socket.event("turn", number=1)
    await fresh_socket.event("rack")
    await bob_socket.event("turn", number=1)
    await assert_quiet(fresh_socket, bob_socket)
    assert not [frame for frame in stale_socket.frames if frame["type"] == "rack"]


async def test_signing_out_elsewhere_counts_as_an_expired_session(live_match, bob, connect):
    cookie = await db(session_cookie)(bob)
    bob_socket, _ = await connect(live_match.id, member=bob, cookie=cookie)
    await db(Session.objects.filter(session_key=cookie).delete)()
    answer = await bob_socket.request(pass_frame(0))
    assert answer["code"] == "signed_out"
    closed = await bob_socket.communicator.receive_output(timeout=10)
    assert closed == {"type": "websocket.close", "code": 4401}


# ---------------------------------------------------------------- seats, kick-off, the end


async def test_taking_seats_opens_the_match_and_deals_each_rack_privately(
    make_fixture, alice, bob, carol, connect
):
    match = await db(make_fixture)()
    alice_socket, view = await connect(match.id, member=alice)
    bob_socket, _ = await connect(match.id, member=bob)
    carol_socket, _ = await connect(match.id, member=carol)
    anon_socket, _ = await connect(match.id)
    assert view["status"] == "scheduled"
    everyone = [alice_socket, bob_socket, carol_socket, anon_socket]

    seated = await alice_socket.request({"type": "take_seat", "id": "sit", "position": 0})
    assert (seated["accepted"], seated["code"], seated["position"]) == (True, "seated", 0)
    assert seated["snapshot"]["your_seat"] == 0
    for socket in everyone:
        await socket.event("seat_taken")

    seated = await bob_socket.request({"type": "take_seat", "id": "sit"})
    assert (seated["accepted"], seated["position"]) == (True, 1)
    for socket in everyone:
        await socket.event("seat_taken")
        opened = await socket.event("opened")
        assert opened["data"]["status"] == "live"
        assert "rack" not in opened["data"]
    for position, socket in enumerate((alice_socket, bob_socket)):
        rack = await socket.event("rack")
        assert rack["data"]["rack"] == list(await db(rack_of)(match.id, position))

    refused = await carol_socket.request({"type": "take_seat", "id": "sit"})
    assert (refused["accepted"], refused["code"]) == (False, "seat_unavailable")
    assert refused["message"] == "Both seats are taken."
    again = await alice_socket.request({"type": "take_seat", "id": "again"})
    assert again["message"] == "You already have a seat in this match."
    anon = await anon_socket.request({"type": "take_seat", "id": "sit"})
    assert (anon["type"], anon["code"]) == ("error", "sign_in_required")
    await assert_quiet(*everyone)
    await assert_private(
        match.id, {0: [alice_socket], 1: [bob_socket], None: [carol_socket, anon_socket]}
    )


async def test_no_move_before_kick_off_and_the_board_opens_by_itself_at_kick_off(
    make_fixture, alice, bob, carol, connect
):
    kickoff = timezone.now() + timedelta(hours=1)
    match = await db(make_fixture)(first=alice, second=bob, kickoff_at=kickoff)
    alice_socket, view = await connect(match.id, member=alice)
    carol_socket, _ = await connect(match.id, member=carol)
    assert (view["status"], view["rack"]) == ("scheduled", [])  # seated, nothing dealt yet
    assert view["kickoff_at"] == kickoff.isoformat()

    refused = await alice_socket.request(pass_frame(0))
    assert refused["message"] == "This match has not kicked off yet."
    assert refused["snapshot"]["status"] == "scheduled"

    await db(services.open_due_matches)(now=kickoff + timedelta(seconds=1))  # the clock's sweep
    for socket in (alice_socket, carol_socket):
        assert (await socket.event("opened"))["data"]["to_move"] == 0
    rack = await alice_socket.event("rack")
    assert rack["data"]["rack"] == list(await db(rack_of)(match.id, 0))
    await assert_quiet(alice_socket, carol_socket)


async def test_six_scoreless_turns_end_the_game_for_everyone_watching(
    make_fixture, alice, bob, carol, connect
):
    match = await db(make_fixture)(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    alice_socket, _ = await connect(match.id, member=alice)
    bob_socket, _ = await connect(match.id, member=bob)
    carol_socket, _ = await connect(match.id, member=carol)
    key_socket, _ = await connect(match.id, key=match.viewing_key)
    everyone = [alice_socket, bob_socket, carol_socket, key_socket]

    for turn in range(6):
        mover = (alice_socket, bob_socket)[turn % 2]
        assert (await mover.request(pass_frame(turn)))["accepted"] is True
        for socket in everyone:
            await socket.event("turn", number=turn + 1)
        await mover.event("rack")

    finished = await db(Match.objects.get)(pk=match.id)
    assert (finished.status, finished.end_reason) == ("finished", "six_scoreless")
    for socket in everyone:
        ended = (await socket.event("ended"))["data"]
        assert ended["status"] == "finished"
        assert ended["end_reason"] == "six_scoreless"
        assert ended["result"] == finished.result
        assert ended["bag_seed"] == finished.bag_seed
        # The bag check's record follows, one for everyone: the whole record is public now.
        record = (await socket.event("fairness"))["data"]
        assert [tiles["number"] for tiles in record["turn_tiles"]] == list(range(1, 7))
    over = await alice_socket.request(pass_frame(6))
    assert (over["code"], over["message"]) == ("match_over", "This match is over.")
    assert over["snapshot"]["status"] == "finished"
    await assert_quiet(*everyone)
    await assert_private(
        match.id, {0: [alice_socket], 1: [bob_socket], None: [carol_socket, key_socket]}
    )


# ---------------------------------------------------------------- routing of private news


async def test_a_rack_from_another_match_never_reaches_this_matchs_socket(
    make_fixture, alice, bob, connect
):
    here = await db(make_fixture)(first=alice, second=bob, name="Here")
    elsewhere = await db(make_fixture)(first=alice, second=bob, name="Elsewhere")
    here_socket, _ = await connect(here.id, member=alice)
    elsewhere_socket, _ = await connect(elsewhere.id, member=alice)

    assert (await elsewhere_socket.request(pass_frame(0)))["accepted"] is True
    await elsewhere_socket.event("turn", number=1)
    assert (await elsewhere_socket.event("rack"))["match_id"] == elsewhere.id
    await assert_quiet(here_socket, elsewhere_socket)


async def test_a_replaced_viewing_key_closes_the_sockets_that_relied_on_it(
    make_fixture, organiser, alice, bob, connect
):
    match = await db(make_fixture)(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    key_socket, _ = await connect(match.id, key=match.viewing_key)
    alice_socket, _ = await connect(match.id, member=alice)

    new_key = await db(services.match_rotate_viewing_key)(match_id=match.id, member=organiser)

    revoked = await key_socket.next()
    assert (revoked["type"], revoked["code"]) == ("error", "key_revoked")
    closed = await key_socket.communicator.receive_output(timeout=10)
    assert closed == {"type": "websocket.close", "code": 4403}
    assert (await alice_socket.event("key_rotated"))["data"] == {}
    assert (await alice_socket.sync())["viewing_key"] == new_key
    assert await refusal_code(match.id, key=match.viewing_key) == 4403
    assert await refusal_code(match.id, key=new_key) is None


@pytest.mark.slow  # waits out the layer's real 5 s read; settings.py refuses a timeout <= 5 s
async def test_a_quiet_socket_outlives_the_channel_layers_blocking_read(live_match, alice, connect):
    """channels-redis waits for news with a 5 s blocking read; silence must not end a socket.

    Regression: with redis-py 8's default 5 s socket timeout, every socket that heard
    nothing for 5 s was closed by a read timeout (fixed in the channel layer's settings).
    """
    alice_socket, _ = await connect(live_match.id, member=alice)
    await asyncio.sleep(QUIET_SECONDS)
    assert (await alice_socket.sync())["turn_number"] == 0


# ---------------------------------------------------------------- flood control


async def test_a_flood_is_answered_then_closed(live_match, alice, connect, settings):
    settings.WS_RATE_BURST = 3
    settings.WS_RATE_PER_SECOND = 1e-9  # no refill within the test
    settings.WS_FLOOD_CLOSE_AFTER = 3
    alice_socket, _ = await connect(live_match.id, member=alice)

    for _ in range(3):
        await alice_socket.sync()
    for _ in range(3):  # WS_FLOOD_CLOSE_AFTER answers, as PROTOCOL.md says
        await alice_socket.send({"type": "sync"})
        assert (await alice_socket.next())["code"] == "rate_limited"
    await alice_socket.send({"type": "sync"})  # one more frame ignoring them: closed
    closed = await alice_socket.communicator.receive_output(timeout=10)
    assert closed == {"type": "websocket.close", "code": 4429}


async def test_one_address_may_hold_only_so_many_sockets(live_match, connect, settings):
    settings.WS_MAX_SOCKETS_PER_ADDRESS = 2
    first, _ = await connect(live_match.id)
    await connect(live_match.id)
    assert await refusal_code(live_match.id) == 4430  # a third from the same address
    await first.close()
    assert await refusal_code(live_match.id) is None  # one was given back
