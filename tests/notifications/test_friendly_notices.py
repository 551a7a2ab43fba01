"""Notices of friendly games, received by a real SMTP server (and a stand-in push service):
practice games send no "your move" unless the member asks for it; a challenge addressed to a
member and a rematch offer reach that member by their channels; a rematch's notices speak of
a match that has begun, never of a kick-off."""

from __future__ import annotations

import http_ece
import pytest
from django.test import Client

from challenges import services as challenges
from matches import services
from matches.models import Match
from notifications.models import Delivery
from notifications.schemas import PushPayload
from notifications.services import settings_of, update_notification_settings
from practice.services import start_practice
from tests.matches.helpers import title_of
from tests.notifications.conftest import text_of, to
from tests.notifications.test_push import _subscribe
from tests.practice.test_practice import members_move

pytestmark = pytest.mark.django_db


def subjects(inbox, address: str) -> list[str]:
    return [message["Subject"] for message in to(inbox, address)]


def test_a_practice_game_sends_no_your_move_unless_asked(
    with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    alice, _ = with_email
    with django_capture_on_commit_callbacks(execute=True):
        match = start_practice(member=alice, level="easy")
    for seed in range(3):  # three moves of hers, and the computer's three replies
        with django_capture_on_commit_callbacks(execute=True):
            members_move(match, alice, seed=seed)
    match.refresh_from_db()
    assert match.turn_number == 6
    assert subjects(smtp_server, alice.email) == []

    # The settings page turns it on: the computer's next reply is told.
    client = Client()
    client.force_login(alice)
    page = client.get("/notifications/settings/").content.decode()
    assert 'name="practice_your_move"' in page
    form = {
        "time_zone": "UTC",
        "your_move_email": "at_once",
        "digest_hour": "8",
        "email_warning_hours": "24, 2",
        "push_warning_hours": "24, 2",
        "quiet_start": "",
        "quiet_end": "",
        "practice_your_move": "on",
        **{f"email_{kind}": "on" for kind in settings_of(alice).email_kinds},
    }
    assert client.post("/notifications/settings/", form).status_code == 302
    assert settings_of(alice).practice_your_move
    with django_capture_on_commit_callbacks(execute=True):
        members_move(match, alice, seed=9)
    assert subjects(smtp_server, alice.email) == [f"Your move: {title_of(match)}"]


def test_a_challenge_to_a_member_reaches_them_by_email_and_push(
    with_email,
    smtp_server,
    vapid,
    push_service,
    browser_keys,
    eager_tasks,
    django_capture_on_commit_callbacks,
) -> None:
    alice, bob = with_email
    _subscribe(bob, push_service, browser_keys)
    with django_capture_on_commit_callbacks(execute=True):
        challenges.challenge_post(member=alice, opponent_username="bob")
    [message] = to(smtp_server, bob.email)
    assert message["Subject"] == "alice challenges you to a game"
    text = text_of(message)
    assert "alice challenges you to a game (word-duel, unrated)." in text
    assert "https://wordduel.test/challenges/" in text
    [request] = push_service.requests
    payload = PushPayload.model_validate_json(
        http_ece.decrypt(
            request.body,
            private_key=browser_keys.private_key,
            auth_secret=browser_keys.auth_secret,
            version="aes128gcm",
        )
    )
    assert (payload.kind, payload.title) == ("challenge", "alice challenges you to a game")
    assert to(smtp_server, alice.email) == []  # the poster is told nothing

    # A challenge open to anyone tells nobody; one withdrawn before it is sent is not sent.
    smtp_server.messages.clear()
    with django_capture_on_commit_callbacks(execute=True):
        challenges.challenge_post(member=alice)
    assert smtp_server.messages == []
    with django_capture_on_commit_callbacks(execute=False) as held:
        posted = challenges.challenge_post(member=alice, opponent_username="bob")
    challenges.challenge_withdraw(challenge_id=posted.pk, member=alice)
    for callback in held:
        callback()
    assert smtp_server.messages == []
    assert set(
        Delivery.objects.filter(notice__challenge=posted).values_list("status", flat=True)
    ) == {"skipped"}


def test_a_rematch_offer_reaches_the_other_player_and_its_match_is_begun_not_kicked_off(
    make_fixture, with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    alice, bob = with_email
    match = make_fixture(first=alice, second=bob, name="Friendly")
    services.match_resign(match_id=match.id, member=alice, client_id="resign")
    smtp_server.messages.clear()

    with django_capture_on_commit_callbacks(execute=True):
        challenges.rematch_offer(match_id=match.id, member=alice)
    [offer] = to(smtp_server, bob.email)
    assert offer["Subject"] == f"alice offers a rematch: {title_of(match)}"
    assert f"alice offers a rematch of {title_of(match)}, with the seats swapped." in text_of(offer)
    assert f"https://wordduel.test/matches/{match.id}/" in text_of(offer)
    assert to(smtp_server, alice.email) == []
    smtp_server.messages.clear()

    with django_capture_on_commit_callbacks(execute=True):
        state = challenges.rematch_accept(match_id=match.id, member=bob)
    rematch = state.rematch
    assert rematch is not None
    assert Match.objects.get(pk=rematch.pk).status == Match.Status.LIVE
    # alice offered and now sits Second: told of the match; bob, First, to move.
    [to_alice] = to(smtp_server, alice.email)
    [to_bob] = to(smtp_server, bob.email)
    assert to_bob["Subject"] == f"Your move: {title_of(rematch)}"
    for message in (to_alice, to_bob):
        text = text_of(message)
        assert "kick" not in text.lower()
        assert "as soon as both seats are filled" not in text
    assert f"{title_of(rematch)} has begun, and you move first." in text_of(to_bob)
    assert f"{title_of(rematch)} has begun: bob moves first." in text_of(to_alice)


def test_members_who_chose_no_challenge_notices_get_none(
    with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    alice, bob = with_email
    prefs = settings_of(bob)
    update_notification_settings(
        member=bob, values={"email_kinds": [k for k in prefs.email_kinds if k != "challenge"]}
    )
    with django_capture_on_commit_callbacks(execute=True):
        challenges.challenge_post(member=alice, opponent_username="bob")
    assert smtp_server.messages == []
    # A new member's defaults include both friendly notices, by email and push.
    for kinds in (settings_of(alice).email_kinds, settings_of(alice).push_kinds):
        assert {"challenge", "rematch"} <= set(kinds)
