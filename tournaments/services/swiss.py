"""A Swiss tournament: created with its players and settings, then paired one round at a
time from the standings (docs/RULES.md section 3, "Swiss"; the pairing is the pure
:mod:`tournaments.swiss`). Organisers only; one transaction each; refusals are typed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import transaction

from accounts.models import Member
from common.errors import ServiceError
from matches.models import Match, Tournament
from matches.services.common import now as _now
from matches.services.common import require_organiser
from matches.services.creation import NAME_LENGTH, create_match
from matches.services.errors import InvalidFixture
from ratings.selectors import current_ratings
from tournaments import swiss as pairing
from tournaments.models import Swiss, SwissBye, SwissRound, turn_time_of
from tournaments.services.fixtures import (
    announce_round,
    check_players,
    check_rules,
    check_table,
    clean_name,
    seat_players,
)
from tournaments.standings import standings
from tournaments.swiss_tables import pair_tables

#: The most rounds a Swiss may have.
MAX_ROUNDS = 50
#: What a bye may score: a win, a draw or a loss.
BYE_POINTS = (Decimal(1), Decimal("0.5"), Decimal(0))
MAX_BYE_SPREAD = 500

TOO_FEW_PLAYERS = "A Swiss needs at least two players."
ENTERED_TWICE = "Each player can be entered only once."
ROUNDS_OUT_OF_RANGE = f"A Swiss has from 1 to {MAX_ROUNDS} rounds."
NEGATIVE_INTERVAL = "The interval between rounds cannot be negative."
NO_SUCH_BYE_SCORE = "A bye scores a win, a draw or a loss."
BYE_SPREAD_OUT_OF_RANGE = f"A bye's spread is at most {MAX_BYE_SPREAD} either way."
NO_PRIZE_PLACES = "At least one place wins a prize."
TOO_FEW_FOR_TABLES = "A Swiss of tables needs at least three players."
NO_SUCH_TABLE_POINTS = "A table game scores by place or by first place only."


class NotASwiss(ServiceError):
    """There is no Swiss tournament with that id."""

    code = "not_swiss"
    status = 404
    MESSAGE = "There is no such Swiss tournament."


class SwissRoundUnfinished(ServiceError):
    """The next round was asked for while games of the earlier rounds are unfinished."""

    code = "swiss_round_unfinished"
    status = 409
    MESSAGE = (
        "Some games of the earlier rounds are not finished. Wait for them, or pair the next "
        "round anyway: they will be played on and count when they finish."
    )


class SwissComplete(ServiceError):
    """Every round of the Swiss has been paired."""

    code = "swiss_complete"
    status = 409
    MESSAGE = "Every round of this Swiss has been paired."


class SwissTooSmall(ServiceError):
    """Fewer than two club members are left to pair."""

    code = "swiss_too_small"
    status = 409
    MESSAGE = "Fewer than two of this Swiss's players are still club members."


def create_swiss(
    *,
    organiser: Member,
    name: str,
    players: Sequence[Member],
    rounds: int,
    first_kickoff: datetime,
    interval: timedelta,
    ruleset: str = "word-duel",
    lexicon: str = "enable",
    visibility_: str = Match.Visibility.PUBLIC,
    no_show_window: timedelta | None = None,
    rated: bool = False,
    bye_points: Decimal = Decimal(1),
    bye_spread: int = 50,
    prize_places: int = 3,
    gibsonization: bool = True,
    pair_automatically: bool = False,
    seat_count: int = 2,
    challenge_rule: str = "void",
    challenge_window: timedelta | None = None,
    finish_line: int | None = None,
    table_points: str = Swiss.TablePoints.PLACES,
) -> Tournament:
    """A Swiss tournament with its players and settings, and no fixtures yet: each round
    is paired by :func:`pair_next_round`. Round N kicks off at ``first_kickoff`` plus
    N - 1 ``interval``\\ s, or when it is paired if that is later. A bye scores
    ``bye_points`` (a win, a draw or a loss) and ``bye_spread``; ``prize_places`` is how
    many places win a prize, for Gibsonization. ``rated`` holds for every fixture.
    ``pair_automatically``: round 1 is paired now, and each later round as soon as the one
    before is complete (:func:`pair_completed_round`); the organiser may still pair early.

    Every fixture is played at the table given here: ``challenge_rule``,
    ``challenge_window``, ``finish_line`` (``create_match``'s). ``seat_count`` 3 or 4 (a
    ruleset that seats them) makes a Swiss of tables: each round is seated at tables of at
    most that many (:mod:`tournaments.swiss_tables`), with no bye and no Gibson, and a table
    game scores ``table_points`` in the standings. Refusals: ``InvalidFixture``."""
    require_organiser(organiser)
    name = clean_name(name, what="tournament")
    unique = list(dict.fromkeys(players))
    if len(unique) != len(players):
        raise InvalidFixture(ENTERED_TWICE)
    if len(unique) < 2:
        raise InvalidFixture(TOO_FEW_PLAYERS)
    check_players(unique)
    if not 1 <= rounds <= MAX_ROUNDS:
        raise InvalidFixture(ROUNDS_OUT_OF_RANGE)
    if interval < timedelta(0):
        raise InvalidFixture(NEGATIVE_INTERVAL)
    if Decimal(bye_points) not in BYE_POINTS:
        raise InvalidFixture(NO_SUCH_BYE_SCORE)
    if abs(bye_spread) > MAX_BYE_SPREAD:
        raise InvalidFixture(BYE_SPREAD_OUT_OF_RANGE)
    if prize_places < 1:
        raise InvalidFixture(NO_PRIZE_PLACES)
    check_rules(ruleset, lexicon)
    check_table(
        ruleset,
        seat_count=seat_count,
        challenge_rule=challenge_rule,
        challenge_window=challenge_window,
        finish_line=finish_line,
        tables=True,
    )
    if seat_count > 2 and len(unique) < 3:
        raise InvalidFixture(TOO_FEW_FOR_TABLES)
    if table_points not in Swiss.TablePoints.values:
        raise InvalidFixture(NO_SUCH_TABLE_POINTS)
    if no_show_window is not None and no_show_window <= timedelta(0):
        raise InvalidFixture("The no-show window must be positive.")
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name, organiser=organiser, rated=rated, visibility=visibility_
        )
        tournament.players.set(unique)
        Swiss.objects.create(
            tournament=tournament,
            rounds=rounds,
            first_kickoff=first_kickoff,
            interval=interval,
            ruleset=ruleset,
            lexicon=lexicon,
            visibility=visibility_,
            no_show_window=no_show_window,
            bye_points=Decimal(bye_points),
            bye_spread=bye_spread,
            prize_places=prize_places,
            gibsonization=gibsonization and seat_count == 2,
            pair_automatically=pair_automatically,
            seat_count=seat_count,
            challenge_rule=challenge_rule,
            challenge_window=challenge_window,
            finish_line=finish_line,
            table_points=table_points,
        )
        if pair_automatically:
            swiss = _locked_swiss(tournament.pk)
            assert swiss is not None
            _pair(swiss, paired_by=None, force=False, now=_now())
    return tournament


@dataclass(frozen=True)
class PairedRound:
    """What :func:`pair_next_round` did: the round's number, its fixtures, its bye (a
    member id), its Gibson, and how many earlier games were left unfinished (forced)."""

    number: int
    matches: list[Match]
    bye: int | None
    gibson: int | None
    unfinished: int


_UNFINISHED = (Match.Status.SCHEDULED, Match.Status.LIVE)


def _entrants(swiss: Swiss, players: list[Member], *, now: datetime) -> list[pairing.Entrant]:
    """Each player as the pairing sees them: the standings' points and spread (byes
    counted), their rating, and from the fixtures so far (a cancelled one aside) whom they
    met, how often they went First, and their games still unfinished."""
    tournament = swiss.tournament
    table = {line.member_id: line for line in standings(tournament)}
    ids = [player.pk for player in players]
    ratings = current_ratings(ids, swiss.ruleset, now=now)
    met: dict[int, list[int]] = {pk: [] for pk in ids}
    firsts: Counter[int] = Counter()
    games: Counter[int] = Counter()
    pending: Counter[int] = Counter()
    fixtures = tournament.matches.exclude(status=Match.Status.ABANDONED).prefetch_related("seats")
    for match in fixtures:
        seats = sorted(match.seats.all(), key=lambda seat: seat.position)
        members = [seat.member_id for seat in seats]
        for seat in seats:
            if seat.member_id not in met:
                continue
            games[seat.member_id] += 1
            firsts[seat.member_id] += seat.position == 0
            pending[seat.member_id] += match.status in _UNFINISHED
            met[seat.member_id] += [m for m in members if m is not None and m != seat.member_id]
    byes = Counter(SwissBye.objects.filter(swiss=swiss).values_list("member_id", flat=True))
    return [
        pairing.Entrant(
            id=pk,
            points=table[pk].points if pk in table else 0.0,
            spread=table[pk].spread if pk in table else 0,
            rating=ratings[pk].rating,
            firsts=firsts[pk],
            games=games[pk],
            opponents=tuple(met[pk]),
            byes=byes[pk],
            pending=pending[pk],
        )
        for pk in ids
    ]


def pair_next_round(
    *, organiser: Member, tournament_id: int, force: bool = False, now: datetime | None = None
) -> PairedRound:
    """Pair the Swiss's next round from the standings and schedule its fixtures.

    Locks the Swiss row, so two organisers cannot pair the same round. Refused when every
    round is paired (``SwissComplete``), and while a game of an earlier round is unfinished
    (``SwissRoundUnfinished``) unless ``force``: then those games are played on as they
    are and count when they finish; this round pairs their players as having met, on the
    points they have now, and counts each such game as one they may still win when it
    decides whether the leader is Gibsonized. Players no longer club members are not
    paired. The bye is recorded with the tournament's bye score; each fixture is made by
    ``create_match``, seated, announced (``FixtureScheduled``) and opened at once if its
    kick-off has come; the round is announced (``RoundPaired``) once all are seated."""
    require_organiser(organiser)
    now = now or _now()
    with transaction.atomic():
        swiss = _locked_swiss(tournament_id)
        if swiss is None:
            raise NotASwiss(NotASwiss.MESSAGE)
        return _pair(swiss, paired_by=organiser, force=force, now=now)


def pair_completed_round(*, tournament_id: int, now: datetime | None = None) -> PairedRound | None:
    """Pair the next round of a Swiss that pairs automatically, if the rounds paired so
    far are complete and a round is left; None when there is nothing to do. Safe to call
    again and from two places at once: it locks the Swiss row, and once a round is paired
    its own unfinished games make every later call a no-op until it is complete."""
    now = now or _now()
    with transaction.atomic():
        swiss = _locked_swiss(tournament_id)
        if swiss is None or not swiss.pair_automatically:
            return None
        if swiss.round_set.count() >= swiss.rounds:
            return None
        if swiss.tournament.matches.filter(status__in=_UNFINISHED).exists():
            return None
        try:
            return _pair(swiss, paired_by=None, force=False, now=now)
        except SwissTooSmall:
            return None


def _locked_swiss(tournament_id: int) -> Swiss | None:
    return (
        Swiss.objects.select_for_update()
        .select_related("tournament")
        .filter(tournament_id=tournament_id)
        .first()
    )


def _pair(swiss: Swiss, *, paired_by: Member | None, force: bool, now: datetime) -> PairedRound:
    """Pair and schedule the next round of ``swiss`` (its row locked by the caller);
    ``paired_by`` None when the round is paired automatically."""
    tournament = swiss.tournament
    number = swiss.round_set.count() + 1
    if number > swiss.rounds:
        raise SwissComplete(SwissComplete.MESSAGE)
    unfinished = tournament.matches.filter(status__in=_UNFINISHED).count()
    if unfinished and not force:
        raise SwissRoundUnfinished(SwissRoundUnfinished.MESSAGE)
    players = [p for p in tournament.players.order_by("pk") if p.is_club_member]
    if len(players) < 2:
        raise SwissTooSmall(SwissTooSmall.MESSAGE)
    entrants = _entrants(swiss, players, now=now)
    kickoff = max(swiss.first_kickoff + swiss.interval * (number - 1), now)
    by_id = {player.pk: player for player in players}
    if swiss.seat_count > 2:
        seated = pair_tables(entrants, seat_count=swiss.seat_count)
        matches = [
            _schedule(swiss, number, kickoff, [by_id[pk] for pk in table], now=now)
            for table in seated.tables
        ]
        return _record_round(swiss, number, matches, None, None, paired_by, unfinished, now)
    paired = pairing.pair_round(
        entrants,
        rounds_left=swiss.rounds - number + 1,
        prize_places=swiss.prize_places,
        gibsonization=swiss.gibsonization,
    )
    matches = [
        _schedule(swiss, number, kickoff, [by_id[first], by_id[second]], now=now)
        for first, second in paired.pairs
    ]
    if paired.bye is not None:
        SwissBye.objects.create(
            swiss=swiss,
            round_number=number,
            member=by_id[paired.bye],
            points=swiss.bye_points,
            spread=swiss.bye_spread,
        )
    gibson = by_id[paired.gibson] if paired.gibson is not None else None
    return _record_round(swiss, number, matches, paired.bye, gibson, paired_by, unfinished, now)


def _record_round(
    swiss: Swiss,
    number: int,
    matches: list[Match],
    bye: int | None,
    gibson: Member | None,
    paired_by: Member | None,
    unfinished: int,
    now: datetime,
) -> PairedRound:
    """Record round ``number`` as paired and announce it (``RoundPaired``)."""
    SwissRound.objects.create(
        swiss=swiss,
        number=number,
        paired_at=now,
        paired_by=paired_by,
        gibson=gibson,
        forced=bool(unfinished),
        unfinished=unfinished,
    )
    announce_round(swiss.tournament.id, number, matches)
    return PairedRound(number, matches, bye, gibson.pk if gibson else None, unfinished)


def _schedule(
    swiss: Swiss, number: int, kickoff: datetime, players: Sequence[Member], *, now: datetime
) -> Match:
    """One fixture of round ``number`` at a table of ``players`` (in seat order), every seat
    filled, played at the Swiss's table rules."""
    tournament = swiss.tournament
    label = f"{tournament.name} · Round {number}"
    match = create_match(
        name=label[:NAME_LENGTH],
        organiser=tournament.organiser,
        kickoff_at=kickoff,
        ruleset=swiss.ruleset,
        lexicon=swiss.lexicon,
        visibility_=swiss.visibility,
        no_show_window=swiss.no_show_window,
        tournament=tournament,
        round_number=number,
        rated=tournament.rated,
        turn_time=turn_time_of(tournament),
        seat_count=len(players),
        challenge_rule=swiss.challenge_rule,
        challenge_window=swiss.challenge_window,
        finish_line=swiss.finish_line,
    )
    seat_players(match, players, now=now)
    return match
