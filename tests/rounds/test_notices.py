"""'Round n is ready: <match>' reaches each member playing, by email through a real SMTP
server, when a round is dealt; and says nothing once they have started it or it closed."""

from __future__ import annotations

import pytest
from django.utils import timezone

from engine import Pass
from notifications import content
from notifications.batching import process_batch
from notifications.models import Kind, Notice
from notifications.services import settings_of
from notifications.wording import Stale
from rounds import services
from tests.notifications.conftest import (  # noqa: F401 (fixtures, used by name)
    eager_tasks,
    smtp_server,
    text_of,
    to,
)
from tests.rounds.helpers import open_match

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_player_hears_that_a_round_is_ready_until_they_start_it(
    make_member,
    smtp_server,  # noqa: F811
    eager_tasks,  # noqa: F811
) -> None:
    alice, bob = make_member("alice"), make_member("bob")
    for member in (alice, bob):
        member.email = f"{member.username}@example.org"
        member.save(update_fields=["email"])
    match = open_match(alice, bob, gramma_ana=True)
    process_batch().flush()
    for member in (alice, bob):
        [message] = to(smtp_server, member.email)
        assert message["Subject"] == "Round 1 is ready: Word Skill night"
        assert f"/rounds/{match.pk}/" in text_of(message)
        assert "Start round 1" in text_of(message)
    notices = Notice.objects.filter(kind=Kind.READY, rounds_match=match)
    assert sorted(n.member_id for n in notices) == sorted([alice.pk, bob.pk])  # not her

    services.rounds_start_round(match_id=match.pk, member=alice, round_number=1)
    for member, stale in ((alice, True), (bob, False)):
        notice = Notice.objects.get(kind=Kind.READY, rounds_match=match, member=member)
        built = content.build(notice, settings_of(member), now=timezone.now())
        assert isinstance(built, Stale) is stale

    # Round 2 dealt once both finished (Gramma Ana played after alice): a notice each again.
    services.rounds_submit(match_id=match.pk, member=alice, round_number=1, move=Pass())
    services.rounds_start_round(match_id=match.pk, member=bob, round_number=1)
    services.rounds_submit(match_id=match.pk, member=bob, round_number=1, move=Pass())
    process_batch().flush()
    subjects = [m["Subject"] for m in to(smtp_server, bob.email)]
    assert subjects == ["Round 1 is ready: Word Skill night", "Round 2 is ready: Word Skill night"]
    round_one = Notice.objects.get(kind=Kind.READY, rounds_match=match, member=bob, turn_number=1)
    assert isinstance(content.build(round_one, settings_of(bob), now=timezone.now()), Stale)
