"""Resigning (docs/RULES.md, "The end of a game"): on any turn of a live match, by a seated
player only; the opponent wins, through ``finish_match`` (ratings, notices), and the turn
log, the GCG record, the replay, the standings and the socket all say so."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone

from matches import services, visibility
from matches.integrity import match_problems
from matches.models import CommitReceipt, Match, Seat
from notifications.models import Notice
from ratings.models import RatingChange
from tests.matches.helpers import commit_move, opening_play
from tests.matches.test_ws_helpers import seeded_match, socket_opener
from tournaments import services as organising
from tournaments import standings

db = database_sync_to_async


def _state(match: Match) -> tuple:
    match.refresh_from_db()
    seats = tuple(Seat.objects.filter(match=match).values_list("member_id", "score", "rack"))
    return (match.status, match.result, match.end_reason, match.turn_number, seats)


@pytest.mark.django_db
@pytest.mark.parametrize("resigner", ["alice", "bob"])
def test_a_player_resigns_on_either_turn_and_the_opponent_wins(live_match, alice, bob, resigner):
    member = {"alice": alice, "bob": bob}[resigner]
    assert live_match.to_move == 0  # alice's turn: bob resigns on his opponent's turn
    answer = services.match_resign(match_id=live_match.id, member=member, client_id="r-1")
    assert answer.replayed is False
    live_match.refresh_from_db()
    assert live_match.status == Match.Status.FINISHED
    assert live_match.end_reason == Match.EndReason.RESIGNED
    assert live_match.result == ("second" if resigner == "alice" else "first")
    assert live_match.to_move is None
    assert live_match.turn_deadline_at is None
    assert live_match.finished_at is not None
    assert match_problems(live_match) == []
    winner = bob if resigner == "alice" else alice
    assert Notice.objects.filter(match=live_match, member=winner, kind="result").exists()


@pytest.mark.django_db
def test_a_repeated_id_answers_the_same_and_resigns_once(live_match, alice):
    services.match_resign(match_id=live_match.id, member=alice, client_id="r-1")
    before = _state(live_match)
    again = services.match_resign(match_id=live_match.id, member=alice, client_id="r-1")
    assert again.replayed is True
    assert _state(live_match) == before
    with pytest.raises(services.RequestIdTaken):  # the id is a resignation's, not a move's
        commit_move(match_id=live_match.id, member=alice, move={"kind": "pass"},
                    against_turn=0, client_id="r-1")  # fmt: skip


@pytest.mark.django_db
def test_refusals_change_nothing(make_fixture, make_member, live_match, alice, bob):
    carol = make_member("carol")
    before = _state(live_match)
    with pytest.raises(services.NotAllowed) as stranger:
        services.match_resign(match_id=live_match.id, member=carol, client_id="r-1")
    assert str(stranger.value) == "Only a player seated in this match can resign."
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(services.SignInRequired) as anonymous:
        services.match_resign(match_id=live_match.id, member=AnonymousUser(), client_id="r-2")
    assert str(anonymous.value) == "Sign in to resign."
    assert _state(live_match) == before

    later = make_fixture(first=alice, second=bob, kickoff_at=timezone.now() + timedelta(days=1))
    scheduled = _state(later)
    with pytest.raises(services.MoveRefused) as early:
        services.match_resign(match_id=later.id, member=alice, client_id="r-3")
    assert (early.value.code, early.value.message) == (
        "not_kicked_off",
        "This match has not kicked off yet.",
    )
    assert _state(later) == scheduled

    services.match_resign(match_id=live_match.id, member=bob, client_id="r-4")
    over = _state(live_match)
    with pytest.raises(services.MoveRefused) as late:
        services.match_resign(match_id=live_match.id, member=alice, client_id="r-5")
    assert late.value.code == "match_over"
    assert _state(live_match) == over
    assert over[1] == "first"  # bob's resignation stands; alice's came too late


@pytest.mark.django_db
def test_a_forfeit_that_came_first_stands(live_match, alice):
    later = timezone.now() + settings.FORFEIT_AFTER + timedelta(minutes=1)
    with time_machine.travel(later), pytest.raises(services.MoveRefused) as late:
        services.match_resign(match_id=live_match.id, member=alice, client_id="r-1")
    assert late.value.code == "match_over"
    live_match.refresh_from_db()
    assert (live_match.end_reason, live_match.result) == ("forfeit", "second")


@pytest.mark.django_db
def test_a_rated_resignation_moves_both_ratings(organiser, alice, bob):
    match = organising.create_fixture(
        organiser=organiser, name="Rated", first=alice, second=bob, rated=True
    )
    services.match_resign(match_id=match.id, member=alice, client_id="r-1")
    changes = {c.member_id: c for c in RatingChange.objects.filter(match=match)}
    assert set(changes) == {alice.pk, bob.pk}
    assert changes[bob.pk].rating_after > changes[bob.pk].rating_before
    assert changes[alice.pk].rating_after < changes[alice.pk].rating_before


@pytest.mark.django_db
def test_the_log_the_record_and_the_replay_say_who_resigned(live_match, alice, bob):
    rack = Seat.objects.get(match=live_match, position=0).rack
    assert commit_move(match_id=live_match.id, member=alice, move=opening_play(rack),
                       against_turn=0, client_id="p-1").accepted  # fmt: skip
    services.match_resign(match_id=live_match.id, member=alice, client_id="r-1")
    access = services.look_at_match(user=bob, match_id=live_match.id, key=None)
    page = visibility.match_page(access)
    assert page.end_line == "alice (First) resigned."
    assert page.end_reason_label == "Resignation"
    assert page.result_text == "bob (Second) won"
    gcg = visibility.gcg_for(access)
    assert gcg is not None
    assert "#note alice (First) resigned. bob (Second) won." in gcg
    final = visibility.replay(access, 1)
    assert (final.final, final.end_reason, final.result) == (True, "resigned", "second")
    assert visibility.replay(access, 0).end_reason == ""
    live_match.refresh_from_db()
    assert match_problems(live_match) == []


@pytest.mark.django_db
def test_standings_count_a_resignation_and_its_spread_never_favours_the_resigner(
    organiser, make_fixture, alice, bob, make_member
):
    carol = make_member("carol")
    tournament = organising.create_round_robin(
        organiser=organiser, name="Club", players=[alice, bob, carol],
        first_kickoff=timezone.now() + timedelta(days=7), interval=timedelta(0),
    )  # fmt: skip

    def opened_and_resigned(first, second, resigner):
        """A tournament match: First opens with a scoring play, then ``resigner`` resigns."""
        match = seeded_match(make_fixture, first, second, seed=7)  # the live_match deal
        Match.objects.filter(pk=match.pk).update(tournament=tournament)
        rack = Seat.objects.get(match=match, position=0).rack
        assert commit_move(match_id=match.id, member=first, move=opening_play(rack),
                           against_turn=0, client_id="p-1").accepted  # fmt: skip
        services.match_resign(match_id=match.id, member=resigner, client_id="r-1")
        return Seat.objects.get(match=match, position=0).score

    lead = opened_and_resigned(alice, bob, alice)  # alice resigns while ahead
    assert lead > 0
    opened_and_resigned(bob, carol, carol)  # carol resigns while behind
    table = {line.member_id: line for line in standings.standings(tournament)}
    assert [(table[m.pk].won, table[m.pk].lost) for m in (alice, bob, carol)] == [
        (0, 1),
        (2, 0),
        (0, 1),
    ]
    assert table[alice.pk].spread == 0  # her lead does not count for the resigner
    assert table[bob.pk].spread == lead  # nothing from the first, the lead from the second
    assert table[carol.pk].spread == -lead


@pytest.mark.django_db(transaction=True)
async def test_resign_through_the_socket_reaches_a_spectator(make_fixture, make_member, alice, bob):
    carol = await db(make_member)("carol")
    match = await db(seeded_match)(make_fixture, alice, bob, seed=3)
    async with socket_opener() as connect:
        bob_socket, _ = await connect(match.id, member=bob)
        carol_socket, _ = await connect(match.id, member=carol)
        anonymous, _ = await connect(match.id, name="visitor")
        refused = await carol_socket.request({"type": "resign", "id": "c-1"})
        assert (refused["accepted"], refused["code"]) == (False, "not_allowed")
        assert refused["message"] == "Only a player seated in this match can resign."
        told = await anonymous.request({"type": "resign", "id": "v-1"})
        assert (told["type"], told["code"]) == ("error", "sign_in_required")

        ack = await bob_socket.request({"type": "resign", "id": "b-1"})  # on alice's turn
        assert ack == {"type": "ack", "id": "b-1", "accepted": True, "replayed": False,
                       "code": "resigned"}  # fmt: skip
        for socket in (bob_socket, carol_socket, anonymous):
            ended = (await socket.event("ended"))["data"]
            assert (ended["end_reason"], ended["result"], ended["status"]) == (
                "resigned",
                "first",
                "finished",
            )
        again = await bob_socket.request({"type": "resign", "id": "b-1"})
        assert (again["accepted"], again["replayed"]) == (True, True)
        late = await bob_socket.request({"type": "resign", "id": "b-2"})
        assert (late["accepted"], late["code"]) == (False, "match_over")
        assert late["snapshot"]["end_reason"] == "resigned"  # a fresh board with the refusal
    receipts = await db(lambda: CommitReceipt.objects.filter(match=match, kind="resign").count())()
    assert receipts == 2
