"""The club formats as the API's shapes (:mod:`matches.schemas`): a Swiss's rounds, a
knockout's bracket, a league's tables, each built from the selector its page reads
(:mod:`tournaments.swiss_selectors`, :mod:`tournaments.knockout_selectors`,
:mod:`tournaments.league_selectors`), so the API says what the page shows. Nothing here
writes or queries beyond those selectors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from matches.schemas import (
    Bracket,
    BracketGameView,
    BracketRoundView,
    BracketSideView,
    BracketTieView,
    LeagueDivision,
    LeagueSettings,
    LeagueTableRow,
    LeagueView,
    MemberRef,
    PastDivision,
    PastSeason,
    SwissByeView,
    SwissRounds,
    SwissRoundView,
    TableRules,
    TieScoreView,
    Zone,
)
from tournaments.knockout_selectors import BracketSide, BracketTie, knockout_bracket
from tournaments.league_selectors import PROMOTION, RELEGATION, league_summary
from tournaments.standings import standing_row_fields
from tournaments.swiss_selectors import SwissRoundLine, swiss_summary

if TYPE_CHECKING:
    from accounts.models import Member
    from matches.models import Tournament
    from tournaments.models import League


def member_ref(member: Member) -> MemberRef:
    return MemberRef(member_id=member.pk, username=member.username, name=str(member))


# ---------------------------------------------------------------- Swiss


def _paired(line: SwissRoundLine) -> Literal["automatically", "by_organiser", "forced"]:
    if line.automatic:
        return "automatically"
    return "forced" if line.forced else "by_organiser"


def _swiss_round(line: SwissRoundLine) -> SwissRoundView:
    bye = line.bye_record
    return SwissRoundView(
        number=line.number,
        bye=(
            SwissByeView(member=member_ref(bye.member), points=float(bye.points), spread=bye.spread)
            if bye is not None
            else None
        ),
        gibson=member_ref(line.gibson_member) if line.gibson_member is not None else None,
        paired=_paired(line),
        unfinished=line.unfinished,
    )


def api_swiss(tournament: Tournament) -> SwissRounds | None:
    """The Swiss's rounds, or None for a tournament of another format."""
    summary = swiss_summary(tournament)
    if summary is None:
        return None
    return SwissRounds(
        tournament_id=tournament.id,
        name=tournament.name,
        rounds=summary.rounds,
        paired=summary.paired,
        next_round=summary.next_round,
        unfinished=summary.unfinished,
        bye_points=float(summary.bye_points),
        bye_spread=summary.bye_spread,
        prize_places=summary.prize_places,
        gibsonization=summary.gibsonization,
        pair_automatically=summary.pair_automatically,
        table=TableRules(
            seat_count=summary.seat_count,
            challenge_rule=summary.challenge_rule,
            challenge_window_seconds=(
                int(summary.challenge_window.total_seconds())
                if summary.challenge_window is not None
                else None
            ),
            finish_line=summary.finish_line,
            table_points=summary.table_points,
        ),
        round_list=[_swiss_round(line) for line in summary.lines],
    )


# ---------------------------------------------------------------- knockout


def _side(side: BracketSide) -> BracketSideView:
    return BracketSideView(
        seed=side.seed,
        member=member_ref(side.member) if side.member is not None else None,
        won=side.won,
    )


def _tie(tie: BracketTie) -> BracketTieView:
    score = tie.tie_score
    winner: Literal["top", "bottom"] | None = None
    if tie.top.won:
        winner = "top"
    elif tie.bottom.won:
        winner = "bottom"
    return BracketTieView(
        slot=tie.slot,
        top=_side(tie.top),
        bottom=_side(tie.bottom),
        games=[
            BracketGameView(
                match_id=game.match_id,
                number=game.number,
                status=game.status,
                top_score=game.top_score,
                bottom_score=game.bottom_score,
                result=game.status_label,
            )
            for game in tie.games
        ],
        score=(
            TieScoreView(
                top=score.top_points,
                bottom=score.bottom_points,
                spread=score.spread,
                games=score.games,
            )
            if score is not None
            else None
        ),
        winner=winner,
        bye=tie.bye,
        walkover=tie.walkover,
    )


def api_bracket(tournament: Tournament) -> Bracket | None:
    """The knockout's bracket, or None for a tournament of another format."""
    view = knockout_bracket(tournament)
    if view is None:
        return None
    return Bracket(
        tournament_id=tournament.id,
        name=tournament.name,
        best_of=view.best_of,
        seeding=tournament.knockout.seeding,
        current_round=view.current_round,
        rounds=[
            BracketRoundView(
                number=round_.number, name=round_.name, ties=[_tie(tie) for tie in round_.ties]
            )
            for round_ in view.rounds
        ],
        champion=member_ref(view.champion_member) if view.champion_member is not None else None,
    )


# ---------------------------------------------------------------- league


def api_league(league: League) -> LeagueView:
    """The league's settings, its current season's tables with their zones, and the
    earlier seasons' movements."""
    summary = league_summary(league)
    season = summary.season
    return LeagueView(
        league_id=league.id,
        name=league.name,
        settings=LeagueSettings(
            division_size=league.division_size,
            movers=league.movers,
            ruleset=league.ruleset,
            lexicon=league.lexicon,
            visibility=league.visibility,
            interval_seconds=int(league.interval.total_seconds()),
            double=league.double,
            rated=league.rated,
        ),
        season=season.number,
        season_start=season.start,
        season_closed_at=season.closed_at,
        divisions=[
            LeagueDivision(
                rank=division.rank,
                tournament_id=division.tournament_id,
                name=division.name,
                unfinished=division.unfinished,
                table=[
                    LeagueTableRow(
                        **standing_row_fields(rank, line.standing),
                        zone=_zone(line.zone),
                        leaving=line.leaving,
                    )
                    for rank, line in enumerate(division.lines, start=1)
                ],
            )
            for division in summary.divisions
        ],
        previous=[
            PastSeason(
                number=past.number,
                start=past.start,
                closed_at=past.closed_at,
                divisions=[
                    PastDivision(
                        rank=link.rank,
                        tournament_id=link.tournament_id,
                        name=link.name,
                        promoted=[member_ref(member) for member in link.promoted],
                        relegated=[member_ref(member) for member in link.relegated],
                    )
                    for link in past.divisions
                ],
            )
            for past in summary.previous
        ],
    )


def _zone(zone: str) -> Zone:
    """The selector's zone (``""`` for neither) in the API's words."""
    if zone == PROMOTION:
        return "promotion"
    if zone == RELEGATION:
        return "relegation"
    return "none"
