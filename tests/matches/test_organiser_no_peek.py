"""An organiser's powers without a peek (issue 36, item 4).

Racks are dealt when a match goes live, so a substitution before kick-off hands over nothing
secret; after it, a seat is never handed to anyone (it is resigned, adjudicated or forfeited
instead), so nobody, an organiser included, can sit in a live seat to read its rack. Every
substitution is on the match page for whoever may watch it. And an organiser cannot rule on
a match they play in: another organiser must.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts import services as account_services
from accounts.models import Member
from matches import services, visibility
from matches.models import Match, OrganiserAction, Seat
from matches.services.errors import OwnMatch
from notifications.models import Kind, Notice
from tournaments import services as organising

pytestmark = pytest.mark.django_db


def _state(*matches: Match) -> tuple:
    """Everything the services could change, for "a refusal changes nothing"."""
    rows = []
    for match in matches:
        match.refresh_from_db()
        rows.append((match.status, match.result, match.kickoff_at, match.no_show_at))
        rows.append(tuple(Seat.objects.filter(match=match).order_by("position")
                          .values_list("member_id", "rack", "score")))  # fmt: skip
    actions = tuple(OrganiserAction.objects.order_by("id").values_list("id", flat=True))
    return tuple(rows), actions


def _client(member: Member | None) -> Client:
    client = Client()
    if member is not None:
        client.force_login(member)
    return client


# ---------------------------------------------------------------- no hand-over after kick-off


def test_a_live_seat_that_has_not_moved_cannot_be_handed_to_anyone(
    organiser, live_match, alice, bob, make_member
):
    carol = make_member("carol")
    assert live_match.status == Match.Status.LIVE  # bob (Second) dealt, not moved yet
    before = _state(live_match)
    for incoming in (carol, organiser):  # another member, or the organiser themself
        with pytest.raises(services.FixtureUnchangeable) as refused:
            organising.fixture_substitute(organiser=organiser, match_id=live_match.id, position=1,
                                        member_id=incoming.pk, reason="Bob is ill")  # fmt: skip
        assert refused.value.code == "fixture_unchangeable"
        assert "kicked off" in refused.value.message
    assert _state(live_match) == before
    access = services.look_at_match(user=organiser, match_id=live_match.id, key=None)
    assert visibility.match_view(access).rack is None  # the organiser watches, rackless


def test_the_fixture_list_offers_no_substitution_once_live(organiser, live_match, make_fixture,
                                                          make_member):  # fmt: skip
    ahead = make_fixture(first=make_member("dora"), second=make_member("eve"),
                         kickoff_at=timezone.now() + timedelta(days=1), name="Ahead")  # fmt: skip
    page = _client(organiser).get("/organise/fixtures/").content.decode()
    live_row = page.split(f'id="fixture-{live_match.id}"')[1].split("</tr>")[0]
    ahead_row = page.split(f'id="fixture-{ahead.id}"')[1].split("</tr>")[0]
    assert "organise-substitute" not in live_row
    assert "/substitute/" not in live_row
    assert f"/organise/fixtures/{ahead.id}/substitute/" in ahead_row


def test_withdrawing_a_player_never_substitutes_into_a_live_seat(
    organiser, make_fixture, make_member, alice, bob
):
    from tests.matches.test_ws_helpers import seeded_match

    erin, carol = make_member("erin"), make_member("carol")
    live = seeded_match(make_fixture, alice, erin, seed=4)  # alice to move: erin never moved
    ahead = make_fixture(first=bob, second=erin, kickoff_at=timezone.now() + timedelta(days=2))
    account_services.membership_remove(organiser=organiser, member_id=erin.pk,
                                       reason="Injured", substitute_id=carol.pk)  # fmt: skip
    live.refresh_from_db()
    assert (live.status, live.end_reason, live.result) == ("finished", "withdrawn", "first")
    assert Seat.objects.get(match=live, position=1).member_id == erin.pk  # not handed over
    assert not Seat.objects.filter(match=live, member=carol).exists()
    assert Seat.objects.get(match=ahead, position=1).member_id == carol.pk  # before kick-off
    assert OrganiserAction.objects.get(match=live).kind == "withdraw"
    assert OrganiserAction.objects.get(match=ahead).kind == "substitute"


def test_the_removal_page_says_a_live_seat_is_withdrawn_not_substituted(
    organiser, make_fixture, make_member, alice
):
    from tests.matches.test_ws_helpers import seeded_match

    erin = make_member("erin")
    seeded_match(make_fixture, alice, erin, seed=4)  # live, erin has not moved
    page = _client(organiser).get(f"/accounts/members/{erin.pk}/remove/").content.decode()
    assert "lost: a win for alice" in page
    assert "unless a substitute takes the seat" not in page


# ---------------------------------------------------------------- substitutions shown


def test_a_substitution_is_shown_to_the_players_and_watchers(
    organiser, make_fixture, make_member, alice, bob
):
    carol = make_member("carol")
    match = make_fixture(first=alice, second=bob, kickoff_at=timezone.now() + timedelta(days=1))
    organising.fixture_substitute(organiser=organiser, match_id=match.id, position=1,
                                member_id=carol.pk, reason="Bob is away")  # fmt: skip
    for viewer in (alice, bob, carol, make_member("watcher"), None):
        access = services.look_at_match(user=viewer, match_id=match.id, key=None)
        lines = visibility.match_page(access).audit
        assert [(line.kind, line.reason, line.detail) for line in lines] == [
            ("substitute", "Bob is away", "Second: carol replaced bob")
        ], viewer
        page = _client(viewer).get(f"/matches/{match.id}/").content.decode()
        assert 'data-kind="substitute"' in page
        assert "carol replaced bob" in page
        assert "Bob is away" in page
    # The players were told as well (their notices), as before.
    assert Notice.objects.filter(member=alice, match=match, kind=Kind.SUBSTITUTE).exists()


def test_the_result_notice_still_names_the_ruling_after_a_substitution(
    organiser, make_fixture, make_member, alice, bob
):
    carol = make_member("carol")
    match = make_fixture(first=alice, second=bob, kickoff_at=timezone.now() + timedelta(days=1))
    organising.fixture_substitute(organiser=organiser, match_id=match.id, position=1,
                                member_id=carol.pk, reason="Bob is away")  # fmt: skip
    organising.fixture_cancel(organiser=organiser, match_id=match.id, reason="Hall flooded")
    from notifications.organiser_content import _ruling

    ruling = _ruling(Match.objects.get(pk=match.id))
    assert ruling is not None
    assert (ruling.kind, ruling.reason) == ("cancel", "Hall flooded")


# ---------------------------------------------------------------- not in one's own match


@pytest.fixture
def boss(make_member) -> Member:
    return make_member("boss", organiser=True)


def test_an_organiser_cannot_rule_on_a_match_they_play_in(organiser, make_fixture, alice,
                                                           make_member, boss):  # fmt: skip
    from tests.matches.test_ws_helpers import seeded_match

    carol = make_member("carol")
    live = seeded_match(make_fixture, organiser, alice, seed=7)  # the organiser plays First
    ahead = make_fixture(first=alice, second=organiser,
                         kickoff_at=timezone.now() + timedelta(days=1))  # fmt: skip
    before = _state(live, ahead)
    soon = timezone.now() + timedelta(days=2)
    attempts = [
        lambda: organising.match_adjudicate(organiser=organiser, match_id=live.id, ruling="first",
                                          reason="I was winning"),
        lambda: organising.match_adjudicate(organiser=organiser, match_id=live.id, ruling="void",
                                          reason="Bad start"),
        lambda: organising.fixture_cancel(organiser=organiser, match_id=ahead.id, reason="Busy"),
        lambda: organising.fixture_reschedule(organiser=organiser, match_id=ahead.id,
                                            kickoff_at=soon, reason="Busy"),
        lambda: organising.fixture_substitute(organiser=organiser, match_id=ahead.id, position=0,
                                            member_id=carol.pk, reason="Swap"),
        lambda: organising.fixture_substitute(organiser=organiser, match_id=ahead.id, position=1,
                                            member_id=carol.pk, reason="Swap"),
    ]  # fmt: skip
    for attempt in attempts:
        with pytest.raises(OwnMatch) as refused:
            attempt()
        assert (refused.value.code, refused.value.status) == ("own_match", 403)
        assert refused.value.message == (
            "An organiser cannot rule on a match they play in: ask another organiser."
        )
    assert _state(live, ahead) == before
    # Another organiser can.
    organising.match_adjudicate(organiser=boss, match_id=live.id, ruling="draw", reason="Agreed")
    organising.fixture_cancel(organiser=boss, match_id=ahead.id, reason="Hall closed")
    live.refresh_from_db()
    ahead.refresh_from_db()
    assert (live.end_reason, ahead.end_reason) == ("adjudicated", "cancelled")


def test_an_organiser_cannot_substitute_themself_into_a_fixture(organiser, make_fixture,
                                                                alice, bob):  # fmt: skip
    ahead = make_fixture(first=alice, second=bob, kickoff_at=timezone.now() + timedelta(days=1))
    before = _state(ahead)
    with pytest.raises(OwnMatch) as refused:
        organising.fixture_substitute(organiser=organiser, match_id=ahead.id, position=1,
                                    member_id=organiser.pk, reason="I will play")  # fmt: skip
    assert refused.value.message == (
        "An organiser cannot seat themselves as a substitute: ask another organiser."
    )
    assert _state(ahead) == before


def test_an_organiser_cannot_postpone_a_round_they_play_in(organiser, alice, bob, boss):
    cup = organising.create_round_robin(
        organiser=boss, name="Cup", players=[organiser, alice, bob],
        first_kickoff=timezone.now() + timedelta(hours=1), interval=timedelta(days=1),
    )  # fmt: skip
    own_round = next(
        match.round_number
        for match in cup.matches.all()
        if Seat.objects.filter(match=match, member=organiser).exists()
    )
    before = _state(*cup.matches.all())
    with pytest.raises(OwnMatch):
        organising.round_postpone(organiser=organiser, tournament_id=cup.id,
                                round_number=own_round, by=timedelta(hours=2),
                                reason="Late", carry_later=True)  # fmt: skip
    assert _state(*cup.matches.all()) == before
    moved = organising.round_postpone(organiser=boss, tournament_id=cup.id,
                                    round_number=own_round, by=timedelta(hours=2),
                                    reason="Late", carry_later=True)  # fmt: skip
    assert moved


def test_an_organiser_cannot_remove_their_own_opponent(organiser, make_fixture, make_member,
                                                       boss):  # fmt: skip
    from tests.matches.test_ws_helpers import seeded_match

    erin = make_member("erin")
    live = seeded_match(make_fixture, organiser, erin, seed=7)
    before = _state(live)
    with pytest.raises(OwnMatch):
        account_services.membership_remove(organiser=organiser, member_id=erin.pk)
    erin.refresh_from_db()
    assert erin.is_club_member
    assert _state(live) == before
    # The page answers with the refusal, not a 500, and changes nothing.
    answer = _client(organiser).post(
        "/accounts/members/remove/",
        {"member_id": erin.pk, "confirm": "yes", "fixtures": "withdraw", "reason": "Gone"},
    )
    assert answer.status_code == 403
    assert "An organiser cannot rule on a match they play in" in answer.content.decode()
    assert _state(live) == before
    account_services.membership_remove(organiser=boss, member_id=erin.pk)
    live.refresh_from_db()
    assert (live.end_reason, live.result) == ("withdrawn", "first")


def test_the_fixture_list_offers_no_ruling_on_ones_own_match(organiser, make_fixture, alice,
                                                             boss):  # fmt: skip
    from tests.matches.test_ws_helpers import seeded_match

    live = seeded_match(make_fixture, organiser, alice, seed=7)
    ahead = make_fixture(first=alice, second=organiser,
                         kickoff_at=timezone.now() + timedelta(days=1))  # fmt: skip
    own = _client(organiser).get("/organise/fixtures/").content.decode()
    for match in (live, ahead):
        row = own.split(f'id="fixture-{match.id}"')[1].split("</tr>")[0]
        assert "<form" not in row, row
        assert "You play in this fixture" in row
    others = _client(boss).get("/organise/fixtures/").content.decode()
    assert f"/organise/fixtures/{live.id}/adjudicate/" in others
    assert f"/organise/fixtures/{ahead.id}/cancel/" in others
    # Posted all the same, the refusal is shown on the list, and nothing changes.
    before = _state(live)
    answer = _client(organiser).post(f"/organise/fixtures/{live.id}/adjudicate/",
                                     {"ruling": "first", "reason": "Mine"})  # fmt: skip
    assert answer.status_code == 403
    assert "An organiser cannot rule on a match they play in" in answer.content.decode()
    assert _state(live) == before
