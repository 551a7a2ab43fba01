"""Reads of a Word Skill tournament for one viewer: one access check
(``matches.visibility.pages.can_view_tournament``, else "no such tournament"), the rows read
as one moment, and every score through ``matches.visibility.rounds_series`` (closed rounds
only, as everyone may see them)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from engine.rounds import RoundRecord
from engine.rulesets import get_ruleset
from matches.visibility.pages import can_view_tournament
from matches.visibility.rounds_series import SessionScore, session_score
from rounds.models import ClosedRound, RoundsPlayer, RoundsSeries, RoundsSession
from rounds.series_schemas import SeriesSessionLine, SeriesStandingRow, SeriesView
from rounds.services.series import SeriesMissing


def _percent(total: int, top: int) -> float:
    return round(100 * total / top, 1) if top > 0 else 0.0


def series_view(*, user: Any, tournament_id: int) -> SeriesView:
    """The tournament's sessions and standings as ``user`` may see them."""
    with transaction.atomic():
        series = (
            RoundsSeries.objects.select_related("tournament")
            .filter(tournament_id=tournament_id)
            .first()
        )
        if series is None or not can_view_tournament(series.tournament, user):
            raise SeriesMissing(SeriesMissing.MESSAGE)
        entrants = list(series.tournament.players.order_by("username"))
        sessions = list(
            RoundsSession.objects.filter(series=series)
            .select_related("match")
            .prefetch_related("present")
            .order_by("number")
        )
        match_ids = [s.match_id for s in sessions if s.match_id is not None]
        seats = list(RoundsPlayer.objects.filter(match_id__in=match_ids).order_by("position"))
        closed = list(ClosedRound.objects.filter(match_id__in=match_ids).order_by("number"))
    rules = get_ruleset("word-skill")
    lines: list[SeriesSessionLine] = []
    scores: dict[int, dict[int, int]] = {member.pk: {} for member in entrants}
    played: dict[int, int] = {member.pk: 0 for member in entrants}
    top = 0
    for session in sessions:
        score = SessionScore(top=0, totals=(), rounds=0)
        if session.match is not None:
            session_seats = [seat for seat in seats if seat.match_id == session.match_id]
            score = session_score(
                [
                    RoundRecord.from_json(row.record, rules=rules)
                    for row in closed
                    if row.match_id == session.match_id
                ],
                players=len(session_seats),
                over=session.match.is_over,
            )
            for seat in session_seats:
                if seat.member_id in scores:
                    scores[seat.member_id][session.number] = score.totals[seat.position]
                    played[seat.member_id] += 1
        top += score.top
        lines.append(
            SeriesSessionLine(
                number=session.number,
                kickoff_at=session.kickoff_at,
                status=session.status,
                match_id=session.match_id,
                reason=session.cancel_reason,
                present=sorted(str(member) for member in session.present.all()),
                top=score.top,
                rounds_closed=score.rounds,
            )
        )
    rows = sorted(
        ((sum(scores[member.pk].values()), str(member), member) for member in entrants),
        key=lambda row: (-row[0], row[1]),
    )
    standings: list[SeriesStandingRow] = []
    for index, (total, name, member) in enumerate(rows):
        place = standings[-1].place if standings and standings[-1].total == total else index + 1
        standings.append(
            SeriesStandingRow(
                place=place,
                member_id=member.pk,
                name=name,
                total=total,
                percent=_percent(total, top),
                sessions_played=played[member.pk],
                by_session=[scores[member.pk].get(s.number, 0) for s in sessions],
            )
        )
    return SeriesView(
        tournament_id=series.tournament_id,
        name=series.tournament.name,
        visibility=series.tournament.visibility,
        turn_time_seconds=int(series.turn_time.total_seconds()),
        round_time_seconds=int(series.round_time.total_seconds()),
        entrants=[str(member) for member in entrants],
        sessions=lines,
        top=top,
        standings=standings,
    )


def session_of(session_id: int) -> RoundsSession | None:
    """A session with its series' tournament (for a page's redirect after a change)."""
    return RoundsSession.objects.select_related("series").filter(pk=session_id).first()
