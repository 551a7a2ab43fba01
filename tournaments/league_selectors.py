"""A league as its page shows it: the current season's divisions, each its table with the
promotion and relegation zones marked (by the pure rules, :func:`tournaments.league.zones`)
and the members leaving after it; the earlier seasons' divisions as links, with who went
up and down from each. Nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from accounts.models import Member
from matches import visibility
from matches.models import Match, Tournament
from tournaments import league as rules
from tournaments.models import Division, League, LeagueSeason
from tournaments.standings import Standing, standings

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.contrib.auth.models import AnonymousUser

PROMOTION, RELEGATION = "promotion", "relegation"


@dataclass(frozen=True)
class LeagueLine:
    """A table's line, its zone (``promotion``, ``relegation`` or ``""``), and whether the
    player is withdrawn from the next season."""

    standing: Standing
    zone: str
    leaving: bool


@dataclass(frozen=True)
class DivisionTable:
    rank: int
    tournament_id: int
    name: str
    lines: list[LeagueLine]
    #: Fixtures of the division not yet finished.
    unfinished: int


@dataclass(frozen=True)
class DivisionLink:
    """An earlier season's division: its page, and who went up and down from it (by its
    final standings; empty for a season never closed)."""

    rank: int
    tournament_id: int
    name: str
    promoted: tuple[Member, ...] = ()
    relegated: tuple[Member, ...] = ()


@dataclass(frozen=True)
class PastSeason:
    number: int
    start: datetime
    closed_at: datetime | None
    divisions: list[DivisionLink]


@dataclass(frozen=True)
class LeagueSummary:
    league: League
    season: LeagueSeason
    divisions: list[DivisionTable]
    previous: list[PastSeason]

    @property
    def unfinished(self) -> int:
        return sum(division.unfinished for division in self.divisions)

    @property
    def next_number(self) -> int:
        return self.season.number + 1


def _final_order(lines: list[Standing], final: list[int] | None) -> list[Standing]:
    """A closed division's lines in its recorded final order (anyone not in it last)."""
    if final is None:
        return lines
    place = {pk: index for index, pk in enumerate(final)}
    return sorted(lines, key=lambda line: place.get(line.member_id, len(place)))


def _table(division: Division, count: int, movers: int, leaving: set[int]) -> DivisionTable:
    tournament = division.tournament
    lines = _final_order(standings(tournament), division.final_standings)
    split = rules.zones(
        [line.member_id for line in lines], rank=division.rank, divisions=count, movers=movers
    )
    zone = dict.fromkeys(split.promoted, PROMOTION) | dict.fromkeys(split.relegated, RELEGATION)
    unfinished = tournament.matches.filter(
        status__in=[Match.Status.SCHEDULED, Match.Status.LIVE]
    ).count()
    return DivisionTable(
        rank=division.rank,
        tournament_id=tournament.id,
        name=tournament.name,
        lines=[
            LeagueLine(line, zone.get(line.member_id, ""), line.member_id in leaving)
            for line in lines
        ],
        unfinished=unfinished,
    )


def _links(divisions: list[Division], movers: int) -> list[DivisionLink]:
    """An earlier season's divisions, each with the members in its zones."""
    final = [d.final_standings or [] for d in divisions]
    members = Member.objects.in_bulk([pk for ids in final for pk in ids])
    links = []
    for division, ids in zip(divisions, final, strict=True):
        split = rules.zones(ids, rank=division.rank, divisions=len(divisions), movers=movers)
        links.append(
            DivisionLink(
                rank=division.rank,
                tournament_id=division.tournament.id,
                name=division.tournament.name,
                promoted=tuple(members[pk] for pk in split.promoted),
                relegated=tuple(members[pk] for pk in split.relegated),
            )
        )
    return links


def league_summary(league: League) -> LeagueSummary:
    """The league's current season with its tables and zones, and the earlier seasons."""
    seasons = list(league.seasons.order_by("-number").prefetch_related("divisions__tournament"))
    season, earlier = seasons[0], seasons[1:]
    divisions = list(season.divisions.all())
    leaving = set(season.leavers.values_list("member_id", flat=True))
    return LeagueSummary(
        league=league,
        season=season,
        divisions=[_table(d, len(divisions), league.movers, leaving) for d in divisions],
        previous=[
            PastSeason(
                number=past.number,
                start=past.start,
                closed_at=past.closed_at,
                divisions=_links(list(past.divisions.all()), league.movers),
            )
            for past in earlier
        ],
    )


def current_tournaments(league: League) -> list[Tournament]:
    """The current season's division tournaments (whose visibility decides the page's)."""
    season = league.seasons.order_by("-number").first()
    if season is None:
        return []
    return [d.tournament for d in season.divisions.select_related("tournament")]


def can_view_league(league: League, user: AbstractBaseUser | AnonymousUser) -> bool:
    """Whether ``user`` may see the league (its page and its API answer): every division of
    its current season visible to them, since its tables summarise their fixtures
    (matches/visibility decides, as for a tournament)."""
    return all(
        visibility.can_view_tournament(tournament, user)
        for tournament in current_tournaments(league)
    )


@dataclass(frozen=True)
class DivisionOf:
    """What a division's tournament page says of its league."""

    league_id: int
    league: str
    season: int
    rank: int


def division_of(tournament: Tournament) -> DivisionOf | None:
    """The league, season and division this tournament is, or None."""
    division = (
        Division.objects.filter(tournament=tournament).select_related("season__league").first()
    )
    if division is None:
        return None
    league = division.season.league
    return DivisionOf(league.id, league.name, division.season.number, division.rank)
