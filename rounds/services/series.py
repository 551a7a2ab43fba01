"""A Word Skill tournament (a "rounds series", as a duplicate club runs one): created by an
organiser with its entrants, sessions scheduled at kick-offs; at each kick-off the beat task
opens the session's rounds match with the entrants present and starts it, or cancels the
session when fewer than two are there. One function per change, one transaction each;
refusals are typed (a stable ``code``), raised after nothing has changed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from common.errors import ServiceError
from matches.models import Match, Tournament
from matches.services.common import require_organiser
from rounds.models import (
    DEFAULT_ROUND_TIME,
    DEFAULT_TURN_TIME,
    MAX_PLAYERS,
    RoundsMatch,
    RoundsPlayer,
    RoundsSeries,
    RoundsSession,
)
from rounds.services.common import now as _now
from rounds.services.lifecycle import _check_times, _require_member, _start
from tournaments.services.fixtures import check_players, clean_name

#: At most this many sessions are opened by one sweep (the rest wait for the next tick).
SWEEP_BATCH = 50
TOO_FEW_PRESENT = "Fewer than two entrants were present at kick-off: the session is cancelled."


class InvalidSeries(ServiceError):
    """A series or session that cannot be created as asked (a clear reason each)."""

    code = "invalid_rounds_series"


class SeriesMissing(ServiceError):
    """No such Word Skill tournament (or session)."""

    code = "not_found"
    status = 404
    MESSAGE = "There is no such Word Skill tournament."


class NotEntered(ServiceError):
    """A check-in by a member who is not one of the series' entrants."""

    code = "not_entered"
    status = 403
    MESSAGE = "You are not entered in this Word Skill tournament."


class SessionClosed(ServiceError):
    """A check-in or change of a session that has already kicked off (or been cancelled)."""

    code = "session_closed"
    status = 409
    MESSAGE = "This session has already kicked off."


def _visibility(value: str) -> str:
    if value not in Match.Visibility.values:
        raise InvalidSeries("Choose who may see the tournament: public or members only.")
    return value


def create_rounds_series(
    *,
    organiser: Any,
    name: str,
    players: Sequence[Any],
    turn_time: timedelta = DEFAULT_TURN_TIME,
    round_time: timedelta = DEFAULT_ROUND_TIME,
    visibility_: str = Match.Visibility.PUBLIC,
) -> Tournament:
    """A Word Skill tournament with its entrants (two to eight approved members) and each
    session's personal timer and round deadline. Writes only new rows; locks nothing."""
    require_organiser(organiser)
    name = clean_name(name, what="tournament")
    unique = list(dict.fromkeys(players))
    if len(unique) != len(players):
        raise InvalidSeries("A member is entered twice.")
    if not 2 <= len(unique) <= MAX_PLAYERS:
        raise InvalidSeries(f"A Word Skill tournament has 2 to {MAX_PLAYERS} entrants.")
    check_players(unique)
    _check_times(turn_time, round_time)
    visibility = _visibility(visibility_)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name, organiser=organiser, visibility=visibility
        )
        tournament.players.set(unique)
        RoundsSeries.objects.create(
            tournament=tournament, turn_time=turn_time, round_time=round_time
        )
    return tournament


def _locked_series(tournament_id: int) -> RoundsSeries:
    series = (
        RoundsSeries.objects.select_for_update()
        .select_related("tournament")
        .filter(tournament_id=tournament_id)
        .first()
    )
    if series is None:
        raise SeriesMissing(SeriesMissing.MESSAGE)
    return series


def enter_rounds_series(*, organiser: Any, tournament_id: int, member: Any) -> RoundsSeries:
    """The organiser enters one more approved member. Locks the series row."""
    require_organiser(organiser)
    check_players([member])
    with transaction.atomic():
        series = _locked_series(tournament_id)
        entrants = set(series.tournament.players.values_list("pk", flat=True))
        if member.pk in entrants:
            raise InvalidSeries(f"{member} is already entered.")
        if len(entrants) >= MAX_PLAYERS:
            raise InvalidSeries(f"A Word Skill tournament has at most {MAX_PLAYERS} entrants.")
        series.tournament.players.add(member)
        return series


def schedule_session(
    *, organiser: Any, tournament_id: int, kickoff_at: datetime, now: datetime | None = None
) -> RoundsSession:
    """The next session of the series, kicking off at ``kickoff_at`` (not in the past).
    Locks the series row, so two at once are numbered one after the other."""
    require_organiser(organiser)
    if kickoff_at < (now or _now()):
        raise InvalidSeries("A session's kick-off must not be in the past.")
    with transaction.atomic():
        series = _locked_series(tournament_id)
        number = series.sessions.count() + 1
        return RoundsSession.objects.create(series=series, number=number, kickoff_at=kickoff_at)


def check_in(*, member: Any, session_id: int) -> RoundsSession:
    """An entrant says they are there: they play the session when it kicks off. Locks the
    session row; checking in twice is the same as once."""
    _require_member(member)
    with transaction.atomic():
        session = (
            RoundsSession.objects.select_for_update()
            .select_related("series__tournament")
            .filter(pk=session_id)
            .first()
        )
        if session is None:
            raise SeriesMissing("There is no such session.")
        if not session.series.tournament.players.filter(pk=member.pk).exists():
            raise NotEntered(NotEntered.MESSAGE)
        if session.status != RoundsSession.Status.SCHEDULED:
            raise SessionClosed(SessionClosed.MESSAGE)
        session.present.add(member)
        return session


def _kick_off(session: RoundsSession, *, at: datetime) -> None:
    """Open and start the session's match with the present entrants (in check-in order's
    stand-in, their ids), or cancel the session. The caller holds the session's lock."""
    series = session.series
    tournament = series.tournament
    entrants = set(tournament.players.values_list("pk", flat=True))
    present = list(session.present.filter(pk__in=entrants).order_by("pk"))
    if len(present) < 2:
        session.status = RoundsSession.Status.CANCELLED
        session.cancel_reason = TOO_FEW_PRESENT
        session.save(update_fields=["status", "cancel_reason"])
        return
    match = RoundsMatch.objects.create(
        name=f"{tournament.name} · session {session.number}",
        host=tournament.organiser,
        turn_time=series.turn_time,
        round_time=series.round_time,
    )
    players = [
        RoundsPlayer.objects.create(match=match, position=i, member=member, joined_at=at)
        for i, member in enumerate(present)
    ]
    _start(match, players)
    session.status = RoundsSession.Status.OPENED
    session.match = match
    session.save(update_fields=["status", "match"])


def open_due_sessions(
    *, session_ids: list[int] | None = None, at: datetime | None = None
) -> list[int]:
    """Kick off every session whose time has come: the sweep Celery beat runs. Selects by
    state (scheduled, kick-off passed; only ``session_ids`` when given), each session in a
    transaction of its own with its row locked (locked rows skipped: another sweep has them)
    and its state checked again under the lock, so a rerun opens a session once. The ids
    of the sessions changed (opened or cancelled)."""
    at = at or _now()
    due = RoundsSession.objects.filter(status=RoundsSession.Status.SCHEDULED, kickoff_at__lte=at)
    if session_ids is not None:
        due = due.filter(pk__in=session_ids)
    changed: list[int] = []
    for session_id in list(
        due.order_by("kickoff_at", "pk").values_list("pk", flat=True)[:SWEEP_BATCH]
    ):
        with transaction.atomic():
            session = (
                RoundsSession.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("series__tournament")
                .filter(pk=session_id, status=RoundsSession.Status.SCHEDULED, kickoff_at__lte=at)
                .first()
            )
            if session is None:
                continue
            _kick_off(session, at=at)
        changed.append(session_id)
    return changed
