"""An organiser substitutes a player before kick-off, and postpones a tournament round
(issue 19, item 3): each one service with its lock, news, audit record, and refusals that
change nothing. (A live seat is never handed over: tests/matches/test_organiser_no_peek.py.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.models import Member
from matches import services, visibility
from matches.models import Match, OrganiserAction, Seat
from notifications.models import Notice
from tests.matches.helpers import commit_move
from tests.matches.test_ws_helpers import socket_opener
from tournaments import services as organising
from tournaments.services.organising import MAX_POSTPONE_DAYS

db = database_sync_to_async


def _database(*matches: Match) -> tuple:
    """Everything the services could change, for "a refusal changes nothing"."""
    rows = []
    for match in matches:
        match.refresh_from_db()
        rows.append((match.status, match.kickoff_at, match.no_show_at, match.turn_number))
        rows.append(tuple(Seat.objects.filter(match=match).order_by("position")
                          .values_list("member_id", "rack", "score", "seated_at")))  # fmt: skip
    actions = tuple(OrganiserAction.objects.order_by("id").values_list("id", flat=True))
    return tuple(rows), actions


def _rack_seen_by(user: Member, match: Match) -> list[str] | None:
    access = services.look_at_match(user=user, match_id=match.id, key=None)
    return visibility.match_view(access).rack


# ---------------------------------------------------------------- substitute


@pytest.fixture
def upcoming(make_fixture, alice, bob) -> Match:
    """alice v bob, kicking off in an hour: no rack dealt yet."""
    return make_fixture(first=alice, second=bob, kickoff_at=timezone.now() + timedelta(hours=1))


@pytest.mark.django_db
def test_substitute_before_kickoff_hands_the_seat_over_and_the_newcomer_is_dealt(
    organiser, upcoming, alice, bob, make_member
):
    carol = make_member("carol")
    assert _rack_seen_by(bob, upcoming) == []  # nothing dealt before kick-off
    organising.fixture_substitute(organiser=organiser, match_id=upcoming.id, position=1,
                                member_id=carol.pk, reason="Bob is ill")  # fmt: skip
    seat = Seat.objects.get(match=upcoming, position=1)
    assert seat.member_id == carol.pk
    action = OrganiserAction.objects.get(match=upcoming)
    assert (action.kind, action.reason) == ("substitute", "Bob is ill")
    assert action.details == {"position": 1, "member_before": "bob", "member_after": "carol",
                              "member_before_id": bob.pk, "member_after_id": carol.pk}  # fmt: skip
    # Carol is told she has a fixture, as a player seated when it is scheduled is.
    assert Notice.objects.filter(member=carol, match=upcoming, kind="fixture").count() == 1
    # Every watcher sees the substitution in the trail, the players included.
    audit = visibility.match_page(services.look_at_match(user=alice, match_id=upcoming.id,
                                                          key=None)).audit  # fmt: skip
    assert [(line.kind, line.reason) for line in audit] == [("substitute", "Bob is ill")]
    # At kick-off the seat is dealt to carol; bob watches like anybody else.
    services.match_apply_deadlines(match_id=upcoming.id, now=upcoming.kickoff_at)
    upcoming.refresh_from_db()
    assert upcoming.status == Match.Status.LIVE
    assert _rack_seen_by(carol, upcoming)
    assert _rack_seen_by(bob, upcoming) is None


@pytest.mark.django_db
def test_substitute_in_a_tournament_adds_the_newcomer_to_its_players(organiser, alice, bob,
                                                                      make_member):  # fmt: skip
    carol = make_member("carol")
    tournament = organising.create_round_robin(
        organiser=organiser, name="Cup", players=[alice, bob],
        first_kickoff=timezone.now() + timedelta(days=1), interval=timedelta(days=1),
    )  # fmt: skip
    match = tournament.matches.get()
    organising.fixture_substitute(organiser=organiser, match_id=match.id, position=0,
                                member_id=carol.pk, reason="Swap")  # fmt: skip
    assert set(tournament.players.values_list("username", flat=True)) == {"alice", "bob",
                                                                          "carol"}  # fmt: skip


@pytest.mark.django_db
def test_substitute_refusals_change_nothing(organiser, live_match, upcoming, alice, bob,
                                            make_member, make_fixture):  # fmt: skip
    carol = make_member("carol")
    pending = make_member("pat")
    Member.objects.filter(pk=pending.pk).update(membership=Member.Membership.PENDING)
    removed = make_member("rob")
    Member.objects.filter(pk=removed.pk).update(membership=Member.Membership.REMOVED)
    half = make_fixture(first=alice, kickoff_at=timezone.now() + timedelta(hours=1))
    passed = commit_move(match_id=live_match.id, member=alice, move={"kind": "pass"},
                         against_turn=0, client_id="p-1")  # fmt: skip
    assert passed.accepted  # alice (First) has moved; bob (Second) has not
    before = _database(live_match, upcoming, half)

    def refused(error, text, **kwargs):
        args = {"organiser": organiser, "match_id": upcoming.id, "position": 1,
                "member_id": carol.pk, "reason": "because"} | kwargs  # fmt: skip
        with pytest.raises(error, match=text) as raised:
            organising.fixture_substitute(**args)
        return raised.value

    assert refused(services.NotAllowed, "Only organisers", organiser=alice).code == "not_allowed"
    refused(services.InvalidFixture, "Give a reason", reason="  ")
    refused(services.InvalidFixture, "A seat is First or Second", position=2)
    for position in (0, 1):  # live: neither seat, moved or not, is handed over
        too_late = refused(services.FixtureUnchangeable, "has kicked off",
                           match_id=live_match.id, position=position)  # fmt: skip
        assert too_late.code == "fixture_unchangeable"
    for outsider in (pending, removed):
        refused(services.InvalidFixture, "Only approved club members", member_id=outsider.pk)
    refused(services.InvalidFixture, "Only approved club members", member_id=10**9)
    refused(services.InvalidFixture, "both sides", member_id=alice.pk)
    refused(services.InvalidFixture, "already holds this seat", member_id=bob.pk)
    refused(services.InvalidFixture, "This seat is empty", match_id=half.id, position=1)
    assert _database(live_match, upcoming, half) == before
    services.match_resign(match_id=live_match.id, member=bob, client_id="r-1")
    over = _database(live_match)
    refused(services.FixtureUnchangeable, "This match is over", match_id=live_match.id)
    assert _database(live_match) == over


# ---------------------------------------------------------------- postpone


@pytest.fixture
def cup(organiser, alice, bob, make_member):
    """Four players, three rounds of two fixtures, a day apart, starting in an hour."""
    players = [alice, bob, make_member("carol"), make_member("dave")]
    return organising.create_round_robin(
        organiser=organiser, name="Cup", players=players,
        first_kickoff=timezone.now() + timedelta(hours=1), interval=timedelta(days=1),
    )  # fmt: skip


@pytest.mark.django_db
def test_postpone_moves_every_fixture_of_the_round_still_to_kick_off(organiser, cup):
    round_two = list(cup.matches.filter(round_number=2).order_by("id"))
    others = {m.id: m.kickoff_at for m in cup.matches.exclude(round_number=2)}
    kickoffs = [match.kickoff_at for match in round_two]
    moved = organising.round_postpone(organiser=organiser, tournament_id=cup.id, round_number=2,
                                    by=timedelta(hours=20), reason="Club night")  # fmt: skip
    assert sorted(match.id for match in moved) == [match.id for match in round_two]
    for match, kickoff in zip(round_two, kickoffs, strict=True):
        match.refresh_from_db()
        assert match.kickoff_at == kickoff + timedelta(hours=20)
        assert match.no_show_at == match.kickoff_at + match.no_show_window
        action = OrganiserAction.objects.get(match=match)
        assert (action.kind, action.reason) == ("postpone", "Club night")
        assert action.details["postponed_by_seconds"] == 20 * 3600
    assert {m.id: m.kickoff_at for m in cup.matches.exclude(round_number=2)} == others


@pytest.mark.django_db
def test_postpone_leaves_a_fixture_of_the_round_already_kicked_off(organiser, cup):
    first, second = cup.matches.filter(round_number=1).order_by("id")
    # One fixture of round 1 has kicked off (live); the other has not.
    Match.objects.filter(pk=first.pk).update(kickoff_at=timezone.now() - timedelta(minutes=1))
    services.match_apply_deadlines(match_id=first.pk)
    first.refresh_from_db()
    assert first.status == Match.Status.LIVE
    started_at = first.kickoff_at
    moved = organising.round_postpone(organiser=organiser, tournament_id=cup.id, round_number=1,
                                    by=timedelta(hours=2), reason="Late start")  # fmt: skip
    assert [match.id for match in moved] == [second.id]
    first.refresh_from_db()
    assert first.kickoff_at == started_at
    assert not OrganiserAction.objects.filter(match=first).exists()


@pytest.mark.django_db
def test_postpone_refusals_change_nothing(organiser, alice, cup):
    before = _database(*cup.matches.all())

    def refused(error, text, **kwargs):
        args = {"organiser": organiser, "tournament_id": cup.id, "round_number": 1,
                "by": timedelta(hours=1), "reason": "because"} | kwargs  # fmt: skip
        with pytest.raises(error, match=text) as raised:
            organising.round_postpone(**args)
        return raised.value

    refused(services.NotAllowed, "Only organisers", organiser=alice)
    refused(services.InvalidFixture, "Give a reason", reason="")
    refused(services.InvalidFixture, "positive interval", by=timedelta(0))
    refused(services.InvalidFixture, "positive interval", by=timedelta(hours=-1))
    refused(services.InvalidFixture, f"at most {MAX_POSTPONE_DAYS} days",
            by=timedelta(days=MAX_POSTPONE_DAYS + 1))  # fmt: skip
    refused(services.InvalidFixture, "no such round", round_number=9)
    refused(services.InvalidFixture, "no such round", tournament_id=10**9)
    assert _database(*cup.matches.all()) == before
    # Round 1 under way, every fixture of it: nothing left to postpone.
    cup.matches.filter(round_number=1).update(kickoff_at=timezone.now() - timedelta(minutes=1))
    for match in cup.matches.filter(round_number=1):
        services.match_apply_deadlines(match_id=match.pk)
    under_way = _database(*cup.matches.all())
    assert refused(services.FixtureUnchangeable, "has kicked off").code == "fixture_unchangeable"
    assert _database(*cup.matches.all()) == under_way


@pytest.mark.django_db(transaction=True)
async def test_over_the_socket_the_newcomer_alone_is_dealt_at_kickoff(
    organiser, make_fixture, alice, bob, make_member
):
    carol = await db(make_member)("carol")
    match = await db(make_fixture)(first=alice, second=bob,
                                   kickoff_at=timezone.now() + timedelta(hours=1))  # fmt: skip
    async with socket_opener() as connect:
        old, before = await connect(match.id, member=bob)
        assert (before["rack"], before["your_seat"]) == ([], 1)  # not dealt yet
        watcher, _ = await connect(match.id, name="visitor")
        await db(organising.fixture_substitute)(organiser=organiser, match_id=match.id,
                                              position=1, member_id=carol.pk,
                                              reason="Bob is ill")  # fmt: skip
        for socket in (old, watcher):
            changed = await socket.event("fixture_changed")
            assert changed == {"type": "fixture_changed", "match_id": match.id, "data": {}}
        assert (await old.sync())["your_seat"] is None  # bob now watches
        assert (await watcher.sync())["seats"][1]["name"] == "carol"
        await db(services.match_apply_deadlines)(match_id=match.id, now=match.kickoff_at)
        _, snapshot = await connect(match.id, member=carol)
        assert snapshot["rack"]
        assert snapshot["your_seat"] == 1
        assert (await old.sync())["rack"] is None


@pytest.mark.django_db
def test_a_kickoff_that_passed_before_the_postponement_stands(organiser, cup):
    first, second = cup.matches.filter(round_number=1).order_by("id")
    kickoff = first.kickoff_at
    # No sweep has run since the round's kick-off: the postponement applies it first.
    moved = organising.round_postpone(organiser=organiser, tournament_id=cup.id, round_number=2,
                                    by=timedelta(hours=1), reason="x",
                                    now=kickoff + timedelta(seconds=1))  # fmt: skip
    assert len(moved) == 2  # round 2 had not kicked off
    with pytest.raises(services.FixtureUnchangeable, match="has kicked off"):
        organising.round_postpone(organiser=organiser, tournament_id=cup.id, round_number=1,
                                by=timedelta(hours=1), reason="x",
                                now=kickoff + timedelta(seconds=1))  # fmt: skip
    for match in (first, second):
        match.refresh_from_db()
        assert (match.status, match.kickoff_at) == (Match.Status.LIVE, kickoff)
