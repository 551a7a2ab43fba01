"""A result email says how the game ended in words that read: "You won" for a game played
out (never "You won played out"), "You lost by forfeit" and the like for the rest."""

from __future__ import annotations

import pytest

from matches.models import Match
from notifications.services import update_notification_settings
from tests.matches.helpers import title_of
from tests.matches.test_records import play_out
from tests.notifications.conftest import text_of, to

pytestmark = pytest.mark.django_db


def test_the_result_of_a_game_played_out_reads_plainly(
    live_match, with_email, smtp_server, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    alice, bob = with_email
    for member in (alice, bob):
        update_notification_settings(member=member, values={"email_kinds": ["result"]})
    with django_capture_on_commit_callbacks(execute=True):
        match = play_out(live_match, (alice, bob), seed=1)
    assert (match.end_reason, match.result) == (Match.EndReason.PLAYED_OUT, "first")
    [won] = to(smtp_server, alice.email)
    [lost] = to(smtp_server, bob.email)
    assert won["Subject"] == f"You won: {title_of(match)}"
    assert lost["Subject"] == f"You lost: {title_of(match)}"
    for message in (won, lost):
        assert "played out" not in message["Subject"]
        assert "Final score: you" in text_of(message)
