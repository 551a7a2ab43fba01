"""A move time per tournament (docs/RULES.md section 6, "The clock"; section 3, "A
director's tools"): set on the director page by an organiser, taken by the tournament's
fixtures not over from their next turn and by fixtures made later; without one, the club's
three days."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.test import Client

from matches import services
from matches.models import Match
from tests.matches.helpers import commit_now
from tests.matches.test_standings import KICKOFF, between, round_robin
from tournaments.models import TournamentOptions
from tournaments.services import director

pytestmark = pytest.mark.django_db


def test_a_tournaments_move_time_sets_its_fixtures_deadlines(organiser, make_member) -> None:
    ann, bob, cat = (make_member(name) for name in ("ann", "bob", "cat"))
    with time_machine.travel(KICKOFF - timedelta(days=1), tick=False):
        cup = round_robin(organiser, [ann, bob])
        other = round_robin(organiser, [cat, make_member("dan")], name="Other")
        client = Client()
        client.force_login(organiser)
        url = f"/organise/tournaments/{cup.id}/director/turn-time/"
        assert client.post(url, {"hours": "6"}).status_code == 302
    assert TournamentOptions.objects.get(tournament=cup).turn_time == timedelta(hours=6)
    match = cup.matches.get()
    assert match.turn_time == timedelta(hours=6)
    with time_machine.travel(KICKOFF, tick=False):
        opened = services.open_due_matches()
    assert set(opened) == {match.id, other.matches.get().id}
    match.refresh_from_db()
    assert match.turn_deadline_at == KICKOFF + timedelta(hours=6)
    unchanged = other.matches.get()
    assert unchanged.turn_deadline_at == KICKOFF + settings.FORFEIT_AFTER
    mover = ann if match.seats.get(position=match.to_move).member_id == ann.pk else bob
    moved_at = KICKOFF + timedelta(hours=1)
    with time_machine.travel(moved_at, tick=False):
        assert commit_now(match, mover, {"kind": "pass"}, client_id="p1").accepted
    match.refresh_from_db()
    assert match.turn_deadline_at == moved_at + timedelta(hours=6)
    # A late entrant's fixtures take it too; the usual again for "empty".
    made = director.entrant_add(organiser=organiser, tournament_id=cup.id, member_id=cat.pk,
                                first_kickoff=KICKOFF + timedelta(days=9),
                                interval=timedelta(days=1))  # fmt: skip
    assert {m.turn_time for m in made} == {timedelta(hours=6)}
    director.turn_time_set(organiser=organiser, tournament_id=cup.id, turn_time=None)
    assert set(cup.matches.values_list("turn_time", flat=True)) == {None}


def test_a_move_time_out_of_range_or_by_a_non_organiser_changes_nothing(organiser, make_member):
    ann, bob = make_member("ann"), make_member("bob")
    cup = round_robin(organiser, [ann, bob])
    with pytest.raises(director.OptionsRefused, match="from 1 hour to 30 days"):
        director.turn_time_set(
            organiser=organiser, tournament_id=cup.id, turn_time=timedelta(minutes=5)
        )
    client = Client()
    client.force_login(ann)
    url = f"/organise/tournaments/{cup.id}/director/turn-time/"
    assert client.post(url, {"hours": "6"}).status_code == 403
    assert not TournamentOptions.objects.filter(tournament=cup).exists()
    assert between(cup, ann, bob).turn_time is None
    assert Match.objects.get(pk=between(cup, ann, bob).pk).time_per_move == settings.FORFEIT_AFTER
