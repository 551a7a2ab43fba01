"""The notice of a new round (``RoundPaired``, notifications/rounds.py), sent by email
through the real path (an SMTP server, the notice's task run after the commit).

Each player of a new round's match hears of it once: the round's notice takes the place
of the fixture's own (same key and subject, "Fixture scheduled: …"), its text opening with
"Round N of <tournament> is paired.", so there is never a second email about the match.
A knockout's round 1 and each later round, and a Swiss's paired round, are told as
rounds; a tie's second game is a plain fixture (no new round).
"""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match
from matches.services.resignation import match_resign
from notifications.batching import process_batch
from notifications.models import Kind, Notice
from tests.notifications.conftest import text_of, to
from tournaments import services
from tournaments.models import Knockout

pytestmark = pytest.mark.django_db

_client_ids = itertools.count(1)


@pytest.fixture
def four(make_member):
    players = []
    for name in ("ann", "ben", "cat", "dan"):
        member = make_member(name)
        member.email = f"{name}@example.org"
        member.save(update_fields=["email"])
        players.append(member)
    return players


def _letters(smtp, member, match_name: str) -> list[tuple[str, str]]:
    """Each fixture (or round) email to ``member`` about ``match_name``: subject, text. (A
    "Your move" at kick-off is another notice, about the move.)"""
    process_batch().flush()
    subject = f"Fixture scheduled: {match_name}"
    return [
        (str(m["Subject"]).strip(), text_of(m))
        for m in to(smtp, member.email)
        if str(m["Subject"]).strip().startswith(subject)
    ]


def _notices(member, match) -> list[str]:
    kinds = [Kind.FIXTURE, Kind.ROUND]
    return list(
        Notice.objects.filter(member=member, match=match, kind__in=kinds).values_list(
            "kind", flat=True
        )
    )


def test_each_knockout_round_is_told_once_a_match_and_a_second_game_as_a_fixture(
    organiser, four, smtp_server, eager_tasks, django_capture_on_commit_callbacks
):
    ann, ben, cat, dan = four
    with django_capture_on_commit_callbacks(execute=True):
        tournament = services.create_knockout(
            organiser=organiser,
            name="Club Cup",
            players=four,
            first_kickoff=timezone.now() - timedelta(minutes=1),
            interval=timedelta(0),
            best_of=3,
            seeding=Knockout.Seeding.ORDER,
        )
    semis = list(tournament.matches.order_by("id"))
    assert len(semis) == 2  # 1 v 4, 2 v 3
    for match in semis:
        for seat in match.seats.all():
            assert _notices(seat.member, match) == [Kind.ROUND]
    for member in four:
        [(subject, text)] = _letters(smtp_server, member, "Club Cup · Semi-final · Game 1")
        assert subject.startswith("Fixture scheduled: Club Cup · Semi-final · Game 1")
        assert "A new round for you" in text
        assert "Round 1 of Club Cup is paired." in text
    [(_, text)] = _letters(smtp_server, dan, "Club Cup · Semi-final · Game 1")
    assert "You sit Second, against ann." in text

    # dan resigns game 1: game 2 of ann v dan is a fixture, not a round.
    one_v_four = next(m for m in semis if dan.pk in {s.member_id for s in m.seats.all()})
    with django_capture_on_commit_callbacks(execute=True):
        match_resign(match_id=one_v_four.id, member=dan, client_id=f"k{next(_client_ids)}")
    game_two = tournament.matches.get(status=Match.Status.LIVE, seats__member=dan)
    assert _notices(dan, game_two) == [Kind.FIXTURE]
    [(subject, text)] = _letters(smtp_server, dan, "Club Cup · Semi-final · Game 2")
    assert subject.startswith("Fixture scheduled: ")
    assert "is paired" not in text

    # Both semi-finals won 2-0 by ann and ben: the final is told as round 2, once each.
    for loser in (dan, cat, cat):
        match = tournament.matches.get(status=Match.Status.LIVE, seats__member=loser)
        with django_capture_on_commit_callbacks(execute=True):
            match_resign(match_id=match.id, member=loser, client_id=f"k{next(_client_ids)}")
    final = tournament.matches.get(status=Match.Status.LIVE)
    for member in (ann, ben):
        assert _notices(member, final) == [Kind.ROUND]
        [(subject, text)] = _letters(smtp_server, member, "Club Cup · Final · Game 1")
        assert subject.startswith("Fixture scheduled: Club Cup · Final · Game 1")
        assert "Round 2 of Club Cup is paired." in text
    for member in (cat, dan):
        assert _letters(smtp_server, member, "Club Cup · Final") == []


def test_a_swiss_round_is_told_once_a_match(
    organiser, four, smtp_server, eager_tasks, django_capture_on_commit_callbacks
):
    tournament = services.create_swiss(
        organiser=organiser,
        name="Autumn Swiss",
        players=four,
        rounds=3,
        first_kickoff=timezone.now() + timedelta(days=1),
        interval=timedelta(days=3),
    )
    with django_capture_on_commit_callbacks(execute=True):
        paired = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    for match in paired.matches:
        for seat in match.seats.all():
            assert _notices(seat.member, match) == [Kind.ROUND]
    for member in four:
        [(subject, text)] = _letters(smtp_server, member, "Autumn Swiss · Round 1")
        assert subject.startswith("Fixture scheduled: Autumn Swiss · Round 1")
        assert "Round 1 of Autumn Swiss is paired." in text
