"""Scheduling: one fixture, or a whole round robin. Organisers only."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from accounts.models import Member
from common.events import FixtureScheduled, PairedMatch, RoundPaired, emit
from common.text import NOT_ONE_LINE, is_one_line
from engine import CHALLENGE_RULES, RULESETS, UnknownRuleset, get_ruleset
from lexicon.lexicon import get_lexicon
from matches.models import Match, Seat, Tournament
from matches.news import publish_on_commit
from matches.services.common import (
    locked_seats,
    require_organiser,
    seat_facts,
    seated_members,
)
from matches.services.common import now as _now
from matches.services.creation import NAME_LENGTH, create_match
from matches.services.errors import InvalidFixture
from matches.services.lifecycle import after_seating
from matches.visibility.access import is_club_member
from ratings.selectors import seeded_by_rating


def clean_name(name: str, *, what: str) -> str:
    name = name.strip()
    if not name:
        raise InvalidFixture(f"A {what} needs a name.")
    if not is_one_line(name):
        raise InvalidFixture(NOT_ONE_LINE)
    return name[:NAME_LENGTH]


NOT_A_MEMBER = "Only approved club members can play in a fixture."


def check_players(players: Sequence[Member | None]) -> None:
    """Pairings take approved club members only (not a pending or removed account)."""
    if any(p is not None and not is_club_member(p) for p in players):
        raise InvalidFixture(NOT_A_MEMBER)


#: The seed's variants a club may schedule beside the rulesets: 9-tile racks at a classic
#: table, and Reword (a duel with swaps and steals from the board, never with challenges).
#: Word Skill needs a match kind of its own, not built yet: refused.
SCHEDULED_VARIANTS = ("classic-nine", "reword")


def check_rules(ruleset: str, lexicon: str) -> None:
    try:
        get_ruleset(ruleset)
    except UnknownRuleset as error:
        raise InvalidFixture(str(error)) from None
    if ruleset not in RULESETS and ruleset not in SCHEDULED_VARIANTS:
        raise InvalidFixture(
            f"The {ruleset} variant is not played in turns: a Word Skill tournament plays it in "
            "rounds."
        )
    try:
        get_lexicon(lexicon)
    except LookupError:
        raise InvalidFixture(f"There is no word list called {lexicon!r}.") from None


TABLES_ONLY_IN_A_SWISS = (
    "Tables of 3 or 4 are paired only in a Swiss: a round robin, a knockout or a league "
    "seats two players a game."
)
NOT_A_WINDOW = "The challenge window must be positive."
NOT_A_FINISH_LINE = "A finish line is a positive score."


def check_table(
    ruleset: str,
    *,
    seat_count: int,
    challenge_rule: str,
    challenge_window: timedelta | None,
    finish_line: int | None,
    tables: bool = False,
) -> None:
    """The table a format's fixtures are played at, checked when the format is created (as
    ``create_match`` checks each fixture): the seats the ruleset allows (more than two only
    where the format pairs ``tables``), a known challenge rule, a positive window and
    finish line. Call it after :func:`check_rules` (the ruleset exists)."""
    rules = get_ruleset(ruleset)
    if seat_count != 2 and not tables:
        raise InvalidFixture(TABLES_ONLY_IN_A_SWISS)
    if seat_count not in rules.seat_counts:
        raise InvalidFixture(f"The {rules.name} ruleset does not seat {seat_count} players.")
    if challenge_rule not in CHALLENGE_RULES:
        raise InvalidFixture(f"No challenge rule is called {challenge_rule!r}.")
    if rules.swap_and_steal and challenge_rule != "void":
        raise InvalidFixture(
            f"The {rules.name} ruleset checks every word as it is played: no challenges."
        )
    if challenge_window is not None and challenge_window <= timedelta(0):
        raise InvalidFixture(NOT_A_WINDOW)
    if finish_line is not None and finish_line < 1:
        raise InvalidFixture(NOT_A_FINISH_LINE)


def create_fixture(
    *,
    organiser: Member,
    name: str,
    kickoff_at: datetime | None = None,
    first: Member | None = None,
    second: Member | None = None,
    ruleset: str = "word-duel",
    lexicon: str = "enable",
    visibility_: str = Match.Visibility.PUBLIC,
    no_show_window: timedelta | None = None,
    rated: bool = False,
    table: Sequence[Member | None] | None = None,
    challenge_rule: str = "void",
    challenge_window: timedelta | None = None,
    finish_line: int | None = None,
) -> Match:
    """Schedule a fixture, seating none, one or every player. Creates the match row (and
    locks its seats while it seats them); a fixture with every player and no kick-off, or a
    kick-off already past, opens at once. ``rated`` is decided here, once: a friendly or a
    practice match is unrated unless the organiser says otherwise.

    A duel seats ``first`` and ``second``; a table of 2-4 (``classic``) is ``table``, one
    entry per seat in seat order (None leaves it empty), instead of them, with its
    ``challenge_rule``, ``challenge_window`` and ``finish_line``. A ruleset that does not
    seat that many (``word-duel`` is a duel) is refused with ``InvalidFixture``."""
    require_organiser(organiser)
    name = clean_name(name, what="fixture")
    if table is not None and (first is not None or second is not None):
        raise InvalidFixture("Seat a table's players as the table, not as First and Second.")
    players = list(table) if table is not None else [first, second]
    seated = [member for member in players if member is not None]
    if len({member.pk for member in seated}) != len(seated):
        if len(players) == 2:
            raise InvalidFixture("A member cannot sit on both sides of a fixture.")
        raise InvalidFixture("A member cannot sit in two seats of a fixture.")
    check_players(players)
    check_rules(ruleset, lexicon)
    with transaction.atomic():
        match = create_match(
            name=name,
            organiser=organiser,
            kickoff_at=kickoff_at,
            ruleset=ruleset,
            lexicon=lexicon,
            visibility_=visibility_,
            no_show_window=no_show_window,
            rated=rated,
            seat_count=len(players),
            challenge_rule=challenge_rule,
            challenge_window=challenge_window,
            finish_line=finish_line,
        )
        now = _now()
        seat_players(match, players, now=now)
    return match


def seat_players(match: Match, players: Sequence[Member | None], *, now: datetime) -> None:
    """Seat a new fixture's ``players`` (in seat order; None leaves a seat empty),
    tell them (``FixtureScheduled``) and open the match if its kick-off has come. Locks its
    seats; call it in the transaction that created the match."""
    seats = locked_seats(match)
    for seat, member in zip(seats, players, strict=True):
        if member is not None:
            seat.member = member
            seat.seated_at = now
            seat.save(update_fields=["member", "seated_at"])
    emit(FixtureScheduled(match_id=match.id, member_ids=seated_members(seats)))
    publish_on_commit(after_seating(match, seats, now=now))


def announce_round(tournament_id: int, number: int, matches: Sequence[Match]) -> None:
    """Tell who plays in round ``number``'s new ``matches`` (``RoundPaired``): call it in
    the transaction that seated them, after :func:`seat_players` announced each fixture."""
    paired = tuple(
        PairedMatch(
            match_id=match.id,
            seats=seat_facts(list(match.seats.select_related("member").order_by("position"))),
        )
        for match in matches
    )
    emit(RoundPaired(tournament_id=tournament_id, round_number=number, matches=paired))


def round_robin_pairings(
    players: Sequence[Any], *, double: bool = False
) -> list[list[tuple[Any, Any]]]:
    """Rounds of (first, second) pairs by the circle method; a bye where the count is odd.

    Every pair meets once (twice with seats swapped when ``double``); seats alternate so each
    player sits First about as often as Second.
    """
    entrants: list[Any] = list(players)
    if len(entrants) % 2:
        entrants.append(None)  # the bye
    n = len(entrants)
    rounds: list[list[tuple[Any, Any]]] = []
    for r in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = entrants[i], entrants[n - 1 - i]
            if a is None or b is None:
                continue
            pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(pairs)
        entrants = [entrants[0], entrants[-1], *entrants[1:-1]]
    if double:
        rounds += [[(b, a) for a, b in pairs] for pairs in rounds]
    return rounds


def create_round_robin(
    *,
    organiser: Member,
    name: str,
    players: Sequence[Member],
    first_kickoff: datetime,
    interval: timedelta,
    double: bool = False,
    ruleset: str = "word-duel",
    lexicon: str = "enable",
    visibility_: str = Match.Visibility.PUBLIC,
    no_show_window: timedelta | None = None,
    rated: bool = False,
    seed_by_rating: bool = False,
    seat_count: int = 2,
    challenge_rule: str = "void",
    challenge_window: timedelta | None = None,
    finish_line: int | None = None,
) -> Tournament:
    """Create a tournament and all its fixtures, both seats filled, one round per interval.

    ``rated`` is decided here for the tournament and every fixture in it. With
    ``seed_by_rating`` the players are ordered by their rating in the ruleset (highest
    first) before pairing, so top seeds meet the bottom ones first and each other last.
    Every fixture is a duel at ``challenge_rule``, ``challenge_window`` and ``finish_line``;
    a ``seat_count`` other than 2 is refused (tables are a Swiss's).

    Writes only new rows (nothing another request could hold), in one transaction."""
    require_organiser(organiser)
    name = clean_name(name, what="tournament")
    unique_players = list(dict.fromkeys(players))
    if len(unique_players) != len(players):
        raise InvalidFixture("Each player can be entered only once.")
    if len(unique_players) < 2:
        raise InvalidFixture("A round robin needs at least two players.")
    check_players(unique_players)
    if interval < timedelta(0):
        raise InvalidFixture("The interval between rounds cannot be negative.")
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
            unique_players = seeded_by_rating(unique_players, ruleset=ruleset, at=_now())
        tournament = Tournament.objects.create(
            name=name, organiser=organiser, rated=rated, visibility=visibility_
        )
        tournament.players.set(unique_players)
        for round_index, pairs in enumerate(round_robin_pairings(unique_players, double=double)):
            kickoff = first_kickoff + interval * round_index
            for first, second in pairs:
                # The fixture's own label: titles add the players seated (visibility.titles).
                fixture_name = f"{tournament.name} · Round {round_index + 1}"
                match = create_match(
                    name=fixture_name[:NAME_LENGTH],
                    organiser=organiser,
                    kickoff_at=kickoff,
                    ruleset=ruleset,
                    lexicon=lexicon,
                    visibility_=visibility_,
                    no_show_window=no_show_window,
                    tournament=tournament,
                    round_number=round_index + 1,
                    rated=rated,
                    challenge_rule=challenge_rule,
                    challenge_window=challenge_window,
                    finish_line=finish_line,
                )
                seated_at = _now()
                Seat.objects.filter(match=match, position=0).update(
                    member=first, seated_at=seated_at
                )
                Seat.objects.filter(match=match, position=1).update(
                    member=second, seated_at=seated_at
                )
                emit(FixtureScheduled(match_id=match.id, member_ids=(first.pk, second.pk)))
    return tournament
