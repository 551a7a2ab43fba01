"""What a socket sends is built with the database out of reach (docs/DESIGN.md, principle 12).

The consumer reads a match through one worker-thread call of ``access_match`` and then builds
its frames on the event loop, where Django refuses every query. So everything a view needs
(vacations included: who is away, the turn deadline their days away pause) must come back in
the ``MatchAccess`` that call returns. Here every kind of match is read through
``access_match`` as each kind of viewer, and its snapshot frame is then built on a running
event loop with pytest-django's blocker on and every statement refused: a builder that still
asks the database fails, as it did on a tournament match's socket (close 1011).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.utils import timezone

from accounts.models import Member
from challenges.services import challenge_accept, challenge_post
from matches import services, visibility
from matches.models import Match
from matches.schemas import MatchView, SnapshotFrame, encode
from practice.services import start_practice
from tournaments import services as organising
from vacations import services as vacation_services

pytestmark = pytest.mark.django_db

#: The vacation match's calendar (as tests/vacations/test_vacations.py): alice, First, is to
#: move from kick-off; her two days away fall inside that turn and move its deadline 48 h.
KICKOFF = datetime(2031, 5, 4, 18, 0, tzinfo=UTC)
FIRST_DAY, LAST_DAY = date(2031, 5, 5), date(2031, 5, 6)
DURING_VACATION = datetime(2031, 5, 5, 12, 0, tzinfo=UTC)
PAUSED_DEADLINE = KICKOFF + timedelta(days=3) + timedelta(days=2)

KINDS = [
    "tournament_scheduled",
    "tournament_live",
    "practice",
    "challenge",
    "vacation",
    "finished",
]
ROLE_OF = {
    "player": visibility.Role.PLAYER,
    "anonymous": visibility.Role.VISITOR,
    "key_holder": visibility.Role.KEY_HOLDER,
    "organiser": visibility.Role.ORGANISER,
}


@contextlib.contextmanager
def database_out_of_reach(django_db_blocker: Any) -> Iterator[None]:
    """No connection may be made and no statement run on the one already open."""

    def refuse(execute: Callable[..., Any], sql: str, *args: Any) -> Any:
        raise AssertionError(f"a frame builder queried the database: {sql}")

    with django_db_blocker.block(), connection.execute_wrapper(refuse):
        yield


def on_the_event_loop(build: Callable[[], str]) -> str:
    """``build()`` called from a coroutine on a running event loop, as the consumer calls
    its builders: Django's async-safety check refuses any query there."""

    async def consumer_side() -> str:
        return build()

    return asyncio.run(consumer_side())


def tournament_match(organiser: Member, alice: Member, bob: Member, kickoff: datetime) -> Match:
    tournament = organising.create_round_robin(
        organiser=organiser,
        name="Async League",
        players=[alice, bob],
        first_kickoff=kickoff,
        interval=timedelta(days=7),
    )
    match = Match.objects.get(tournament=tournament)
    assert match.seats.get(position=0).member == alice
    return match


def make_match(kind: str, organiser: Member, alice: Member, bob: Member) -> Match:
    """A match of ``kind`` in which alice holds a seat (First, but in a practice game the
    computer's opponent is the member who asked)."""
    if kind == "tournament_scheduled":
        return tournament_match(organiser, alice, bob, timezone.now() + timedelta(days=1))
    if kind == "tournament_live":
        kickoff = timezone.now() + timedelta(minutes=1)
        match = tournament_match(organiser, alice, bob, kickoff)
        assert services.open_due_matches(now=kickoff) == [match.id]
        return match
    if kind == "practice":
        return start_practice(member=alice, level="easy")
    if kind == "challenge":
        challenge = challenge_post(member=alice)
        return challenge_accept(challenge_id=challenge.pk, member=bob)
    if kind == "vacation":
        with time_machine.travel(KICKOFF - timedelta(days=3), tick=False):
            match = tournament_match(organiser, alice, bob, KICKOFF)
            vacation_services.declare_vacation(member=alice, first_day=FIRST_DAY, last_day=LAST_DAY)
        with time_machine.travel(KICKOFF, tick=False):
            assert services.open_due_matches() == [match.id]
        return match
    assert kind == "finished"
    kickoff = timezone.now() + timedelta(minutes=1)
    match = tournament_match(organiser, alice, bob, kickoff)
    assert services.open_due_matches(now=kickoff) == [match.id]
    services.match_resign(match_id=match.id, member=bob, client_id="resign-1")
    return match


def viewer(role: str, organiser: Member, alice: Member, match: Match) -> tuple[Any, str | None]:
    """(user, key) of a viewer in ``role``."""
    if role == "player":
        return alice, None
    if role == "organiser":
        return organiser, None
    if role == "key_holder":
        return AnonymousUser(), match.viewing_key
    assert role == "anonymous"
    return AnonymousUser(), None


@pytest.mark.parametrize("role", ROLE_OF)
@pytest.mark.parametrize("kind", KINDS)
def test_the_snapshot_is_built_without_the_database(
    kind: str, role: str, organiser, alice, bob, django_db_blocker
) -> None:
    match = make_match(kind, organiser, alice, bob)
    user, key = viewer(role, organiser, alice, match)
    # The vacation match is looked at while alice is away; the others now.
    moment = time_machine.travel(DURING_VACATION, tick=False) if kind == "vacation" else None
    with moment or contextlib.nullcontext():
        try:
            access = services.look_at_match(user=user, match_id=match.id, key=key)
        except visibility.MatchHidden:
            # A members-only match (practice, challenge) refuses a visitor without its key
            # before anything is built: there is no frame to build.
            assert (role, match.visibility) == ("anonymous", Match.Visibility.MEMBERS)
            return
        assert access.role == ROLE_OF[role]

        with database_out_of_reach(django_db_blocker):
            text = on_the_event_loop(
                lambda: encode(
                    SnapshotFrame(reason="connect", snapshot=visibility.match_view(access))
                )
            )

    view = MatchView.model_validate(json.loads(text)["snapshot"])
    assert view.match_id == match.id
    assert view.status == Match.objects.get(pk=match.id).status
    if role == "player":
        assert view.your_seat == 0
        assert view.rack is not None
        assert len(view.rack) == (0 if kind == "tournament_scheduled" else 7)
    else:
        assert (view.your_seat, view.rack) == (None, None)
    if kind == "vacation":
        # Every viewer is told alice is away now, and sees the deadline her days pause.
        assert [(a.position, a.first_day, a.last_day, a.away_now) for a in view.away] == [
            (0, FIRST_DAY, LAST_DAY, True)
        ]
        assert view.turn_deadline_at == PAUSED_DEADLINE
    else:
        assert view.away == []


def test_time_away_has_one_reader_the_vacations_app_registered() -> None:
    """The core asks one reader (matches/away.py); a second is refused. (That the vacations'
    answer reaches the view is the "vacation" case above.)"""
    from matches import away
    from vacations.selectors import time_away

    away.register(time_away)  # the vacations app's, again: no change
    with pytest.raises(RuntimeError, match="only one"):
        away.register(lambda match, seats, now: away.nobody_away(match))
    match = Match(turn_deadline_at=KICKOFF)  # without a reader: nobody away, as stored
    assert away.nobody_away(match) == away.TimeAway(spells=(), turn_deadline_at=KICKOFF)
