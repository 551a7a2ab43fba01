"""A Swiss as its tournament page shows it: rounds paired of all, each round's bye (with
its score) and Gibsonized player, and the next round to pair. Nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from matches.models import Match, Tournament
from tournaments.models import Swiss, SwissBye

if TYPE_CHECKING:
    from accounts.models import Member

_SCORE_WORDS = {Decimal(1): "a win", Decimal("0.5"): "a draw", Decimal(0): "a loss"}


def bye_score_text(points: Decimal, spread: int) -> str:
    """``"a win, +50"``: what a bye counts for."""
    return f"{_SCORE_WORDS.get(points, str(points))}, {spread:+d}"


@dataclass(frozen=True)
class SwissRoundLine:
    number: int
    bye: str | None
    gibson: str | None
    forced: bool
    unfinished: int
    #: Paired by itself, when the round before was complete (or round 1, at creation).
    automatic: bool
    #: The bye and the Gibsonized player themselves (the API names them by id and username).
    bye_record: SwissBye | None = None
    gibson_member: Member | None = None


@dataclass(frozen=True)
class SwissSummary:
    rounds: int
    paired: int
    bye_score: str
    bye_points: Decimal
    bye_spread: int
    prize_places: int
    gibsonization: bool
    pair_automatically: bool
    lines: list[SwissRoundLine]
    #: Games of the paired rounds not yet finished (the next round waits for them).
    unfinished: int
    #: The table every fixture is played at: seats (more than 2: a Swiss of tables), the
    #: challenge rule, its window, the finish line; what a table game scores.
    seat_count: int = 2
    challenge_rule: str = "void"
    challenge_window: timedelta | None = None
    finish_line: int | None = None
    table_points: str = Swiss.TablePoints.PLACES

    @property
    def tables(self) -> bool:
        return self.seat_count > 2

    @property
    def table_points_text(self) -> str:
        return Swiss.TablePoints(self.table_points).label

    @property
    def next_round(self) -> int | None:
        return self.paired + 1 if self.paired < self.rounds else None


def swiss_summary(tournament: Tournament) -> SwissSummary | None:
    """The Swiss's summary, or None for a tournament of another format."""
    swiss = Swiss.objects.filter(tournament=tournament).first()
    if swiss is None:
        return None
    byes = {bye.round_number: bye for bye in swiss.byes.select_related("member")}
    lines = [
        SwissRoundLine(
            number=row.number,
            bye=str(byes[row.number].member) if row.number in byes else None,
            gibson=str(row.gibson) if row.gibson is not None else None,
            forced=row.forced,
            unfinished=row.unfinished,
            automatic=row.paired_by_id is None,
            bye_record=byes.get(row.number),
            gibson_member=row.gibson,
        )
        for row in swiss.round_set.select_related("gibson")
    ]
    unfinished = tournament.matches.filter(
        status__in=[Match.Status.SCHEDULED, Match.Status.LIVE]
    ).count()
    return SwissSummary(
        rounds=swiss.rounds,
        paired=len(lines),
        bye_score=bye_score_text(swiss.bye_points, swiss.bye_spread),
        bye_points=swiss.bye_points,
        bye_spread=swiss.bye_spread,
        prize_places=swiss.prize_places,
        gibsonization=swiss.gibsonization,
        pair_automatically=swiss.pair_automatically,
        lines=lines,
        unfinished=unfinished,
        seat_count=swiss.seat_count,
        challenge_rule=swiss.challenge_rule,
        challenge_window=swiss.challenge_window,
        finish_line=swiss.finish_line,
        table_points=swiss.table_points,
    )
