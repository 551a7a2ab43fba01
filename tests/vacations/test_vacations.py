"""Vacation: declared days away pause the mover's turn deadline, through the sweeps and the
lazy checks alike, within each tournament's allowance (RULES.md, "Vacation").

Time travels as in tests/matches/test_clock.py. alice and bob play one round-robin fixture
kicking off at KICKOFF; alice (First) is to move from kick-off, so her deadline without
vacation is KICKOFF + 3 days. Her two days away (5 and 6 May, UTC) fall inside that turn, so
her deadline moves 48 hours later.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
import time_machine
from django.conf import settings
from django.test import Client

from matches import services
from matches.models import Match, Tournament, Turn
from notifications.services import update_notification_settings
from tests.matches.helpers import commit_now
from tournaments import services as organising
from vacations import selectors as vacation_selectors
from vacations import services as vacation_services
from vacations.errors import AllowanceNotAllowed, VacationMissing, VacationRefused
from vacations.models import Vacation, VacationAllowance
from vacations.pauses import effective_turn_deadline, paused_deadline

KICKOFF = datetime(2031, 5, 4, 18, 0, tzinfo=UTC)
DECLARED = KICKOFF - timedelta(days=2)  # 2 May: the declarations are made ahead of time
FIRST_DAY, LAST_DAY = date(2031, 5, 5), date(2031, 5, 6)
WOULD_BE = KICKOFF + timedelta(days=3)  # the deadline without vacation
EXTENDED = WOULD_BE + timedelta(days=2)  # paused for the 48 hours away
SECOND = timedelta(seconds=1)
pytestmark = pytest.mark.django_db


def _pass(match: Match, member, *, client_id: str = "c1") -> services.CommitOutcome:
    return commit_now(match, member, {"kind": "pass"}, client_id=client_id)


@pytest.fixture
def tournament(organiser, alice, bob) -> Tournament:
    with time_machine.travel(KICKOFF - timedelta(days=3), tick=False):
        return organising.create_round_robin(
            organiser=organiser,
            name="Spring League",
            players=[alice, bob],
            first_kickoff=KICKOFF,
            interval=timedelta(days=7),
        )


@pytest.fixture
def league_match(tournament, alice) -> Match:
    match = Match.objects.get(tournament=tournament)
    assert match.seats.get(position=0).member == alice
    return match


@pytest.fixture
def away(league_match, alice) -> Vacation:
    """alice declares 5-6 May on 2 May, then the match kicks off with her to move."""
    with time_machine.travel(DECLARED, tick=False):
        vacation = vacation_services.declare_vacation(
            member=alice, first_day=FIRST_DAY, last_day=LAST_DAY
        )
    with time_machine.travel(KICKOFF, tick=False):
        assert services.open_due_matches() == [league_match.id]
    league_match.refresh_from_db()
    assert league_match.to_move == 0
    assert league_match.turn_deadline_at == WOULD_BE  # the stored deadline is unchanged
    return vacation


def _state(match: Match) -> tuple[str, str, str]:
    match.refresh_from_db()
    return match.status, match.result, match.end_reason


# ------------------------------------------------------------------ the lazy checks


def test_a_move_after_the_would_be_forfeit_is_accepted(league_match, away, alice) -> None:
    with time_machine.travel(WOULD_BE + timedelta(hours=1), tick=False):
        outcome = _pass(league_match, alice)
    assert outcome.accepted, outcome.message
    assert _state(league_match) == (Match.Status.LIVE, "", "")


def test_a_page_load_after_the_would_be_forfeit_does_not_forfeit(league_match, away) -> None:
    with time_machine.travel(EXTENDED - SECOND, tick=False):
        services.match_apply_deadlines(match_id=league_match.id)
    assert _state(league_match) == (Match.Status.LIVE, "", "")


def test_a_move_at_the_extended_deadline_is_the_forfeit_it_is(league_match, away, alice) -> None:
    with time_machine.travel(EXTENDED, tick=False):
        outcome = _pass(league_match, alice)
    assert not outcome.accepted
    assert outcome.message == "This match is over."
    assert _state(league_match) == (
        Match.Status.FINISHED,
        Match.Result.SECOND,
        Match.EndReason.FORFEIT,
    )
    assert Turn.objects.filter(match=league_match).count() == 0


def test_a_page_load_at_the_extended_deadline_forfeits(league_match, away) -> None:
    with time_machine.travel(EXTENDED, tick=False):
        services.match_apply_deadlines(match_id=league_match.id)
    assert _state(league_match)[2] == Match.EndReason.FORFEIT


# ------------------------------------------------------------------ the sweeps


def test_the_sweep_waits_for_the_extended_deadline(league_match, away) -> None:
    with time_machine.travel(WOULD_BE, tick=False):
        assert services.forfeit_stalled_matches() == []
        assert services.run_clock()["forfeits"] == []
    with time_machine.travel(EXTENDED - SECOND, tick=False):
        assert services.forfeit_stalled_matches() == []
    assert _state(league_match) == (Match.Status.LIVE, "", "")
    with time_machine.travel(EXTENDED, tick=False):
        assert services.forfeit_stalled_matches() == [league_match.id]
        assert services.forfeit_stalled_matches() == []  # idempotent
    assert _state(league_match) == (
        Match.Status.FINISHED,
        Match.Result.SECOND,
        Match.EndReason.FORFEIT,
    )


def test_the_celery_task_honours_it_too(league_match, away) -> None:
    from matches import tasks

    with time_machine.travel(WOULD_BE + timedelta(days=1), tick=False):
        assert tasks.forfeit_stalled_matches() == []
    with time_machine.travel(EXTENDED, tick=False):
        assert tasks.forfeit_stalled_matches() == [league_match.id]


def test_only_the_mover_pauses(league_match, away, alice, bob) -> None:
    """Once alice has moved, bob's turn runs its three days, her vacation or not."""
    moved = KICKOFF + timedelta(hours=1)
    with time_machine.travel(moved, tick=False):
        assert _pass(league_match, alice).accepted
    with time_machine.travel(moved + timedelta(days=3), tick=False):
        assert services.forfeit_stalled_matches() == [league_match.id]
    assert _state(league_match)[1] == Match.Result.FIRST


def test_a_cancelled_vacation_pauses_nothing(league_match, alice) -> None:
    with time_machine.travel(DECLARED, tick=False):
        vacation = vacation_services.declare_vacation(
            member=alice, first_day=FIRST_DAY, last_day=LAST_DAY
        )
        vacation_services.cancel_vacation(member=alice, vacation_id=vacation.id)
    with time_machine.travel(KICKOFF, tick=False):
        services.open_due_matches()
    with time_machine.travel(WOULD_BE, tick=False):
        assert services.forfeit_stalled_matches() == [league_match.id]


def test_a_friendly_is_not_paused(make_fixture, league_match, away, alice, bob) -> None:
    """The allowance is a tournament's, so a vacation pauses tournament matches only."""
    with time_machine.travel(KICKOFF, tick=False):
        friendly = make_fixture(first=alice, second=bob, kickoff_at=None)
    assert friendly.status == Match.Status.LIVE
    with time_machine.travel(KICKOFF + timedelta(days=3), tick=False):
        assert friendly.id in services.forfeit_stalled_matches()
    assert _state(league_match)[0] == Match.Status.LIVE


def test_the_pause_arithmetic() -> None:
    start = KICKOFF
    deadline = start + timedelta(days=3)
    day = timedelta(days=1)
    # A span that began before the turn pauses only from the turn's start.
    assert (
        paused_deadline(deadline=deadline, turn_started_at=start, away=[(start - day, start + day)])
        == deadline + day
    )
    # A span that ends before the turn, or starts after the deadline, pauses nothing.
    assert (
        paused_deadline(
            deadline=deadline,
            turn_started_at=start,
            away=[(start - 2 * day, start - day), (deadline, deadline + day)],
        )
        == deadline
    )
    # A span that starts after the deadline but before the extended one pauses too.
    first = (start + day, start + 2 * day)
    second = (deadline + 12 * timedelta(hours=1), deadline + 2 * day)
    assert paused_deadline(
        deadline=deadline, turn_started_at=start, away=[second, first]
    ) == deadline + day + timedelta(hours=36)


# ------------------------------------------------------------------ what viewers see


def test_the_opponent_sees_the_notice_and_the_paused_deadline(league_match, away, bob) -> None:
    client = Client()
    with time_machine.travel(datetime(2031, 5, 5, 12, 0, tzinfo=UTC), tick=False):
        client.force_login(bob)
        page = client.get(f"/matches/{league_match.id}/")
        api = client.get(f"/api/matches/{league_match.id}/")
    assert page.status_code == 200
    assert "alice is away until 6 May 2031; their deadline pauses." in page.content.decode()
    body = api.json()
    assert body["away"] == [
        {
            "position": 0,
            "name": "alice",
            "first_day": "2031-05-05",
            "last_day": "2031-05-06",
            "away_now": True,
        }
    ]
    assert datetime.fromisoformat(body["turn_deadline_at"]) == EXTENDED
    league_match.refresh_from_db()
    assert effective_turn_deadline(league_match) == EXTENDED


def test_a_spectator_sees_an_upcoming_vacation(league_match, away) -> None:
    with time_machine.travel(KICKOFF + timedelta(hours=1), tick=False):
        page = Client().get(f"/matches/{league_match.id}/").content.decode()
    assert "alice will be away from 5 May 2031 to 6 May 2031; their deadline pauses then." in page


# ------------------------------------------------------------------ declaring


def _refused(member, first_day: date, last_day: date, *, at: datetime = DECLARED) -> str:
    before = (Vacation.objects.count(), Vacation.tournaments.through.objects.count())
    with time_machine.travel(at, tick=False), pytest.raises(VacationRefused) as refusal:
        vacation_services.declare_vacation(member=member, first_day=first_day, last_day=last_day)
    assert (Vacation.objects.count(), Vacation.tournaments.through.objects.count()) == before
    return refusal.value.message


def test_the_allowance_cannot_be_exceeded(tournament, league_match, organiser, alice) -> None:
    with time_machine.travel(DECLARED, tick=False):
        vacation_services.set_allowance(organiser=organiser, tournament_id=tournament.id, days=3)
        vacation_services.declare_vacation(member=alice, first_day=FIRST_DAY, last_day=LAST_DAY)
    assert _refused(alice, date(2031, 5, 10), date(2031, 5, 11)) == (
        "Not enough vacation days: Spring League allows 3 a season, you have 1 left, and "
        "this vacation needs 2."
    )
    # The day that is left can still be taken.
    with time_machine.travel(DECLARED, tick=False):
        vacation_services.declare_vacation(
            member=alice, first_day=date(2031, 5, 10), last_day=date(2031, 5, 10)
        )
    assert _refused(alice, date(2031, 5, 20), date(2031, 5, 20)) == (
        "Not enough vacation days: Spring League allows 3 a season, you have 0 left, and "
        "this vacation needs 1."
    )


def test_the_default_allowance_is_ten_days(league_match, alice) -> None:
    assert _refused(alice, date(2031, 5, 5), date(2031, 5, 15)) == (
        "Not enough vacation days: Spring League allows 10 a season, you have 10 left, and "
        "this vacation needs 11."
    )


def test_overlapping_days_are_refused(league_match, away, alice) -> None:
    assert _refused(alice, date(2031, 5, 6), date(2031, 5, 8), at=DECLARED) == (
        "You are already away on some of those days."
    )


def test_today_and_the_past_are_refused(league_match, alice) -> None:
    expected = "Declare a vacation ahead of time: the first day away must be tomorrow or later."
    assert _refused(alice, DECLARED.date(), date(2031, 5, 3)) == expected
    assert _refused(alice, date(2031, 4, 1), date(2031, 4, 2)) == expected
    assert _refused(alice, date(2031, 5, 6), date(2031, 5, 5)) == (
        "The last day away cannot be before the first."
    )


def test_no_tournament_match_no_vacation(alice) -> None:
    assert _refused(alice, FIRST_DAY, LAST_DAY) == (
        "A vacation pauses your tournament matches, and you have none scheduled or live."
    )


def test_days_are_the_members_own(league_match, alice) -> None:
    """Days away begin at midnight where the member lives (her settings' time zone)."""
    update_notification_settings(member=alice, values={"time_zone": "Pacific/Auckland"})
    with time_machine.travel(DECLARED, tick=False):
        vacation = vacation_services.declare_vacation(
            member=alice, first_day=FIRST_DAY, last_day=LAST_DAY
        )
    assert vacation.time_zone == "Pacific/Auckland"
    assert vacation.starts_at == datetime(2031, 5, 4, 12, 0, tzinfo=UTC)  # NZST is UTC+12
    assert vacation.ends_at == datetime(2031, 5, 6, 12, 0, tzinfo=UTC)


# ------------------------------------------------------------------ cancelling, and others


def test_cancel_before_it_starts_gives_the_days_back(league_match, away, alice) -> None:
    # away was declared on 2 May; it starts on 5 May.
    tournament = league_match.tournament
    allowance = settings.VACATION_DAYS_PER_TOURNAMENT
    assert vacation_selectors.days_used(alice.pk, tournament) == 2
    the_eve = datetime(2031, 5, 4, 23, 59, tzinfo=UTC)
    with time_machine.travel(the_eve, tick=False):
        vacation_services.cancel_vacation(member=alice, vacation_id=away.id)
    away.refresh_from_db()
    assert away.cancelled_at is not None
    # The two days are hers again: none used, and the whole allowance can be declared.
    assert vacation_selectors.days_used(alice.pk, tournament) == 0
    with time_machine.travel(the_eve, tick=False):
        whole = vacation_services.declare_vacation(
            member=alice, first_day=FIRST_DAY, last_day=FIRST_DAY + timedelta(days=allowance - 1)
        )
    assert whole.days == allowance
    assert vacation_selectors.days_used(alice.pk, tournament) == allowance


def test_a_started_vacation_cannot_be_cancelled(league_match, away, alice) -> None:
    with (
        time_machine.travel(datetime(2031, 5, 5, 0, 0, tzinfo=UTC), tick=False),
        pytest.raises(VacationRefused, match="only before its first day"),
    ):
        vacation_services.cancel_vacation(member=alice, vacation_id=away.id)
    away.refresh_from_db()
    assert away.cancelled_at is None


def test_no_one_cancels_anothers_vacation(league_match, away, bob) -> None:
    with time_machine.travel(DECLARED, tick=False), pytest.raises(VacationMissing):
        vacation_services.cancel_vacation(member=bob, vacation_id=away.id)
    client = Client()
    with time_machine.travel(DECLARED, tick=False):
        client.force_login(bob)
        response = client.post(f"/me/vacation/{away.id}/cancel/", follow=True)
    assert "There is no such vacation." in response.content.decode()
    away.refresh_from_db()
    assert away.cancelled_at is None


def test_a_member_cannot_declare_for_someone_else(league_match, alice, bob) -> None:
    """The page has no member field: whatever is posted, the vacation is the sender's."""
    client = Client()
    with time_machine.travel(DECLARED, tick=False):
        client.force_login(bob)
        response = client.post(
            "/me/vacation/",
            {"first_day": "2031-05-05", "last_day": "2031-05-06", "member": alice.pk},
        )
    assert response.status_code == 302
    assert response["Location"] == "/me/vacation/"
    assert not Vacation.objects.filter(member=alice).exists()
    assert Vacation.objects.get().member == bob


def test_the_page_shows_refusals_as_form_errors(league_match, alice) -> None:
    client = Client()
    with time_machine.travel(DECLARED, tick=False):
        client.force_login(alice)
        page = client.get("/me/vacation/").content.decode()
        assert "Spring League" in page
        response = client.post(
            "/me/vacation/", {"first_day": "2031-05-05", "last_day": "2031-05-20"}
        )
    assert response.status_code == 400
    assert (
        "Not enough vacation days: Spring League allows 10 a season, you have 10 left, and "
        "this vacation needs 16." in response.content.decode()
    )
    assert not Vacation.objects.exists()
    with time_machine.travel(DECLARED, tick=False):
        response = client.post("/me/vacation/", {"first_day": "soon", "last_day": ""})
    assert response.status_code == 400
    assert not Vacation.objects.exists()


def test_only_organisers_set_the_allowance(tournament, alice, organiser) -> None:
    with pytest.raises(AllowanceNotAllowed):
        vacation_services.set_allowance(organiser=alice, tournament_id=tournament.id, days=30)
    assert not VacationAllowance.objects.exists()
    client = Client()
    client.force_login(alice)
    assert client.post(f"/tournaments/{tournament.id}/vacation/", {"days": 30}).status_code == 404
    assert not VacationAllowance.objects.exists()
    client.force_login(organiser)
    assert client.post(f"/tournaments/{tournament.id}/vacation/", {"days": 99}).status_code == 400
    assert client.post(f"/tournaments/{tournament.id}/vacation/", {"days": 14}).status_code == 302
    assert VacationAllowance.objects.get(tournament=tournament).days == 14


def test_the_tournament_page_states_the_allowance(tournament, organiser, alice) -> None:
    with time_machine.travel(DECLARED, tick=False):
        vacation_services.set_allowance(organiser=organiser, tournament_id=tournament.id, days=7)
        client = Client()
        client.force_login(alice)
        page = client.get(f"/tournaments/{tournament.id}/").content.decode()
        assert "each player may declare 7 days away in this tournament" in page
        assert f"/tournaments/{tournament.id}/vacation/" not in page
        client.force_login(organiser)
        page = client.get(f"/tournaments/{tournament.id}/").content.decode()
    assert f"/tournaments/{tournament.id}/vacation/" in page


@pytest.mark.django_db(transaction=True)
def test_two_declarations_at_once_cannot_share_the_last_days(
    tournament, league_match, organiser, alice
) -> None:
    """The member's row lock makes two declarations take turns: with 3 days left, of two
    2-day vacations declared at the same moment exactly one is saved."""
    import threading

    from django.db import connection

    vacation_services.set_allowance(
        organiser=organiser, tournament_id=tournament.id, days=3, now=DECLARED
    )
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def declare(first_day: date, last_day: date) -> None:
        try:
            barrier.wait()
            vacation_services.declare_vacation(
                member=alice, first_day=first_day, last_day=last_day, now=DECLARED
            )
            outcomes.append("declared")
        except VacationRefused as refusal:
            outcomes.append(refusal.message)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=declare, args=(date(2031, 5, 5), date(2031, 5, 6))),
        threading.Thread(target=declare, args=(date(2031, 5, 10), date(2031, 5, 11))),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    refusal = (
        "Not enough vacation days: Spring League allows 3 a season, you have 1 left, and "
        "this vacation needs 2."
    )
    assert sorted(outcomes) == [refusal, "declared"]
    assert Vacation.objects.filter(member=alice).count() == 1


# ------------------------------------------------------------------ forfeit warnings


def _warned_hours(member) -> list[int]:
    from notifications.models import Notice

    return sorted(
        Notice.objects.filter(member=member, kind="forfeit").values_list("hours", flat=True)
    )


def test_forfeit_warnings_count_from_the_paused_deadline(league_match, away, alice) -> None:
    """The notification sweep warns by the deadline the clock applies: nothing at the hours
    before the stored one, and each warning before the paused one, even once the stored
    deadline has passed."""
    from notifications import sweeps

    with time_machine.travel(WOULD_BE - timedelta(hours=1), tick=False):
        sweeps.warn_forfeits()
    assert _warned_hours(alice) == []  # 49 hours are left, not 1
    with time_machine.travel(EXTENDED - timedelta(hours=23), tick=False):
        sweeps.warn_forfeits()  # the stored deadline passed a day ago
    assert _warned_hours(alice) == [24]
    with time_machine.travel(EXTENDED - timedelta(hours=1), tick=False):
        sweeps.warn_forfeits()
    assert _warned_hours(alice) == [2, 24]


def test_the_members_lists_show_the_paused_deadline(league_match, away, alice) -> None:
    """My matches and the digest's "waiting on you" give the deadline the clock applies."""
    from matches import selectors

    with time_machine.travel(KICKOFF + timedelta(hours=1), tick=False):
        lines = selectors.my_match_lines(alice)
        waiting = selectors.matches_waiting_on(alice)
    assert [(line.id, line.turn_deadline_at) for line in lines] == [(league_match.id, EXTENDED)]
    assert [(w.line.id, w.turn_deadline_at) for w in waiting] == [(league_match.id, EXTENDED)]


def test_how_to_play_explains_vacation() -> None:
    page = Client().get("/how-to-play/").content.decode()
    assert "in your tournament matches the forfeit clock stops" in page
    assert 'href="/me/vacation/"' in page
