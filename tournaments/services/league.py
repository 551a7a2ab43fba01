"""A league: created with its first season, each season closed from its divisions' final
standings and the next built from them, and members withdrawn between seasons
(docs/RULES.md section 3, "Leagues"; the rules are the pure :mod:`tournaments.league`).

Each division is an ordinary round-robin tournament made by ``create_round_robin``, so its
standings, pages, notices, deadlines and ratings are every tournament's. Organisers only;
one transaction each, under the league row's lock; refusals are typed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.db import transaction

from accounts.models import Member
from common.errors import ServiceError
from matches.models import Match
from matches.services.common import now as _now
from matches.services.common import require_organiser
from matches.services.errors import InvalidFixture
from ratings.selectors import seeded_by_rating
from tournaments import league as rules
from tournaments.models import Division, League, LeagueLeaver, LeagueSeason
from tournaments.services.fixtures import (
    check_players,
    check_rules,
    check_table,
    clean_name,
    create_round_robin,
)
from tournaments.services.organising import MAX_REASON_LENGTH, NEEDS_A_REASON, REASON_TOO_LONG
from tournaments.standings import standings

NEGATIVE_INTERVAL = "The interval between rounds cannot be negative."
NO_SHOW_NOT_POSITIVE = "The no-show window must be positive."

_UNFINISHED = (Match.Status.SCHEDULED, Match.Status.LIVE)


class NotALeague(ServiceError):
    """There is no league with that id."""

    code = "not_league"
    status = 404
    MESSAGE = "There is no such league."


class LeagueSeasonUnfinished(ServiceError):
    """A season was to be closed while a division has unfinished fixtures."""

    code = "league_season_unfinished"
    status = 409
    MESSAGE = (
        "Some fixtures of this season are not finished. Wait for them, or close the season "
        "anyway: the standings as they are now are final, and the unfinished games are "
        "played on but no longer count for the league."
    )


class LeagueSeasonClosed(ServiceError):
    """The season has already been closed."""

    code = "league_season_closed"
    status = 409
    MESSAGE = "This season is already closed."


class NotInLeague(ServiceError):
    """The member withdrawn is not in the league's current season, or already withdrawn."""

    code = "not_in_league"
    status = 409
    NOT_PLAYING = "That member does not play in this league's current season."
    ALREADY_LEAVING = "That member is already withdrawn from the next season."


def _rules(division_size: int, movers: int) -> rules.Rules:
    try:
        return rules.Rules(division_size=division_size, movers=movers)
    except rules.LeagueRuleError as error:
        raise InvalidFixture(str(error)) from None


def _clean_reason(reason: str) -> str:
    """The reason, trimmed, or the refusal of a missing or overlong one (as an organiser's
    other actions)."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise InvalidFixture(NEEDS_A_REASON)
    if len(reason) > MAX_REASON_LENGTH:
        raise InvalidFixture(REASON_TOO_LONG)
    return reason


def create_league(
    *,
    organiser: Member,
    name: str,
    players: Sequence[Member],
    division_size: int,
    movers: int,
    start: datetime,
    interval: timedelta,
    double: bool = False,
    seed_by_rating: bool = False,
    ruleset: str = "word-duel",
    lexicon: str = "enable",
    visibility_: str = Match.Visibility.PUBLIC,
    no_show_window: timedelta | None = None,
    rated: bool = True,
    seat_count: int = 2,
    challenge_rule: str = "void",
    challenge_window: timedelta | None = None,
    finish_line: int | None = None,
) -> League:
    """A league and its first season: ``players`` in the order given (best first), or by
    rating in the ruleset with ``seed_by_rating``, cut into divisions of
    ``division_size``; each division a round robin (twice, seats swapped, when
    ``double``) whose first round kicks off at ``start``, one round per ``interval``.
    ``movers`` go up from each division but the top and down from each but the bottom.
    Every fixture is a duel at ``challenge_rule``, ``challenge_window`` and ``finish_line``;
    a ``seat_count`` other than 2 is refused (tables are a Swiss's).

    Writes only new rows, in one transaction."""
    require_organiser(organiser)
    name = clean_name(name, what="league")
    shape = _rules(division_size, movers)
    unique = list(dict.fromkeys(players))
    if len(unique) != len(players):
        raise InvalidFixture("Each player can be entered only once.")
    if len(unique) < 2:
        raise InvalidFixture("A league needs at least two players.")
    check_players(unique)
    if interval < timedelta(0):
        raise InvalidFixture(NEGATIVE_INTERVAL)
    if no_show_window is not None and no_show_window <= timedelta(0):
        raise InvalidFixture(NO_SHOW_NOT_POSITIVE)
    check_rules(ruleset, lexicon)
    check_table(
        ruleset,
        seat_count=seat_count,
        challenge_rule=challenge_rule,
        challenge_window=challenge_window,
        finish_line=finish_line,
    )
    with transaction.atomic():
        if seed_by_rating:
            unique = seeded_by_rating(unique, ruleset=ruleset, at=_now())
        league = League.objects.create(
            name=name,
            organiser=organiser,
            division_size=division_size,
            movers=movers,
            ruleset=ruleset,
            lexicon=lexicon,
            visibility=visibility_,
            interval=interval,
            double=double,
            rated=rated,
            no_show_window=no_show_window,
            challenge_rule=challenge_rule,
            challenge_window=challenge_window,
            finish_line=finish_line,
        )
        by_id = {member.pk: member for member in unique}
        placed = rules.first_season([member.pk for member in unique], shape)
        _new_season(organiser, league, 1, start, placed, by_id)
    return league


def _new_season(
    organiser: Member,
    league: League,
    number: int,
    start: datetime,
    placed: rules.Divisions,
    by_id: dict[int, Member],
) -> LeagueSeason:
    """Season ``number``: a round robin per division, its players in ladder order."""
    season = LeagueSeason.objects.create(league=league, number=number, start=start)
    for rank, players in enumerate(placed, start=1):
        tournament = create_round_robin(
            organiser=organiser,
            name=f"{league.name} · Season {number} · Division {rank}",
            players=[by_id[pk] for pk in players],
            first_kickoff=start,
            interval=league.interval,
            double=league.double,
            ruleset=league.ruleset,
            lexicon=league.lexicon,
            visibility_=league.visibility,
            no_show_window=league.no_show_window,
            rated=league.rated,
            challenge_rule=league.challenge_rule,
            challenge_window=league.challenge_window,
            finish_line=league.finish_line,
        )
        Division.objects.create(season=season, rank=rank, tournament=tournament)
    return season


def _locked_league(league_id: int) -> League:
    league = League.objects.select_for_update().filter(pk=league_id).first()
    if league is None:
        raise NotALeague(NotALeague.MESSAGE)
    return league


def _current(league: League) -> LeagueSeason:
    season = league.seasons.order_by("-number").first()
    assert season is not None  # every league is created with its first season
    return season


def _close(season: LeagueSeason, *, force: bool, now: datetime) -> None:
    """Record each division's final standings and close the season (the caller holds the
    league's lock)."""
    if season.closed_at is not None:
        raise LeagueSeasonClosed(LeagueSeasonClosed.MESSAGE)
    divisions = list(season.divisions.select_related("tournament"))
    unfinished = Match.objects.filter(
        tournament__league_division__in=divisions, status__in=_UNFINISHED
    ).exists()
    if unfinished and not force:
        raise LeagueSeasonUnfinished(LeagueSeasonUnfinished.MESSAGE)
    for division in divisions:
        division.final_standings = [line.member_id for line in standings(division.tournament)]
        division.save(update_fields=["final_standings"])
    season.closed_at = now
    season.forced = unfinished
    season.save(update_fields=["closed_at", "forced"])


def close_season(
    *, organiser: Member, league_id: int, force: bool = False, now: datetime | None = None
) -> LeagueSeason:
    """Close the league's current season: each division's table as it stands becomes its
    final standings, from which the next season is built.

    Locks the league row. Refused when the season is already closed
    (``LeagueSeasonClosed``) and while a division has a fixture scheduled or live
    (``LeagueSeasonUnfinished``) unless ``force``: those games are then played on, and
    count in their tournament's table but no longer for the league."""
    require_organiser(organiser)
    with transaction.atomic():
        league = _locked_league(league_id)
        season = _current(league)
        _close(season, force=force, now=now or _now())
    return season


def start_next_season(
    *,
    organiser: Member,
    league_id: int,
    start: datetime,
    entrants: Sequence[Member] = (),
    force: bool = False,
    now: datetime | None = None,
) -> LeagueSeason:
    """Build and schedule the league's next season from the current one's final standings.

    Locks the league row. The current season is closed first if it is not (refused as
    :func:`close_season` refuses, ``force`` as there). Promotion and relegation follow the
    league's rules; the members withdrawn from this season and those no longer club members
    leave; ``entrants`` join at the foot of the ladder, highest-rated first (refused if one
    already plays in the league); every division is filled to size (docs/RULES.md). Each
    division's round robin kicks off at ``start``."""
    require_organiser(organiser)
    newcomers = list(dict.fromkeys(entrants))
    if len(newcomers) != len(entrants):
        raise InvalidFixture("Each player can be entered only once.")
    check_players(newcomers)
    now = now or _now()
    with transaction.atomic():
        league = _locked_league(league_id)
        season = _current(league)
        if season.closed_at is None:
            _close(season, force=force, now=now)
        final = [list(d.final_standings or []) for d in season.divisions.order_by("rank")]
        playing = {pk for division in final for pk in division}
        again = [member for member in newcomers if member.pk in playing]
        if again:
            names = ", ".join(str(member) for member in again)
            raise InvalidFixture(f"{names} already play in this league.")
        members = {m.pk: m for m in Member.objects.filter(pk__in=playing)}
        leavers = set(season.leavers.values_list("member_id", flat=True))
        leavers |= {pk for pk, member in members.items() if not member.is_club_member}
        ordered = seeded_by_rating(newcomers, ruleset=league.ruleset, at=now)
        try:
            built = rules.next_season(
                final,
                _rules(league.division_size, league.movers),
                leavers=leavers,
                entrants=[member.pk for member in ordered],
            )
        except rules.LeagueRuleError as error:
            raise InvalidFixture(str(error)) from None
        by_id = {**members, **{member.pk: member for member in ordered}}
        return _new_season(organiser, league, season.number + 1, start, built.divisions, by_id)


def withdraw_from_league(
    *,
    organiser: Member,
    league_id: int,
    member_id: int,
    reason: str,
    now: datetime | None = None,
) -> LeagueLeaver:
    """Withdraw a member from the league after its current season: they are left out of
    the next one. Their fixtures and results of this season stand (to take them out of
    their remaining fixtures too, withdraw them from their fixtures as well).

    Locks the league row. Refused (``NotInLeague``) when the member does not play in the
    current season or is already withdrawn; a reason is kept."""
    require_organiser(organiser)
    reason = _clean_reason(reason)
    with transaction.atomic():
        league = _locked_league(league_id)
        season = _current(league)
        playing = season.divisions.filter(tournament__players__pk=member_id).exists()
        if not playing:
            raise NotInLeague(NotInLeague.NOT_PLAYING)
        if season.leavers.filter(member_id=member_id).exists():
            raise NotInLeague(NotInLeague.ALREADY_LEAVING)
        return LeagueLeaver.objects.create(
            season=season,
            member_id=member_id,
            withdrawn_by=organiser,
            withdrawn_at=now or _now(),
            reason=reason,
        )
