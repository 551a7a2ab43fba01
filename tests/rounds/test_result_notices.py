"""'You won: <match>' / 'You came second of 3: <match>': when a rounds match ends each member
who played it hears their place and the final table, by email through a real SMTP server and
by web push through a stand-in push service, as other results; never before the end."""

from __future__ import annotations

import http_ece
import pytest

from engine import Pass
from notifications.batching import process_batch
from notifications.models import Kind, Notice
from notifications.schemas import PushPayload
from rounds import services
from rounds.models import RoundsMatch
from tests.notifications.conftest import (  # noqa: F401 (fixtures, used by name)
    browser_keys,
    eager_tasks,
    push_service,
    smtp_server,
    text_of,
    to,
    vapid,
)
from tests.notifications.test_push import _subscribe
from tests.rounds.helpers import best_move, open_match

pytestmark = pytest.mark.django_db(transaction=True)


def play_round(match: RoundsMatch, number: int, plays: dict) -> None:
    """Round ``number``: each member starts it and plays their move (a pass if None)."""
    for member in plays:
        services.rounds_start_round(match_id=match.pk, member=member, round_number=number)
    for member, move in plays.items():
        services.rounds_submit(
            match_id=match.pk, member=member, round_number=number, move=move or Pass()
        )


def test_each_member_hears_their_place_and_the_final_table(
    make_member,
    smtp_server,  # noqa: F811
    push_service,  # noqa: F811
    browser_keys,  # noqa: F811
    vapid,  # noqa: F811
    eager_tasks,  # noqa: F811
) -> None:
    alice, bob, carol = make_member("alice"), make_member("bob"), make_member("carol")
    for member in (alice, bob, carol):
        member.email = f"{member.username}@example.org"
        member.save(update_fields=["email"])
    _subscribe(bob, push_service, browser_keys)
    match = open_match(alice, bob, carol)
    # Round 1: alice alone plays; round 2: alice and bob play the same best word (carol
    # passes); then three wordless rounds end the game: alice first, bob second, carol third.
    play_round(match, 1, {alice: best_move(match), bob: None, carol: None})
    assert Notice.objects.filter(kind=Kind.RESULT).count() == 0
    word = best_move(match)
    play_round(match, 2, {alice: word, bob: word, carol: None})
    for number in (3, 4):
        play_round(match, number, {alice: None, bob: None, carol: None})
    match.refresh_from_db()
    assert match.status == RoundsMatch.Status.LIVE
    assert not Notice.objects.filter(kind=Kind.RESULT).exists()  # nothing before the end
    play_round(match, 5, {alice: None, bob: None, carol: None})
    match.refresh_from_db()
    assert match.status == RoundsMatch.Status.FINISHED
    assert match.end_reason == "no_words"
    process_batch().flush()

    totals = {p.member_id: p.total for p in match.players.all()}
    assert totals[alice.pk] > totals[bob.pk] > totals[carol.pk] == 0
    expected = {
        alice: "You won: Word Skill night",
        bob: "You came second of 3: Word Skill night",
        carol: "You came third of 3: Word Skill night",
    }
    table = (
        f"Final table: 1. alice {totals[alice.pk]}{{a}}, 2. bob {totals[bob.pk]}{{b}}, "
        f"3. carol 0{{c}}."
    )
    for member, subject in expected.items():
        results = [m for m in to(smtp_server, member.email) if "Round" not in m["Subject"]]
        [message] = results
        assert message["Subject"] == subject
        text = text_of(message)
        assert (
            "Word Skill night is over after 5 rounds: three rounds in a row placed no word." in text
        )
        you = {k: " (you)" if member.username[0] == k else "" for k in "abc"}
        assert table.format(**you) in text
        assert f"/rounds/{match.pk}/" in text
    notices = Notice.objects.filter(kind=Kind.RESULT, rounds_match=match)
    assert sorted(n.member_id for n in notices) == sorted([alice.pk, bob.pk, carol.pk])

    # bob's browser got it too, as a push: decrypted with its private key.
    pushed = [
        PushPayload.model_validate_json(
            http_ece.decrypt(
                request.body,
                private_key=browser_keys.private_key,
                auth_secret=browser_keys.auth_secret,
                version="aes128gcm",
            )
        )
        for request in push_service.requests
    ]
    [result] = [payload for payload in pushed if payload.kind == "result"]
    assert result.title == "You came second of 3: Word Skill night"
    assert result.url.endswith(f"/rounds/{match.pk}/")
