"""An organiser's changes reach the players (issue 35): a reschedule, a round postponed, a
substitution, a cancellation, a void and an adjudication each tell every affected player by
the channels they chose (email through a real SMTP server, web push through a stand-in push
service), with the facts (who, what changed, the old and new kick-off in the member's zone,
the reason), and each moves the fixture's calendar event on (a higher SEQUENCE; cancelled
fixtures go out as STATUS:CANCELLED). No notice prints "None" or a score for a fixture that
was never played."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import http_ece
import icalendar
import pytest
from django.test import Client
from django.utils import timezone

from matches import services
from matches.models import Match
from notifications import sweeps
from notifications.feeds import feed_of
from notifications.models import Kind, Notice
from notifications.schemas import PushPayload
from notifications.services import update_notification_settings
from tests.matches.helpers import title_of
from tests.notifications.conftest import html_of, text_of, to
from tests.notifications.test_push import _subscribe as subscribe
from tournaments import services as organising

pytestmark = pytest.mark.django_db

TOKYO = ZoneInfo("Asia/Tokyo")


def _local(moment: datetime, zone: ZoneInfo) -> str:
    return moment.astimezone(zone).strftime("%a %d %b %Y, %H:%M %Z")


def _ics(message) -> icalendar.Event:
    [attachment] = list(message.iter_attachments())
    assert attachment.get_content_type() == "text/calendar"
    [event] = icalendar.Calendar.from_ical(attachment.get_content()).walk("VEVENT")
    return event


def _feed_event(member, match) -> icalendar.Event:
    secret = feed_of(member).secret
    ics = Client().get(f"/notifications/calendar/{member.pk}/{secret}.ics").content
    events = icalendar.Calendar.from_ical(ics).walk("VEVENT")
    [event] = [e for e in events if str(e["UID"]).startswith(f"match-{match.id}@")]
    return event


def _no_none(*messages) -> None:
    for message in messages:
        for part in (message["Subject"], text_of(message), html_of(message)):
            assert "None" not in part, part


@pytest.fixture
def fixture_ahead(make_fixture, with_email, capture):
    """alice (First) v bob (Second), kick-off in two days; bob reads times in Tokyo."""
    alice, bob = with_email
    update_notification_settings(member=bob, values={"time_zone": "Asia/Tokyo"})
    kickoff = (timezone.now() + timedelta(days=2)).replace(second=0, microsecond=0)
    with capture(execute=True):
        return make_fixture(first=alice, second=bob, kickoff_at=kickoff, name="Spring cup")


@pytest.fixture
def capture(django_capture_on_commit_callbacks, smtp_server, eager_tasks):
    return django_capture_on_commit_callbacks


def test_a_reschedule_tells_both_players_the_old_and_new_kick_off_with_a_newer_ics(
    fixture_ahead, with_email, organiser, smtp_server, capture
):
    alice, bob = with_email
    match = fixture_ahead
    old = match.kickoff_at
    new = old + timedelta(days=1, hours=3)
    before = {alice.email: len(to(smtp_server, alice.email)), bob.email: 1}
    first = _feed_event(bob, match)
    assert int(first["SEQUENCE"]) == 0

    with capture(execute=True):
        organising.fixture_reschedule(
            organiser=organiser, match_id=match.id, kickoff_at=new, reason="The hall is closed."
        )

    title = title_of(match)
    for member in (alice, bob):
        messages = to(smtp_server, member.email)
        assert len(messages) == before[member.email] + 1
    [moved] = to(smtp_server, bob.email)[1:]
    assert moved["Subject"] == f"Kick-off moved: {title}"
    text = text_of(moved)
    assert f"organiser moved the kick-off of {title}." in text
    assert f"Was: {_local(old, TOKYO)}." in text
    assert f"Now: {_local(new, TOKYO)}." in text
    assert "You sit Second, against alice." in text
    assert "The organiser's reason: The hall is closed." in text
    _no_none(moved)
    event = _ics(moved)
    assert str(event["UID"]) == str(first["UID"])
    assert event.decoded("dtstart") == new
    assert int(event["SEQUENCE"]) == 1
    # alice's email is in her own zone (UTC).
    [alices] = to(smtp_server, alice.email)[-1:]
    assert f"Now: {_local(new, ZoneInfo('UTC'))}." in text_of(alices)
    # The feed moves the event on too.
    fed = _feed_event(bob, match)
    assert fed.decoded("dtstart") == new
    assert int(fed["SEQUENCE"]) == 1


def test_a_second_reschedule_sends_its_own_notice_and_a_higher_sequence(
    fixture_ahead, with_email, organiser, smtp_server, capture
):
    alice, bob = with_email
    match = fixture_ahead
    for days in (3, 4):
        with capture(execute=True):
            organising.fixture_reschedule(
                organiser=organiser,
                match_id=match.id,
                kickoff_at=match.kickoff_at + timedelta(days=days),
                reason=f"Move {days}",
            )
    moved = [m for m in to(smtp_server, bob.email) if m["Subject"].startswith("Kick-off moved")]
    assert [int(_ics(m)["SEQUENCE"]) for m in moved] == [1, 2]
    assert int(_feed_event(alice, match)["SEQUENCE"]) == 2
    assert Notice.objects.filter(kind=Kind.MOVED).count() == 4  # two players, two changes


def test_postponing_a_round_tells_each_of_its_players_and_no_one_else(
    organiser, make_member, smtp_server, capture
):
    players = [make_member(name) for name in ("ann", "ben", "cat", "dan")]
    for player in players:
        player.email = f"{player.username}@example.org"
        player.save(update_fields=["email"])
    start = (timezone.now() + timedelta(days=1)).replace(second=0, microsecond=0)
    with capture(execute=True):
        tournament = organising.create_round_robin(
            organiser=organiser,
            name="Spring league",
            players=players,
            first_kickoff=start,
            interval=timedelta(days=7),
        )
    sent = len(smtp_server.messages)

    with capture(execute=True):
        organising.round_postpone(
            organiser=organiser,
            tournament_id=tournament.id,
            round_number=1,
            by=timedelta(days=2),
            reason="Easter",
        )

    new = smtp_server.messages[sent:]
    assert sorted(m["To"] for m in new) == sorted(p.email for p in players)  # round 1: all 4
    for message in new:
        subject = str(message["Subject"]).strip()  # (a non-ASCII subject is folded)
        assert subject.startswith("Kick-off moved: Spring league · Round 1: ")
        text = text_of(message)
        assert "organiser postponed round 1 of Spring league by 2 days:" in text
        assert f"Now: {_local(start + timedelta(days=2), ZoneInfo('UTC'))}." in text
        assert int(_ics(message)["SEQUENCE"]) == 1
        _no_none(message)
    round_two = tournament.matches.filter(round_number=2)
    assert not Notice.objects.filter(kind=Kind.MOVED, match__in=round_two).exists()


def test_a_substitution_tells_the_newcomer_the_player_replaced_and_the_opponent(
    fixture_ahead, with_email, organiser, make_member, smtp_server, capture
):
    alice, bob = with_email
    carol = make_member("carol")
    carol.email = "carol@example.org"
    carol.save(update_fields=["email"])
    match = fixture_ahead
    counts = {m.email: len(to(smtp_server, m.email)) for m in (alice, bob)}

    with capture(execute=True):
        organising.fixture_substitute(
            organiser=organiser, match_id=match.id, position=1, member_id=carol.pk, reason="Ill"
        )

    title = title_of(match)
    assert title == "Spring cup: alice v carol"
    [welcome] = to(smtp_server, carol.email)
    assert welcome["Subject"] == f"Fixture scheduled: {title}"
    assert "You sit Second, against alice." in text_of(welcome)
    assert int(_ics(welcome)["SEQUENCE"]) == 1  # newer than the copy bob and alice hold

    [replaced] = to(smtp_server, bob.email)[counts[bob.email] :]
    assert replaced["Subject"] == f"You no longer play in {title}"
    assert f"organiser gave your seat (Second) in {title} to carol." in text_of(replaced)
    assert "The organiser's reason: Ill" in text_of(replaced)
    gone = _ics(replaced)
    assert str(gone["STATUS"]) == "CANCELLED"  # out of bob's calendar
    assert int(gone["SEQUENCE"]) == 1

    [opponent] = to(smtp_server, alice.email)[counts[alice.email] :]
    assert opponent["Subject"] == f"New opponent: carol in {title}"
    assert f"organiser put carol in bob's seat (Second) in {title}." in text_of(opponent)
    assert "You now play carol." in text_of(opponent)
    assert _ics(opponent).decoded("dtstart") == match.kickoff_at
    _no_none(welcome, replaced, opponent)


def test_a_cancelled_fixture_reads_cancelled_with_no_score_and_cancels_the_event(
    fixture_ahead, with_email, organiser, smtp_server, capture
):
    alice, bob = with_email
    match = fixture_ahead
    with capture(execute=True):
        organising.fixture_cancel(organiser=organiser, match_id=match.id, reason="Rained off.")

    title = title_of(match)
    for member in (alice, bob):
        message = to(smtp_server, member.email)[-1]
        assert message["Subject"] == f"Cancelled: {title}"
        text = text_of(message)
        assert f"organiser cancelled {title} before its kick-off." in text
        assert "It has no result and counts for nobody." in text
        assert "The organiser's reason: Rained off." in text
        assert "Final score" not in text
        assert "both seats empty" not in text
        _no_none(message)
        event = _ics(message)
        assert str(event["STATUS"]) == "CANCELLED"
        assert int(event["SEQUENCE"]) == 1
    fed = _feed_event(alice, match)
    assert str(fed["STATUS"]) == "CANCELLED"
    assert int(fed["SEQUENCE"]) == 1


def test_a_cancelled_fixture_with_one_player_never_prints_none(
    make_fixture, with_email, organiser, smtp_server, capture
):
    alice, _ = with_email
    with capture(execute=True):
        match = make_fixture(first=alice, kickoff_at=timezone.now() + timedelta(days=1))
        organising.fixture_cancel(organiser=organiser, match_id=match.id, reason="No opponent")
    message = to(smtp_server, alice.email)[-1]
    assert message["Subject"] == f"Cancelled: {title_of(match)}"
    _no_none(message)


def test_a_voided_and_an_adjudicated_match_say_what_the_organiser_decided(
    make_fixture, with_email, organiser, smtp_server, capture
):
    alice, bob = with_email
    with capture(execute=True):
        voided = make_fixture(first=alice, second=bob, name="Stalled one")
        adjudicated = make_fixture(first=alice, second=bob, name="Stalled two")
    with capture(execute=True):
        organising.match_adjudicate(
            organiser=organiser, match_id=voided.id, ruling="void", reason="Both ill."
        )
        organising.match_adjudicate(
            organiser=organiser, match_id=adjudicated.id, ruling="second", reason="alice left."
        )

    [void_a, judged_a] = [m for m in to(smtp_server, alice.email) if "Stalled" in m["Subject"]][-2:]
    assert void_a["Subject"] == f"Voided: {title_of(voided)}"
    text = text_of(void_a)
    assert f"organiser voided {title_of(voided)}." in text
    assert "It has no result, counts for nobody and is not rated." in text
    assert "The scores when it was voided: you 0, bob 0." in text
    assert "The organiser's reason: Both ill." in text
    assert "both seats empty" not in text

    assert judged_a["Subject"] == f"You lost by an organiser's ruling: {title_of(adjudicated)}"
    judged_b = to(smtp_server, bob.email)[-1]
    assert judged_b["Subject"] == f"You won by an organiser's ruling: {title_of(adjudicated)}"
    assert f"organiser adjudicated {title_of(adjudicated)}: bob (Second) won." in text_of(judged_b)
    assert "The organiser's reason: alice left." in text_of(judged_b)
    _no_none(void_a, judged_a, judged_b)


def test_a_member_who_turned_fixture_emails_off_gets_no_moved_email_but_a_push(
    fixture_ahead,
    with_email,
    organiser,
    smtp_server,
    capture,
    vapid,
    push_service,
    browser_keys,
):
    _alice, bob = with_email
    subscribe(bob, push_service, browser_keys)
    update_notification_settings(
        member=bob,
        values={"email_kinds": [Kind.YOUR_MOVE, Kind.KICKOFF, Kind.FORFEIT, Kind.RESULT]},
    )
    emails = len(to(smtp_server, bob.email))
    match = fixture_ahead
    new = match.kickoff_at + timedelta(hours=5)
    with capture(execute=True):
        organising.fixture_reschedule(
            organiser=organiser, match_id=match.id, kickoff_at=new, reason="Later"
        )

    assert len(to(smtp_server, bob.email)) == emails  # no email, as he chose
    [request] = push_service.requests
    payload = PushPayload.model_validate_json(
        http_ece.decrypt(
            request.body,
            private_key=browser_keys.private_key,
            auth_secret=browser_keys.auth_secret,
            version="aes128gcm",
        )
    )
    assert payload.kind == "moved"
    assert payload.title == f"Kick-off moved: {title_of(match)}"
    assert f"Now: {_local(new, TOKYO)}." in payload.body
    assert "None" not in json.dumps(payload.model_dump())


def test_a_moved_notice_sent_late_after_another_change_is_skipped(
    fixture_ahead, with_email, organiser, smtp_server, django_capture_on_commit_callbacks
):
    """A notice held back (the task lost, quiet hours) that a later change outran is not
    sent: the later change's own notice tells the time that holds."""
    alice, _bob = with_email
    match = fixture_ahead
    emails = len(to(smtp_server, alice.email))
    organising.fixture_reschedule(  # its notices' tasks are never run here
        organiser=organiser,
        match_id=match.id,
        kickoff_at=match.kickoff_at + timedelta(days=1),
        reason="First",
    )
    with django_capture_on_commit_callbacks(execute=True):
        organising.fixture_reschedule(
            organiser=organiser,
            match_id=match.id,
            kickoff_at=match.kickoff_at + timedelta(days=2),
            reason="Second",
        )
    with django_capture_on_commit_callbacks(execute=True):  # the sweep finds the lost ones
        sweeps.send_due(now=timezone.now() + timedelta(minutes=5))
    moved = to(smtp_server, alice.email)[emails:]
    assert [m["Subject"] for m in moved] == [f"Kick-off moved: {title_of(match)}"]
    assert "The organiser's reason: Second" in text_of(moved[0])


def test_the_sequence_grows_when_a_rescheduled_fixture_is_abandoned(make_fixture, organiser):
    from notifications.calendar import calendar_sequence

    start = datetime.now(tz=UTC) + timedelta(hours=1)
    match = make_fixture(kickoff_at=start, name="Empty")
    organising.fixture_reschedule(
        organiser=organiser, match_id=match.id, kickoff_at=start + timedelta(hours=1), reason="x"
    )
    assert calendar_sequence(Match.objects.get(pk=match.pk)) == 1
    services.match_apply_deadlines(match_id=match.id, now=start + timedelta(hours=2))
    match.refresh_from_db()
    assert match.end_reason == Match.EndReason.ABANDONED  # both seats empty at the no-show
    assert calendar_sequence(match) == 2


def test_removing_a_member_tells_their_opponents_what_became_of_each_fixture(
    make_fixture, with_email, organiser, make_member, smtp_server, capture
):
    alice, bob = with_email
    erin = make_member("erin")
    with capture(execute=True):
        live = make_fixture(first=erin, second=alice, name="Live one")
        ahead = make_fixture(
            first=bob, second=erin, name="To come", kickoff_at=timezone.now() + timedelta(days=2)
        )
    from accounts.services import membership_remove

    with capture(execute=True):
        membership_remove(organiser=organiser, member_id=erin.pk, reason="Left town.")

    won = to(smtp_server, alice.email)[-1]
    assert won["Subject"] == f"You won by a withdrawal: {title_of(live)}"
    assert f"organiser withdrew erin from {title_of(live)}: alice (Second) won." in text_of(won)
    assert "The organiser's reason: Left town." in text_of(won)
    cancelled = to(smtp_server, bob.email)[-1]
    assert cancelled["Subject"] == f"Cancelled: {title_of(ahead)}"
    assert (
        f"organiser withdrew erin from their fixtures, so {title_of(ahead)} is cancelled."
        in text_of(cancelled)
    )
    assert str(_ics(cancelled)["STATUS"]) == "CANCELLED"
    _no_none(won, cancelled)
