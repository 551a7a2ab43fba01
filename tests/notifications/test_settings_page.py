"""The notification settings page: saves what it is given, refuses bad input with a clear
error and changes nothing; only for signed-in members."""

from __future__ import annotations

import pytest
from django.test import Client

from notifications.models import NotificationSettings
from notifications.services import settings_of

pytestmark = pytest.mark.django_db

VALID = {
    "time_zone": "Europe/Paris",
    "your_move_email": "digest",
    "digest_hour": "7",
    "email_warning_hours": "8, 4, 1",
    "push_warning_hours": "2",
    "quiet_start": "22",
    "quiet_end": "7",
    "email_your_move": "on",
    "email_result": "on",
    "push_forfeit": "on",
}


def _client(member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def test_the_page_saves_every_choice(bob):
    client = _client(bob)
    page = client.get("/notifications/settings/")
    assert page.status_code == 200
    assert b'name="email_your_move"' in page.content
    answer = client.post("/notifications/settings/", VALID)
    assert answer.status_code == 302
    prefs = NotificationSettings.objects.get(member=bob)
    assert prefs.time_zone == "Europe/Paris"
    assert prefs.your_move_email == "digest"
    assert prefs.digest_hour == 7
    assert prefs.email_warning_hours == [8, 4, 1]
    assert prefs.push_warning_hours == [2]
    assert (prefs.quiet_start, prefs.quiet_end) == (22, 7)
    assert prefs.email_kinds == ["your_move", "result"]
    assert prefs.push_kinds == ["forfeit"]
    assert b"saved" in client.get("/notifications/settings/").content


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("email_warning_hours", "24, soon", b"Write whole hours"),
        ("push_warning_hours", "72", b"1 to 71 hours"),
        ("email_warning_hours", "1,2,3,4,5,6,7", b"At most 6"),
        ("time_zone", "Mars/Olympus", b"Select a valid choice"),
        ("digest_hour", "24", b"Select a valid choice"),
        ("quiet_end", "", b"both a start and an end"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(bob, field, value, message):
    before = settings_of(bob)
    answer = _client(bob).post("/notifications/settings/", {**VALID, field: value})
    assert answer.status_code == 400
    assert message in answer.content
    after = NotificationSettings.objects.get(member=bob)
    assert (after.time_zone, after.email_kinds, after.email_warning_hours) == (
        before.time_zone,
        before.email_kinds,
        before.email_warning_hours,
    )


def test_only_members_have_settings():
    answer = Client().get("/notifications/settings/")
    assert answer.status_code == 302
    assert "/accounts/sign-in/" in answer["Location"]
    assert (
        Client()
        .post("/notifications/push/subscribe/", "{}", content_type="application/json")
        .status_code
        == 302
    )


def test_push_is_offered_only_when_vapid_is_set(bob, vapid):
    page = _client(bob).get("/notifications/settings/")
    assert b'data-ready="yes"' in page.content
    assert vapid["VAPID_PUBLIC_KEY"].encode() in page.content
