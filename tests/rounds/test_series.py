"""A Word Skill tournament (rounds series) on real PostgreSQL: created, entered, sessions
scheduled and kicked off by the beat task, standings across a played and a missed session,
refusals, pages and the API.

Transactional (``transaction=True``): a session's match publishes its news after commit.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import Client

from engine import Pass
from matches.models import Tournament
from rounds import services, tasks
from rounds.models import RoundsMatch, RoundsSeries, RoundsSession
from rounds.series_schemas import SeriesView
from rounds.series_selectors import series_view
from rounds.services import series
from tests.rounds.helpers import best_move, game, run_task

pytestmark = pytest.mark.django_db(transaction=True)

T0 = datetime(2026, 12, 6, 19, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
TURN = timedelta(seconds=120)
ROUND = timedelta(minutes=30)


def client_for(member) -> Client:
    client = Client()
    if member is not None:
        client.force_login(member)
    return client


def make_series(organiser, *players, visibility: str = "public") -> Tournament:
    return series.create_rounds_series(
        organiser=organiser,
        name="Tuesday duplicate",
        players=list(players),
        turn_time=TURN,
        round_time=ROUND,
        visibility_=visibility,
    )


def kick_off(at: datetime) -> list[int]:
    """The beat task, run as a real Celery task (eagerly, in this process)."""
    return run_task(tasks.open_due_sessions)


def test_create_enter_and_schedule(organiser, alice, bob, make_member) -> None:
    carol = make_member("carol")
    with time_machine.travel(T0, tick=False):
        tournament = make_series(organiser, alice, bob)
        series.enter_rounds_series(organiser=organiser, tournament_id=tournament.pk, member=carol)
        first = series.schedule_session(
            organiser=organiser, tournament_id=tournament.pk, kickoff_at=T0 + HOUR
        )
        second = series.schedule_session(
            organiser=organiser, tournament_id=tournament.pk, kickoff_at=T0 + 2 * HOUR
        )
    row = RoundsSeries.objects.get(tournament=tournament)
    assert (row.turn_time, row.round_time) == (TURN, ROUND)
    assert set(tournament.players.values_list("username", flat=True)) == {"alice", "bob", "carol"}
    assert (first.number, second.number) == (1, 2)
    assert first.status == second.status == RoundsSession.Status.SCHEDULED
    assert first.match is None


def test_refusals_change_nothing(organiser, alice, bob, make_member) -> None:
    with pytest.raises(series.InvalidSeries) as refused:
        make_series(organiser, alice)
    assert refused.value.code == "invalid_rounds_series"
    assert not Tournament.objects.exists()
    with pytest.raises(services.NotAllowed):
        make_series(alice, alice, bob)
    with pytest.raises(services.InvalidRoundsMatch):
        series.create_rounds_series(
            organiser=organiser,
            name="x",
            players=[alice, bob],
            turn_time=timedelta(seconds=5),
            round_time=ROUND,
        )
    assert not Tournament.objects.exists()
    with time_machine.travel(T0, tick=False):
        tournament = make_series(organiser, alice, bob)
        with pytest.raises(series.InvalidSeries) as past:
            series.schedule_session(
                organiser=organiser, tournament_id=tournament.pk, kickoff_at=T0 - HOUR
            )
        assert "past" in str(past.value)
        with pytest.raises(series.InvalidSeries):
            series.enter_rounds_series(
                organiser=organiser, tournament_id=tournament.pk, member=alice
            )
        session = series.schedule_session(
            organiser=organiser, tournament_id=tournament.pk, kickoff_at=T0 + HOUR
        )
        outsider = make_member("outsider")
        with pytest.raises(series.NotEntered) as not_entered:
            series.check_in(member=outsider, session_id=session.pk)
        assert not_entered.value.code == "not_entered"
    assert not RoundsSession.objects.filter(present=outsider).exists()
    assert tournament.players.count() == 2


def test_the_beat_task_opens_and_starts_the_session_with_those_present(
    organiser, alice, bob, make_member
) -> None:
    carol = make_member("carol")
    with time_machine.travel(T0, tick=False):
        tournament = make_series(organiser, alice, bob, carol)
        session = series.schedule_session(
            organiser=organiser, tournament_id=tournament.pk, kickoff_at=T0 + HOUR
        )
        series.check_in(member=alice, session_id=session.pk)
        series.check_in(member=bob, session_id=session.pk)
        series.check_in(member=bob, session_id=session.pk)  # twice: as once
        assert kick_off(T0) == []  # not yet due
    with time_machine.travel(T0 + HOUR, tick=False):
        assert kick_off(T0 + HOUR) == [session.pk]
        assert kick_off(T0 + HOUR) == []  # safe to rerun
        with pytest.raises(series.SessionClosed) as late:
            series.check_in(member=carol, session_id=session.pk)
        assert late.value.code == "session_closed"
    session.refresh_from_db()
    assert session.status == RoundsSession.Status.OPENED
    match = RoundsMatch.objects.get(pk=session.match_id)
    assert match.status == RoundsMatch.Status.LIVE
    assert (match.turn_time, match.round_time) == (TURN, ROUND)
    assert set(match.players.values_list("member__username", flat=True)) == {"alice", "bob"}
    assert game(match).current is not None  # round 1 dealt


def test_a_session_with_fewer_than_two_present_is_cancelled(organiser, alice, bob) -> None:
    with time_machine.travel(T0, tick=False):
        tournament = make_series(organiser, alice, bob)
        session = series.schedule_session(
            organiser=organiser, tournament_id=tournament.pk, kickoff_at=T0 + HOUR
        )
        series.check_in(member=alice, session_id=session.pk)
    with time_machine.travel(T0 + HOUR, tick=False):
        assert series.open_due_sessions() == [session.pk]
    session.refresh_from_db()
    assert session.status == RoundsSession.Status.CANCELLED
    assert session.cancel_reason == series.TOO_FEW_PRESENT
    assert session.match is None
    assert not RoundsMatch.objects.exists()


def play_session(organiser, tournament, present, at: datetime) -> RoundsMatch:
    """Schedule a session at ``at``, check ``present`` in, kick it off, play one round (the
    first present plays the best move, the others pass) and return its match."""
    with time_machine.travel(at - HOUR, tick=False):
        session = series.schedule_session(
            organiser=organiser, tournament_id=tournament.pk, kickoff_at=at
        )
        for member in present:
            series.check_in(member=member, session_id=session.pk)
    with time_machine.travel(at, tick=False):
        series.open_due_sessions()
        session.refresh_from_db()
        match = RoundsMatch.objects.get(pk=session.match_id)
        number = game(match).current.number
        move = best_move(match)
        for seat in match.players.order_by("position"):
            services.rounds_start_round(match_id=match.pk, member=seat.member, round_number=number)
            services.rounds_submit(
                match_id=match.pk,
                member=seat.member,
                round_number=number,
                move=move if seat.member == present[0] else Pass(),
            )
    return match


def test_standings_count_a_missed_session_as_zero(organiser, alice, bob, make_member) -> None:
    carol = make_member("carol")
    with time_machine.travel(T0 - 2 * HOUR, tick=False):
        tournament = make_series(organiser, alice, bob, carol)
    first = play_session(organiser, tournament, [alice, bob, carol], T0)
    second = play_session(organiser, tournament, [bob, alice], T0 + 3 * HOUR)
    first_top = first.closed_rounds.get(number=1).record["scores"]
    second_top = second.closed_rounds.get(number=1).record["scores"]
    view = series_view(user=alice, tournament_id=tournament.pk)
    top = max(first_top) + max(second_top)
    assert top > 0
    assert view.top == top
    assert [s.top for s in view.sessions] == [max(first_top), max(second_top)]
    rows = {row.name: row for row in view.standings}
    assert rows["alice"].total == max(first_top)
    assert rows["bob"].total == max(second_top)
    assert rows["carol"].total == 0
    assert rows["carol"].sessions_played == 1
    assert rows["carol"].by_session == [0, 0]  # the second session missed: 0
    assert rows["alice"].percent == round(100 * max(first_top) / top, 1)
    assert [row.total for row in view.standings] == sorted(
        (row.total for row in view.standings), reverse=True
    )
    assert view.standings[-1].name == "carol"


def test_pages_and_api(organiser, alice, bob, make_member) -> None:
    with time_machine.travel(T0 - 2 * HOUR, tick=False):
        members_only = make_series(organiser, alice, bob, visibility="members")
        public = make_series(organiser, alice, bob)
    play_session(organiser, public, [alice, bob], T0)
    # The organiser's pages: create, enter, schedule.
    staff = client_for(organiser)
    assert staff.get("/organise/rounds-series/").status_code == 200
    carol = make_member("carol")
    with time_machine.travel(T0, tick=False):
        made = staff.post(
            "/organise/rounds-series/",
            {
                "name": "Friday duplicate",
                "players": "alice, bob",
                "turn_time": "120",
                "round_time": "1800",
                "visibility": "public",
            },
        )
        assert made.status_code == 302
        friday = Tournament.objects.get(name="Friday duplicate")
        page = f"/organise/rounds-series/{friday.pk}/"
        assert staff.post(page + "enter/", {"username": "carol"}).status_code == 302
        assert friday.players.filter(pk=carol.pk).exists()
        assert staff.post(page + "schedule/", {"kickoff_at": "2026-12-06T21:00"}).status_code == 302
        assert RoundsSession.objects.filter(series__tournament=friday).count() == 1
        bad = staff.post(page + "schedule/", {"kickoff_at": "2020-01-01T10:00"})
        assert bad.status_code == 400
        assert "past" in bad.content.decode()
    assert client_for(alice).get("/organise/rounds-series/").status_code == 403
    assert client_for(alice).post(page + "schedule/", {"kickoff_at": "x"}).status_code == 403
    # A member says "I'm here" on the page; an outsider is refused in words, nothing changed.
    with time_machine.travel(T0, tick=False):
        check_in = f"/rounds/series/{friday.pk}/sessions/1/check-in/"
        assert client_for(carol).post(check_in).status_code == 302
        outsider = make_member("outsider")
        refused = client_for(outsider).post(check_in, follow=True)
        assert "You are not entered in this Word Skill tournament." in refused.content.decode()
    session = RoundsSession.objects.get(series__tournament=friday)
    assert list(session.present.values_list("username", flat=True)) == ["carol"]
    # The tournament's own page leads to its sessions and standings.
    tournament_page = client_for(alice).get(f"/tournaments/{public.pk}/").content.decode()
    assert f"/rounds/series/{public.pk}/" in tournament_page
    # The tournament page: sessions and standings; members-only hidden from visitors.
    html = client_for(alice).get(f"/rounds/series/{public.pk}/").content.decode()
    for part in ("Session 1", "Standings", "% of top"):
        assert part in html
    assert client_for(None).get(f"/rounds/series/{public.pk}/").status_code == 200
    assert client_for(None).get(f"/rounds/series/{members_only.pk}/").status_code == 404
    assert client_for(bob).get(f"/rounds/series/{members_only.pk}/").status_code == 200
    # The API: the one schema, the same access check.
    answer = client_for(None).get(f"/api/series/{public.pk}")
    assert answer.status_code == 200
    view = SeriesView.model_validate(answer.json())
    assert view == series_view(user=None, tournament_id=public.pk)
    assert client_for(None).get(f"/api/series/{members_only.pk}").status_code == 404
    assert client_for(None).get("/api/series/99999").json()["code"] == "not_found"


def test_a_members_only_sessions_match_is_hidden_from_visitors(organiser, alice, bob) -> None:
    with time_machine.travel(T0 - 2 * HOUR, tick=False):
        hidden = make_series(organiser, alice, bob, visibility="members")
        shown = make_series(organiser, alice, bob)
    hidden_match = play_session(organiser, hidden, [alice, bob], T0)
    shown_match = play_session(organiser, shown, [alice, bob], T0 + HOUR)
    visitor, member = client_for(None), client_for(bob)
    for path in (f"/rounds/{hidden_match.pk}/", f"/api/rounds/{hidden_match.pk}"):
        assert visitor.get(path).status_code == 404
        assert member.get(path).status_code == 200
    assert visitor.get(f"/api/rounds/{hidden_match.pk}").json()["code"] == "not_found"
    assert visitor.get(f"/rounds/{shown_match.pk}/").status_code == 200
    assert visitor.get(f"/api/rounds/{shown_match.pk}").status_code == 200
