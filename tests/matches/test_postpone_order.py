"""Postponing a round never quietly puts it after a later round (issue 35): it is refused
with a clear word, or, when the organiser asks, the later rounds move with it by the same
interval; and the postponement's limits are answered in our own words on the page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from matches import services
from matches.models import Match, OrganiserAction, Tournament
from tournaments import services as organising
from tournaments.services.organising import POSTPONE_NOT_LATER, POSTPONE_TOO_LONG

pytestmark = pytest.mark.django_db


@pytest.fixture
def league(organiser, alice, bob, make_member) -> Tournament:
    """Four players, three rounds a day apart, starting tomorrow."""
    players = [alice, bob, make_member("carol"), make_member("dave")]
    return organising.create_round_robin(
        organiser=organiser,
        name="League",
        players=players,
        first_kickoff=timezone.now() + timedelta(days=1),
        interval=timedelta(days=1),
    )


def _kickoffs(league: Tournament) -> dict[int, object]:
    return dict(league.matches.values_list("id", "kickoff_at"))


def _postpone(organiser, league, **kwargs):
    args = {
        "organiser": organiser,
        "tournament_id": league.id,
        "round_number": 1,
        "by": timedelta(hours=36),
        "reason": "Flooded hall",
    } | kwargs
    return organising.round_postpone(**args)


def test_round_one_is_not_put_after_round_two_without_a_word(organiser, league):
    before = _kickoffs(league)
    with pytest.raises(services.ServiceError) as refused:
        _postpone(organiser, league)
    assert refused.value.code == "rounds_out_of_order"
    assert refused.value.status == 409
    assert refused.value.message == (
        "Round 1 would then kick off after round 2: postpone the later rounds with it, or by less."
    )
    assert _kickoffs(league) == before
    assert not OrganiserAction.objects.exists()


def test_a_postponement_that_keeps_the_order_needs_no_carrying(organiser, league):
    before = _kickoffs(league)
    moved = _postpone(organiser, league, by=timedelta(hours=20))
    assert {m.round_number for m in moved} == {1}
    for match in league.matches.all():
        shift = timedelta(hours=20) if match.round_number == 1 else timedelta(0)
        assert match.kickoff_at == before[match.id] + shift


def test_carrying_the_later_rounds_keeps_their_order_and_spacing(organiser, league):
    before = _kickoffs(league)
    moved = _postpone(organiser, league, carry_later=True)
    assert len(moved) == league.matches.count() == 6
    for match in league.matches.all():
        assert match.kickoff_at == before[match.id] + timedelta(hours=36)
        assert match.no_show_at == match.kickoff_at + match.no_show_window
        action = OrganiserAction.objects.get(match=match)
        assert action.kind == OrganiserAction.Kind.POSTPONE
        assert action.details["round_number"] == match.round_number
        if match.round_number == 1:
            assert "carried_with_round" not in action.details
        else:
            assert action.details["carried_with_round"] == 1
    # Each player of the carried rounds is told too (two players, six fixtures).
    from notifications.models import Notice

    assert Notice.objects.filter(kind="moved").count() == 12


def test_carrying_leaves_a_later_fixture_already_under_way(organiser, league):
    later = league.matches.filter(round_number=3).order_by("id").first()
    assert later is not None
    Match.objects.filter(pk=later.pk).update(kickoff_at=timezone.now() - timedelta(minutes=1))
    services.match_apply_deadlines(match_id=later.pk)
    later.refresh_from_db()
    assert later.status == Match.Status.LIVE
    started = later.kickoff_at
    # Round 1 would now kick off after round 3's live fixture: refused without carrying.
    with pytest.raises(services.ServiceError) as refused:
        _postpone(organiser, league, by=timedelta(hours=1))
    assert "after round 3" in refused.value.message
    moved = _postpone(organiser, league, by=timedelta(hours=1), carry_later=True)
    assert later.id not in {m.id for m in moved}
    later.refresh_from_db()
    assert later.kickoff_at == started


def _page_post(organiser, league, **fields):
    client = Client()
    client.force_login(organiser)
    data = {
        "round_number": "1",
        "hours": "36",
        "reason": "Flooded",
        "back": f"tournament={league.id}",
    } | fields
    return client.post(f"/organise/tournaments/{league.id}/postpone/", data)


def test_the_page_says_why_and_offers_to_carry_the_later_rounds(organiser, league):
    before = _kickoffs(league)
    answer = _page_post(organiser, league)
    assert answer.status_code == 409
    page = answer.content.decode()
    assert "Round 1 would then kick off after round 2" in page
    assert 'name="carry_later"' in page
    assert _kickoffs(league) == before

    answer = _page_post(organiser, league, carry_later="on")
    assert answer.status_code == 302
    assert all(
        match.kickoff_at == before[match.id] + timedelta(hours=36) for match in league.matches.all()
    )


@pytest.mark.parametrize(
    ("hours", "said"),
    [
        ("2161", POSTPONE_TOO_LONG),
        ("100000", POSTPONE_TOO_LONG),
        ("0", POSTPONE_NOT_LATER),
        ("-5", POSTPONE_NOT_LATER),
    ],
)
def test_the_limits_are_answered_in_our_own_words(organiser, league, hours, said):
    before = _kickoffs(league)
    answer = _page_post(organiser, league, hours=hours)
    assert answer.status_code == 400
    page = answer.content.decode()
    assert said in page
    assert "Ensure this value" not in page
    assert "Ensure that there are no more than" not in page
    assert _kickoffs(league) == before
