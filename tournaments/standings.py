"""Tournament standings: the one place the table's order is decided (what one game counts for
is :mod:`matches.game_counts`).

docs/RULES.md section 12 is this module and that one in words. The table's order:

1. *points*: a win 1, a draw ½, a loss 0;
2. *spread*: points for minus points against, counted only as :func:`game_counts` says;
3. *head-to-head* among exactly the players still tied: their points in the games between
   them, then their spread in those games; when that splits the tied group but leaves a
   smaller group tied, head-to-head is applied again among exactly that smaller group;
4. the last resort, so the order never depends on the database's whim: the player who
   joined the club first (the lower member number; a member number is never reused).

A Swiss bye (tournaments/models.py) counts as a game with the tournament's bye score: the
club's usual is a win with +50 spread; it plays no part in head-to-head.

Which games count, and how (kept in step with the ratings, docs/RATINGS.md): a finished
match with a result. Played out or six scoreless turns: the final scores make the spread.
A resignation: the scores as they stood, never in the resigner's favour. A forfeit, a
no-show or an organiser's adjudication: the result counts, the spread nothing (its scores were
not settled on the board). A cancelled, voided or abandoned match has no result and counts
for nobody. Nothing here writes; nothing here reads a hidden field.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING, Literal

from matches.game_counts import GameCount, counts, game_counts
from matches.models import Match, Tournament
from matches.schemas import StandingRow, TournamentStandings
from tournaments.models import SwissBye

if TYPE_CHECKING:
    from accounts.models import Member

#: What placed a player above the next one when points and spread were equal.
Separation = Literal["", "head-to-head", "member number"]

TIE_BREAK_ORDER = (
    "points (a win 1, a draw ½)",
    "spread",
    "head-to-head points among the tied players",
    "head-to-head spread among the tied players",
    "the earlier member (lower member number)",
)


@dataclass
class Standing:
    """One player's line of a tournament table."""

    member_id: int
    name: str
    username: str = ""
    #: Whether the player has a page to link to (an approved member).
    has_page: bool = False
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    spread: int = 0
    #: Byes had (a Swiss): each counts as a game with the tournament's bye score.
    byes: int = 0
    #: Set when head-to-head or the last resort placed this player above the next one.
    separated_by: Separation = ""

    @property
    def points(self) -> float:
        """Wins, with a draw counting half: the first sort key."""
        return self.won + self.drawn / 2

    def add(self, game: GameCount) -> None:
        self.played += 1
        self.won += game.points == 1.0
        self.drawn += game.points == 0.5
        self.lost += game.points == 0.0
        self.spread += game.spread

    def add_bye(self, *, points: float, spread: int) -> None:
        """A Swiss bye: a game won, drawn or lost (its score's points) with its spread."""
        self.played += 1
        self.byes += 1
        self.won += points == 1.0
        self.drawn += points == 0.5
        self.lost += points == 0.0
        self.spread += spread


def _head_to_head(
    group: list[Standing], games: Sequence[GameCount]
) -> dict[int, tuple[float, int]]:
    """Each tied player's points and spread in the games between exactly ``group``."""
    ids = {line.member_id for line in group}
    tally: dict[int, tuple[float, int]] = dict.fromkeys(ids, (0.0, 0))
    for game in games:
        if game.member_id in ids and game.opponent_id in ids:
            points, spread = tally[game.member_id]
            tally[game.member_id] = (points + game.points, spread + game.spread)
    return tally


def _break_tie(group: list[Standing], games: Sequence[GameCount]) -> list[Standing]:
    """``group`` (equal on points and spread) in order: head-to-head, then the last resort."""
    if len(group) == 1:
        return group
    tally = _head_to_head(group, games)

    def key(line: Standing) -> tuple[float, int]:
        points, spread = tally[line.member_id]
        return (-points, -spread)

    ordered = sorted(group, key=key)
    parts = [list(part) for _, part in groupby(ordered, key=key)]
    if len(parts) == 1:  # head-to-head cannot tell them apart: the last resort
        result = sorted(group, key=lambda line: line.member_id)
        for line in result[:-1]:
            line.separated_by = "member number"
        return result
    placed = [_break_tie(part, games) for part in parts]
    for part in placed[:-1]:
        part[-1].separated_by = "head-to-head"  # from the first of the next part
    return [line for part in placed for line in part]


def order(lines: Iterable[Standing], games: Sequence[GameCount]) -> list[Standing]:
    """``lines`` in the table's order (the module's docstring); ``games`` are every counted
    game of the tournament, for head-to-head."""

    def key(line: Standing) -> tuple[float, int]:
        return (-line.points, -line.spread)

    ordered = sorted(lines, key=key)
    result: list[Standing] = []
    for _, group in groupby(ordered, key=key):
        result += _break_tie(list(group), games)
    return result


def standings(tournament: Tournament) -> list[Standing]:
    """The tournament's table: every player entered (and anyone else seated in one of its
    fixtures), in the documented order."""
    table: dict[int, Standing] = {}

    def line_for(member: Member) -> Standing:
        if member.pk not in table:
            table[member.pk] = Standing(
                member_id=member.pk,
                name=str(member),
                username=member.username,
                has_page=member.is_club_member,
            )
        return table[member.pk]

    for player in tournament.players.all():
        line_for(player)
    games: list[GameCount] = []
    matches = tournament.matches.filter(status=Match.Status.FINISHED).prefetch_related(
        "seats__member"
    )
    for match in matches:
        seats = list(match.seats.all())
        members = {seat.member_id: seat.member for seat in seats if seat.member is not None}
        for game in game_counts(match, seats):
            line_for(members[game.member_id]).add(game)
            games.append(game)
    for bye in SwissBye.objects.filter(swiss__tournament=tournament).select_related("member"):
        line_for(bye.member).add_bye(points=float(bye.points), spread=bye.spread)
    return order(table.values(), games)


def api_standings(tournament: Tournament) -> TournamentStandings:
    """The table as the API's shape (:class:`matches.schemas.TournamentStandings`)."""
    return TournamentStandings(
        tournament_id=tournament.id,
        name=tournament.name,
        tie_break_order=list(TIE_BREAK_ORDER),
        standings=[
            StandingRow(
                rank=rank,
                member_id=line.member_id,
                username=line.username,
                name=line.name,
                played=line.played,
                won=line.won,
                drawn=line.drawn,
                lost=line.lost,
                points=line.points,
                spread=line.spread,
                byes=line.byes,
                separated_by=line.separated_by,
            )
            for rank, line in enumerate(standings(tournament), start=1)
        ],
    )


def standings_by_name(tournament: Tournament) -> dict[str, Standing]:
    """Standings keyed by player name; handy for tests and exports."""
    return {line.name: line for line in standings(tournament)}


__all__ = [
    "TIE_BREAK_ORDER",
    "GameCount",
    "Standing",
    "api_standings",
    "counts",
    "game_counts",
    "order",
    "standings",
    "standings_by_name",
]
