"""Agreements at the same moment, in two threads with their own connections to the real
PostgreSQL: the row lock decides, so each agreement makes exactly one match."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from challenges import services
from challenges.errors import ChallengeUnavailable
from challenges.models import Challenge, RematchOffer
from common.errors import ServiceError
from matches.models import Match
from tests.depth import repetitions

pytestmark = pytest.mark.django_db(transaction=True)

RACES = repetitions(full=10, quick=3)


def _at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls in threads released together; each one's answer or refusal."""
    barrier = threading.Barrier(len(calls))
    answers: list[Any] = []

    def run(call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            try:
                answers.append(call())
            except ServiceError as refusal:
                answers.append(refusal)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(answers) == len(calls), "a thread did not finish"
    return answers


def test_two_members_accepting_at_once_make_one_match(alice, bob, carol) -> None:
    for _ in range(RACES):
        challenge = services.challenge_post(member=alice)
        answers = _at_once(
            lambda c=challenge: services.challenge_accept(challenge_id=c.pk, member=bob),
            lambda c=challenge: services.challenge_accept(challenge_id=c.pk, member=carol),
        )
        matches = [a for a in answers if isinstance(a, Match)]
        refusals = [a for a in answers if isinstance(a, ServiceError)]
        assert len(matches) == 1, answers
        assert len(refusals) == 1, answers
        assert isinstance(refusals[0], ChallengeUnavailable)
        assert refusals[0].message == services.ALREADY_ACCEPTED
        challenge.refresh_from_db()
        assert challenge.match_id == matches[0].id
        assert Match.objects.filter(challenge=challenge).count() == 1
    assert Match.objects.count() == RACES


def test_a_withdrawal_and_an_acceptance_at_once_go_one_way(alice, bob) -> None:
    for _ in range(RACES):
        challenge = services.challenge_post(member=alice)
        answers = _at_once(
            lambda c=challenge: services.challenge_accept(challenge_id=c.pk, member=bob),
            lambda c=challenge: services.challenge_withdraw(challenge_id=c.pk, member=alice),
        )
        challenge.refresh_from_db()
        made = [a for a in answers if isinstance(a, Match)]
        if challenge.status == Challenge.Status.ACCEPTED:
            assert len(made) == 1
            assert any(getattr(a, "message", "") == services.ALREADY_ACCEPTED for a in answers)
        else:
            assert challenge.status == Challenge.Status.WITHDRAWN
            assert made == []
            assert any(getattr(a, "message", "") == services.WITHDRAWN for a in answers)
    assert Match.objects.count() == Challenge.objects.filter(status="accepted").count()


def test_both_players_offering_a_rematch_at_once_start_one_rematch(
    finished_friendly, alice, bob
) -> None:
    answers = _at_once(
        lambda: services.rematch_offer(match_id=finished_friendly.id, member=alice),
        lambda: services.rematch_offer(match_id=finished_friendly.id, member=bob),
    )
    assert not [a for a in answers if isinstance(a, ServiceError)], answers
    offer = RematchOffer.objects.get()
    assert offer.status == RematchOffer.Status.ACCEPTED
    assert [a.rematch for a in answers].count(None) == 1  # the first offered, the second agreed
    assert Match.objects.count() == 2


def test_accepting_a_rematch_twice_at_once_starts_it_once(finished_friendly, alice, bob) -> None:
    services.rematch_offer(match_id=finished_friendly.id, member=bob)
    answers = _at_once(
        lambda: services.rematch_accept(match_id=finished_friendly.id, member=alice),
        lambda: services.rematch_accept(match_id=finished_friendly.id, member=alice),
    )
    rematches = {a.rematch.id for a in answers}
    assert len(rematches) == 1
    assert Match.objects.count() == 2
