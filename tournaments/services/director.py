"""A director's tools for a tournament in progress (docs/RULES.md section 3, "A director's
tools"): the order of its tie-breaks, the time each move of its fixtures may take, a late
entrant in a round robin, a player withdrawn from one by the stated rule, and entries
imported from a CSV file of usernames.

Each is one function, organisers only, in one transaction that locks the tournament row
first (so two directors' changes to one tournament take turns) and each fixture it changes
under that fixture's own lock, as :mod:`tournaments.services.organising` does. Refusals are
typed (below, and ``InvalidFixture``); a refused change changes nothing.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from accounts.models import Member
from common.errors import ServiceError
from matches.models import Match, OrganiserAction, Seat, Tournament
from matches.services.common import now as _now
from matches.services.common import require_organiser
from matches.services.creation import NAME_LENGTH, create_match
from matches.services.errors import InvalidFixture, OwnMatch
from matches.services.lifecycle import finish_match
from matches.visibility.access import is_club_member
from tournaments.models import Knockout, Swiss, TournamentOptions, Withdrawal, turn_time_of
from tournaments.services.fixtures import NOT_A_MEMBER, seat_players
from tournaments.services.organising import _locked_for_change, _reason, _record
from tournaments.standings import TIE_BREAKS

NO_SUCH_TOURNAMENT = "There is no such tournament."
UNKNOWN_TIE_BREAK = "A tie-break is one of spread, head-to-head, opponents' scores or Buchholz."
TIE_BREAK_TWICE = "Each tie-break can be chosen only once."
MIN_TURN_TIME = timedelta(hours=1)
MAX_TURN_TIME = timedelta(days=30)
TURN_TIME_OUT_OF_RANGE = "A move's time is from 1 hour to 30 days."
NOT_A_ROUND_ROBIN = "Late entries and withdrawals are for round robins."
TOURNAMENT_OVER = "This tournament is over: every fixture is finished."
ALREADY_ENTERED = "That member is already entered in this tournament."
WAS_WITHDRAWN = "That member was withdrawn from this tournament and cannot enter it again."
NOT_ENTERED = "That member is not entered in this tournament."
ALREADY_WITHDRAWN = "That member has already been withdrawn from this tournament."
NOBODY_TO_PLAY = "There is nobody left in this tournament for a late entrant to play."
LATE_KICKOFF_PAST = "A late entrant's first fixture must kick off in the future."
NEGATIVE_INTERVAL = "The interval between a late entrant's fixtures cannot be negative."
#: The most rows an entries file may have.
MAX_ENTRY_ROWS = 200
NO_ENTRIES = "The file names nobody: one username a row."
TOO_MANY_ENTRIES = f"An entries file has at most {MAX_ENTRY_ROWS} rows."
ENTRIES_REFUSED = "No entry was made: correct the rows below and import the file again."


class TournamentMissing(ServiceError):
    """There is no tournament with that id."""

    code = "not_found"
    status = 404


class OptionsRefused(ServiceError):
    """A tie-break order or a move time that cannot be set (unknown, twice, out of range)."""

    code = "options_refused"


class EntryRefused(ServiceError):
    """A late entry or a withdrawal that the tournament or the member's state does not
    allow (not a round robin, over, already entered or withdrawn, not entered)."""

    code = "entry_refused"
    status = 409


class EntriesRefused(ServiceError):
    """A file with at least one bad row: nothing was imported. ``rows`` holds each bad row's
    number (the header is row 1) and what is wrong with it."""

    code = "entries_refused"

    def __init__(self, message: str, *, rows: Sequence[tuple[int, str]] = ()) -> None:
        super().__init__(message)
        self.rows = list(rows)


def _locked_tournament(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentMissing(NO_SUCH_TOURNAMENT)
    return tournament


def _locked_options(tournament: Tournament) -> TournamentOptions:
    TournamentOptions.objects.get_or_create(tournament=tournament)
    return TournamentOptions.objects.select_for_update().get(tournament=tournament)


# ---------------------------------------------------------------- tie-breaks and move time


def tie_breaks_set(
    *, organiser: Any, tournament_id: int, tie_breaks: Sequence[str]
) -> TournamentOptions:
    """Choose the tournament's tie-breaks, in order, from :data:`TIE_BREAKS` (after points;
    the earlier member is always the last resort). An empty choice leaves points and the
    last resort. Locks the tournament row and its options."""
    require_organiser(organiser)
    chosen = list(tie_breaks)
    if any(key not in TIE_BREAKS for key in chosen):
        raise OptionsRefused(UNKNOWN_TIE_BREAK)
    if len(set(chosen)) != len(chosen):
        raise OptionsRefused(TIE_BREAK_TWICE)
    with transaction.atomic():
        options = _locked_options(_locked_tournament(tournament_id))
        options.tie_breaks = chosen
        options.save(update_fields=["tie_breaks"])
    return options


def turn_time_set(
    *, organiser: Any, tournament_id: int, turn_time: timedelta | None
) -> TournamentOptions:
    """Set the time each move of the tournament's fixtures may take (None: the club's
    usual): its fixtures not over take it (``Match.turn_time``) from their next turn (a turn
    already running keeps its deadline), and fixtures made later (a late entrant's, a Swiss
    round's) are made with it. Locks the tournament row, its options, then those fixtures'
    rows in id order."""
    require_organiser(organiser)
    if turn_time is not None and not MIN_TURN_TIME <= turn_time <= MAX_TURN_TIME:
        raise OptionsRefused(TURN_TIME_OUT_OF_RANGE)
    with transaction.atomic():
        tournament = _locked_tournament(tournament_id)
        options = _locked_options(tournament)
        options.turn_time = turn_time
        options.save(update_fields=["turn_time"])
        ids = list(
            Match.objects.select_for_update()
            .filter(tournament=tournament, status__in=[Match.Status.SCHEDULED, Match.Status.LIVE])
            .order_by("id")
            .values_list("id", flat=True)
        )
        Match.objects.filter(id__in=ids).update(turn_time=turn_time)
    return options


# ---------------------------------------------------------------- late entry


def _paired_as_it_goes(tournament: Tournament) -> bool:
    """A Swiss or a knockout: its rounds are made from its results, so a late entrant or a
    withdrawal has no fixed fixtures to change."""
    return (
        Swiss.objects.filter(tournament=tournament).exists()
        or Knockout.objects.filter(tournament=tournament).exists()
    )


def _round_robin_in_progress(tournament: Tournament) -> list[Match]:
    """The tournament's fixtures, refusing a Swiss, a knockout and a tournament that is
    over."""
    if _paired_as_it_goes(tournament):
        raise EntryRefused(NOT_A_ROUND_ROBIN)
    fixtures = list(tournament.matches.order_by("id"))
    if fixtures and all(match.is_over for match in fixtures):
        raise EntryRefused(TOURNAMENT_OVER)
    return fixtures


def _check_entrant(tournament: Tournament, member: Member | None) -> Member:
    if member is None or not is_club_member(member):
        raise InvalidFixture(NOT_A_MEMBER)
    if Withdrawal.objects.filter(tournament=tournament, member=member).exists():
        raise EntryRefused(WAS_WITHDRAWN)
    if tournament.players.filter(pk=member.pk).exists():
        raise EntryRefused(ALREADY_ENTERED)
    return member


def _add_entrant(
    tournament: Tournament,
    fixtures: list[Match],
    member: Member,
    organiser: Any,
    *,
    first_kickoff: datetime,
    interval: timedelta,
    now: datetime,
) -> list[Match]:
    """Enter ``member`` (checked) and schedule a fixture with each entrant still in, one
    new round each after the tournament's last, kicking off ``interval`` apart."""
    withdrawn = Withdrawal.objects.filter(tournament=tournament).values_list("member_id")
    opponents = list(tournament.players.exclude(pk__in=withdrawn).order_by("id"))
    if not opponents:
        raise EntryRefused(NOBODY_TO_PLAY)
    model = fixtures[0] if fixtures else None
    last_round = max((m.round_number or 0 for m in fixtures), default=0)
    tournament.players.add(member)
    made = []
    for index, opponent in enumerate(opponents):
        round_number = last_round + 1 + index
        match = create_match(
            name=f"{tournament.name} · Round {round_number}"[:NAME_LENGTH],
            organiser=organiser,
            kickoff_at=first_kickoff + interval * index,
            ruleset=model.ruleset if model else "word-duel",
            lexicon=model.lexicon if model else "enable",
            visibility_=model.visibility if model else Match.Visibility.PUBLIC,
            no_show_window=model.no_show_window if model else None,
            tournament=tournament,
            round_number=round_number,
            rated=tournament.rated,
            turn_time=turn_time_of(tournament),
        )
        pair = (member, opponent) if index % 2 == 0 else (opponent, member)
        seat_players(match, pair, now=now)
        made.append(match)
        fixtures.append(match)
    return made


def entrant_add(
    *,
    organiser: Any,
    tournament_id: int,
    member_id: int,
    first_kickoff: datetime,
    interval: timedelta,
    now: datetime | None = None,
) -> list[Match]:
    """Enter a member late in a round robin in progress: they join its players and play
    each entrant still in (not withdrawn) once, in new rounds after its last (one fixture
    a round, so nobody else plays twice in a round), the first kicking off at
    ``first_kickoff`` and each next ``interval`` later, seats alternating. The fixtures
    take the tournament's rules, visibility and rating from its first fixture; each
    player is told of their new fixture (``FixtureScheduled``).

    Locks the tournament row. Refused for a Swiss or a knockout, a tournament that is over,
    a member who is not approved, already entered or was withdrawn, and a kick-off already
    past.
    Returns the new fixtures."""
    require_organiser(organiser)
    now = now or _now()
    if first_kickoff <= now:
        raise InvalidFixture(LATE_KICKOFF_PAST)
    if interval < timedelta(0):
        raise InvalidFixture(NEGATIVE_INTERVAL)
    with transaction.atomic():
        tournament = _locked_tournament(tournament_id)
        fixtures = _round_robin_in_progress(tournament)
        member = _check_entrant(tournament, Member.objects.filter(pk=member_id).first())
        return _add_entrant(
            tournament,
            fixtures,
            member,
            organiser,
            first_kickoff=first_kickoff,
            interval=interval,
            now=now,
        )


def entries_import(
    *,
    organiser: Any,
    tournament_id: int,
    csv_text: str,
    first_kickoff: datetime,
    interval: timedelta,
    now: datetime | None = None,
) -> list[Member]:
    """Enter every member a CSV file names (one username in the first column of each row;
    a header row ``username`` is skipped) as :func:`entrant_add` does, one after another,
    each entrant's fixtures starting at ``first_kickoff``.

    All or nothing: every row is checked first (an unknown or unapproved member, one
    named twice, already entered or withdrawn), and a file with any bad row is refused
    with each bad row's number and error (:class:`EntriesRefused`), entering nobody. Locks
    the tournament row."""
    require_organiser(organiser)
    now = now or _now()
    if first_kickoff <= now:
        raise InvalidFixture(LATE_KICKOFF_PAST)
    if interval < timedelta(0):
        raise InvalidFixture(NEGATIVE_INTERVAL)
    rows = list(enumerate(csv.reader(io.StringIO(csv_text)), start=1))
    rows = [(n, row) for n, row in rows if any(cell.strip() for cell in row)]
    if rows and rows[0][1][0].strip().lower() == "username":
        rows = rows[1:]
    if not rows:
        raise EntriesRefused(NO_ENTRIES)
    if len(rows) > MAX_ENTRY_ROWS:
        raise EntriesRefused(TOO_MANY_ENTRIES)
    with transaction.atomic():
        tournament = _locked_tournament(tournament_id)
        fixtures = _round_robin_in_progress(tournament)
        found: list[Member] = []
        errors: list[tuple[int, str]] = []
        for number, row in rows:
            username = row[0].strip()
            member = Member.objects.filter(username__iexact=username).first()
            try:
                if member is not None and member in found:
                    raise EntryRefused(f"{username} is named twice.")
                found.append(_check_entrant(tournament, member))
            except (EntryRefused, InvalidFixture) as error:
                message = error.message
                if member is None:
                    message = f"There is no member called {username!r}."
                errors.append((number, message))
        if errors:
            raise EntriesRefused(ENTRIES_REFUSED, rows=errors)
        for member in found:
            _add_entrant(
                tournament,
                fixtures,
                member,
                organiser,
                first_kickoff=first_kickoff,
                interval=interval,
                now=now,
            )
    return found


# ---------------------------------------------------------------- withdrawal


@dataclass(frozen=True)
class WithdrawalDone:
    """A withdrawal, and what became of each unplayed fixture (``removed`` or ``forfeited``)."""

    withdrawal: Withdrawal
    settled: list[tuple[int, str]]


def withdrawal_rule(*, played: int, games: int) -> str:
    """The stated rule (docs/RULES.md section 3): a player who had played under half their
    games has their unplayed fixtures removed; otherwise each is forfeited to the opponent."""
    return Withdrawal.Rule.REMOVED if 2 * played < games else Withdrawal.Rule.FORFEITED


def _their_fixtures(tournament: Tournament, member_id: int) -> list[Match]:
    """The member's fixtures in the tournament that are or will be games (not those
    cancelled or voided before)."""
    return list(
        tournament.matches.filter(seats__member_id=member_id)
        .exclude(status=Match.Status.ABANDONED)
        .order_by("id")
    )


def entrant_withdraw(
    *, organiser: Any, tournament_id: int, member_id: int, reason: str, now: datetime | None = None
) -> WithdrawalDone:
    """Withdraw a player from a round robin in progress, by the stated rule
    (:func:`withdrawal_rule`), counting their fixtures that are or will be games:

    - *removed* (they had finished under half of them): each of their fixtures not yet
      finished ends with no result and counts for nobody: one not kicked off is cancelled,
      a live one voided;
    - *forfeited* (half or more): each is a win for the opponent (``withdrawn``): a live
      one as an organiser's withdrawal always is (rated as any result), one not kicked off
      counted in the standings but rated for nobody (it was never played).

    Their finished games stand either way, and they stay in the table. Each fixture is
    settled under its own lock with its audit entry and its players' notices
    (``MatchFinished``). Locks the tournament row first. Refused for a Swiss or a knockout,
    a member not entered or already withdrawn, and an organiser who plays in a fixture it
    would settle.
    """
    require_organiser(organiser)
    reason = _reason(reason)
    with transaction.atomic():
        tournament = _locked_tournament(tournament_id)
        if _paired_as_it_goes(tournament):
            raise EntryRefused(NOT_A_ROUND_ROBIN)
        if Withdrawal.objects.filter(tournament=tournament, member_id=member_id).exists():
            raise EntryRefused(ALREADY_WITHDRAWN)
        member = tournament.players.filter(pk=member_id).first()
        if member is None:
            raise EntryRefused(NOT_ENTERED)
        fixtures = _their_fixtures(tournament, member_id)
        unplayed = [match.id for match in fixtures if not match.is_over]
        if Seat.objects.filter(match_id__in=unplayed, member_id=organiser.pk).exists():
            raise OwnMatch(OwnMatch.RULING)
        played = sum(match.status == Match.Status.FINISHED for match in fixtures)
        rule = withdrawal_rule(played=played, games=len(fixtures))
        settled = []
        for match_id in unplayed:
            outcome = _settle(match_id, member_id, organiser, reason, rule, now=now)
            if outcome is not None:
                settled.append((match_id, outcome))
        withdrawal = Withdrawal.objects.create(
            tournament=tournament,
            member=member,
            by=organiser,
            reason=reason,
            rule=rule,
            played=played,
            games=len(fixtures),
            withdrawn_at=now or _now(),
        )
    return WithdrawalDone(withdrawal, settled)


def _settle(
    match_id: int, member_id: int, organiser: Any, reason: str, rule: str, *, now: datetime | None
) -> str | None:
    """One unplayed fixture of a withdrawn player, under its lock (a deadline that has
    passed applies first: a fixture that ended meanwhile is left as it ended)."""
    with _locked_for_change(match_id, now=now) as change:
        match, seats = change.match, change.seats
        seat = next((s for s in seats if s.member_id == member_id), None)
        if seat is None or match.is_over:
            return None
        scheduled = match.status == Match.Status.SCHEDULED
        if rule == Withdrawal.Rule.REMOVED:
            change.events += finish_match(
                match,
                seats,
                result=Match.Result.NONE,
                reason=Match.EndReason.CANCELLED if scheduled else Match.EndReason.VOIDED,
                now=change.now,
                status=Match.Status.ABANDONED,
            )
        else:
            if scheduled and match.rated:
                match.rated = False  # never played: counted, rated for nobody
            winner = Match.Result.FIRST if seat.position == 1 else Match.Result.SECOND
            change.events += finish_match(
                match, seats, result=winner, reason=Match.EndReason.WITHDRAWN, now=change.now
            )
        _record(
            match,
            organiser,
            OrganiserAction.Kind.WITHDRAW,
            reason,
            change.now,
            position=seat.position,
            member=str(seat.member),
            outcome=str(rule),
        )
        return str(rule)
    return None  # (a refusal is raised by the block; nothing else gets here)
