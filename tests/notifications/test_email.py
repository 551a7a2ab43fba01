"""Notices by email, received by a real SMTP server: headers, text and HTML parts, the
one-click unsubscribe link, the fixture's .ics, quiet hours, the digest, results."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import icalendar
import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from matches import services
from matches.models import Match
from notifications import sweeps
from notifications.models import Delivery, Kind, Notice, NotificationSettings
from notifications.services import settings_of, update_notification_settings
from tests.matches.helpers import commit_move, opening_play, rack_of, title_of
from tests.notifications.conftest import html_of, text_of, to

pytestmark = pytest.mark.django_db


def at(moment):
    """The clock stopped at ``moment`` for everything the block runs."""
    return time_machine.travel(moment, tick=False)


def _open(live_match, alice, capture):
    with capture(execute=True):
        outcome = commit_move(
            match_id=live_match.id,
            member=alice,
            move=opening_play(rack_of(live_match, 0)),
            against_turn=0,
            client_id="open-1",
        )
    assert outcome.accepted
    live_match.refresh_from_db()
    return live_match


def test_your_move_email_reaches_the_smtp_server_with_its_parts_and_headers(
    live_match, with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
):
    alice, bob = with_email
    match = _open(live_match, alice, django_capture_on_commit_callbacks)

    assert to(smtp_server, alice.email) == []  # the mover is told nothing
    [message] = to(smtp_server, bob.email)
    assert message["Subject"] == f"Your move: {title_of(match)}"
    assert message["From"] == "Word Duel <noreply@wordduel.test>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsubscribe = message["List-Unsubscribe"].strip().strip("<>")
    assert unsubscribe.startswith("https://wordduel.test/notifications/unsubscribe/")
    text, html = text_of(message), html_of(message)
    match_url = f"https://wordduel.test/matches/{match.id}/"
    for part in (text, html):
        assert f"alice has moved in {title_of(match)}." in part
        assert f"Score: you 0, alice {match.seats.get(position=0).score}." in part
        assert match_url in part
        assert unsubscribe in part
        assert "or you forfeit" in part
    deadline = match.turn_deadline_at.astimezone(ZoneInfo("UTC")).strftime("%a %d %b %Y, %H:%M")
    assert f"Move by {deadline} UTC" in text
    assert html.lstrip().startswith("<!doctype html>")
    assert Delivery.objects.get(notice__member=bob, channel="email").status == "sent"


def test_one_click_unsubscribe_turns_that_notice_off_by_email(
    live_match, with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
):
    alice, bob = with_email
    match = _open(live_match, alice, django_capture_on_commit_callbacks)
    [message] = to(smtp_server, bob.email)
    path = urlsplit(message["List-Unsubscribe"].strip().strip("<>")).path

    # Opening the link only asks (a link scanner unsubscribes nobody) ...
    page = Client().get(path)
    assert page.status_code == 200
    assert b"Unsubscribe" in page.content
    assert Kind.YOUR_MOVE in settings_of(bob).email_kinds
    # ... a mail client's one-click POST (RFC 8058) needs no session and no CSRF token.
    answer = Client(enforce_csrf_checks=True).post(
        path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert answer.status_code == 200
    assert Kind.YOUR_MOVE not in settings_of(bob).email_kinds
    assert Kind.RESULT in settings_of(bob).email_kinds  # only that kind

    with django_capture_on_commit_callbacks(execute=True):
        commit_move(
            match_id=match.id, member=bob, move={"kind": "pass"}, against_turn=1, client_id="b1"
        )
    with django_capture_on_commit_callbacks(execute=True):
        commit_move(
            match_id=match.id, member=alice, move={"kind": "pass"}, against_turn=2, client_id="a2"
        )
    assert len(to(smtp_server, alice.email)) == 1  # alice still hears of her move
    assert len(to(smtp_server, bob.email)) == 1  # bob no more


def test_a_tampered_unsubscribe_link_is_refused_and_changes_nothing(with_email):
    _, bob = with_email
    from notifications.services import unsubscribe_token

    token = unsubscribe_token(bob.pk, Kind.YOUR_MOVE)
    answer = Client().post(f"/notifications/unsubscribe/{token[:-2]}xx/")
    assert answer.status_code == 400
    assert b"not valid" in answer.content
    assert Kind.YOUR_MOVE in settings_of(bob).email_kinds


def test_fixture_email_names_the_kick_off_in_the_members_zone_with_an_ics(
    make_fixture, with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
):
    alice, bob = with_email
    update_notification_settings(member=bob, values={"time_zone": "Asia/Tokyo"})
    kickoff = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    with django_capture_on_commit_callbacks(execute=True):
        match = make_fixture(first=alice, second=bob, kickoff_at=kickoff, name="Cup final")

    [message] = to(smtp_server, bob.email)
    assert message["Subject"] == "Fixture scheduled: Cup final: alice v bob"
    tokyo = kickoff.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%a %d %b %Y, %H:%M JST")
    assert f"Kick-off: {tokyo}." in text_of(message)
    assert "You sit Second, against alice." in text_of(message)
    [attachment] = list(message.iter_attachments())
    assert attachment.get_filename() == "fixture.ics"
    assert attachment.get_content_type() == "text/calendar"
    calendar = icalendar.Calendar.from_ical(attachment.get_content())
    [event] = calendar.walk("VEVENT")
    assert event.decoded("dtstart") == kickoff
    assert str(event["summary"]) == "Kick-off: Cup final: alice v bob"
    assert str(event["url"]) == f"https://wordduel.test/matches/{match.id}/"
    assert len(to(smtp_server, alice.email)) == 1


def test_kick_off_reminder_an_hour_before_once(
    make_fixture, with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
):
    alice, bob = with_email
    kickoff = timezone.now() + timedelta(hours=3)
    match = make_fixture(first=alice, second=bob, kickoff_at=kickoff)
    for _ in range(2):  # the sweep runs twice
        with at(kickoff - timedelta(minutes=50)), django_capture_on_commit_callbacks(execute=True):
            sweeps.remind_kickoffs()
    for member in (alice, bob):
        [message] = to(smtp_server, member.email)
        assert message["Subject"] == f"Kick-off in 50 minutes: {title_of(match)}"


def test_quiet_hours_hold_a_notice_until_morning_but_not_the_last_warning(
    live_match, with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
):
    alice, bob = with_email
    now = timezone.now()
    local = now.astimezone(ZoneInfo("Europe/Paris"))
    start, end = (local.hour - 1) % 24, (local.hour + 3) % 24
    update_notification_settings(
        member=bob, values={"time_zone": "Europe/Paris", "quiet_start": start, "quiet_end": end}
    )
    match = _open(live_match, alice, django_capture_on_commit_callbacks)
    assert to(smtp_server, bob.email) == []
    held = Delivery.objects.get(notice__member=bob, channel="email")
    assert held.status == "pending"
    assert held.due_at.astimezone(ZoneInfo("Europe/Paris")).hour == end
    assert held.due_at > now

    # By then it is still bob's move: the sweep sends the held notice.
    with at(held.due_at), django_capture_on_commit_callbacks(execute=True):
        sweeps.send_due()
    assert [m["Subject"] for m in to(smtp_server, bob.email)] == [f"Your move: {title_of(match)}"]


def test_the_two_hour_warning_is_never_held_by_quiet_hours(
    live_match, with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
):
    alice, bob = with_email
    match = _open(live_match, alice, django_capture_on_commit_callbacks)
    warning_at = match.turn_deadline_at - timedelta(hours=1, minutes=59)
    hour = warning_at.astimezone(ZoneInfo("UTC")).hour
    update_notification_settings(
        member=bob, values={"quiet_start": (hour - 1) % 24, "quiet_end": (hour + 3) % 24}
    )
    assert settings_of(bob).quiet_until(warning_at) is not None
    with at(warning_at), django_capture_on_commit_callbacks(execute=True):
        sweeps.warn_forfeits()
    # Only the latest threshold passed is sent (not the 24-hour one as well).
    assert [m["Subject"] for m in to(smtp_server, bob.email)][1:] == [
        f"1 hour 59 minutes left to move: {title_of(match)}"
    ]


def test_forfeit_warnings_follow_the_members_hours_per_channel(
    live_match, with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
):
    alice, bob = with_email
    update_notification_settings(member=bob, values={"email_warning_hours": [8, 4, 1]})
    match = _open(live_match, alice, django_capture_on_commit_callbacks)
    deadline = match.turn_deadline_at
    seen = []
    for left in (
        timedelta(hours=30),
        timedelta(hours=23),
        timedelta(hours=7, minutes=30),
        timedelta(hours=7),
        timedelta(hours=3),
        timedelta(minutes=50),
    ):
        with at(deadline - left), django_capture_on_commit_callbacks(execute=True):
            sweeps.warn_forfeits()
        seen.append(len(to(smtp_server, bob.email)))
    # 1 your-move email, then the 8-, 4- and 1-hour warnings (none at 30 h or 23 h).
    assert seen == [1, 1, 2, 2, 3, 4]
    assert list(
        Notice.objects.filter(member=bob, kind="forfeit")
        .order_by("-hours")
        .values_list("hours", flat=True)
    ) == [24, 8, 4, 2, 1]  # push's default 24 and 2 were recorded (no browser to push to)


def test_results_by_forfeit_to_both_players(
    live_match, with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
):
    alice, bob = with_email
    match = _open(live_match, alice, django_capture_on_commit_callbacks)
    after = match.turn_deadline_at + timedelta(seconds=1)
    with at(after), django_capture_on_commit_callbacks(execute=True):
        services.forfeit_stalled_matches()
    match.refresh_from_db()
    assert match.end_reason == Match.EndReason.FORFEIT
    lost = to(smtp_server, bob.email)[-1]
    won = to(smtp_server, alice.email)[-1]
    assert lost["Subject"] == f"You lost by forfeit: {title_of(match)}"
    assert won["Subject"] == f"You won by forfeit: {title_of(match)}"
    assert "alice (First) won" in text_of(won)


def test_the_digest_lists_waiting_matches_most_urgent_first_once_a_day(
    make_fixture, with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
):
    alice, bob = with_email
    update_notification_settings(
        member=alice,
        values={
            "your_move_email": NotificationSettings.EmailMode.DIGEST,
            "digest_hour": 7,
            "time_zone": "America/New_York",
        },
    )
    with django_capture_on_commit_callbacks(execute=True):
        later = make_fixture(first=alice, second=bob, name="Later one")
        sooner = make_fixture(first=alice, second=bob, name="Sooner one")
    Match.objects.filter(pk=sooner.pk).update(
        turn_deadline_at=later.turn_deadline_at - timedelta(hours=5)
    )
    fixtures = [m["Subject"] for m in to(smtp_server, alice.email)]
    assert all(s.startswith("Fixture scheduled") for s in fixtures)  # no your-move email

    seven = timezone.now().astimezone(ZoneInfo("America/New_York")).replace(
        hour=7, minute=5
    ) + timedelta(days=1)
    for moment in (seven - timedelta(hours=1), seven, seven + timedelta(minutes=30)):
        with at(moment), django_capture_on_commit_callbacks(execute=True):
            sweeps.send_digests()
            sweeps.send_due()
    [digest] = [m for m in to(smtp_server, alice.email) if "waiting" in m["Subject"]]
    assert digest["Subject"] == "2 matches waiting for your move"
    text = text_of(digest)
    assert text.index("Sooner one") < text.index("Later one")
    assert "List-Unsubscribe" in digest
