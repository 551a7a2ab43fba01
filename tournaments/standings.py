"""Tournament standings, and what one game counts for: the one place both are decided.

docs/RULES.md section 12 is this module in words. The table's order:

1. *points*: a win 1, a draw ½, a loss 0;
2. *spread*: points for minus points against, counted only as :func:`game_counts` says;
3. *head-to-head* among exactly the players still tied: their points in the games between
   them, then their spread in those games; when that splits the tied group but leaves a
   smaller group tied, head-to-head is applied again among exactly that smaller group;
4. the last resort, so the order never depends on the database's whim: the player who
   joined the club first (the lower member number; a member number is never reused).

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

from matches.models import Match, Seat, Tournament
from matches.schemas import StandingRow, TournamentStandings

if TYPE_CHECKING:
    from accounts.models import Member

#: Results decided on the board: the final scores are the spread.
ON_THE_BOARD = frozenset({Match.EndReason.PLAYED_OUT, Match.EndReason.SIX_SCORELESS})
#: A result that counts: a win for a seat, or a draw.
RESULTS = frozenset({Match.Result.FIRST, Match.Result.SECOND, Match.Result.DRAW})

#: What placed a player above the next one when points and spread were equal.
Separation = Literal["", "head-to-head", "member number"]

TIE_BREAK_ORDER = (
    "points (a win 1, a draw ½)",
    "spread",
    "head-to-head points among the tied players",
    "head-to-head spread among the tied players",
    "the earlier member (lower member number)",
)


@dataclass(frozen=True)
class GameCount:
    """What one finished game counts for, from one seated member's side."""

    match_id: int
    member_id: int
    opponent_id: int | None
    points: float  # 1, 0.5 or 0
    spread: int

    @property
    def outcome(self) -> str:
        return {1.0: "won", 0.5: "drawn", 0.0: "lost"}[self.points]


def counts(match: Match) -> bool:
    """Whether ``match`` counts at all: finished, with a win or a draw."""
    return match.status == Match.Status.FINISHED and match.result in RESULTS


def _spread(match: Match, seat: Seat, other: Seat | None) -> int:
    if other is None:
        return 0
    difference = seat.score - other.score
    if match.end_reason in ON_THE_BOARD:
        return difference
    if match.end_reason == Match.EndReason.RESIGNED:
        # Never in the resigner's favour: resigning must not be a cheaper loss than playing
        # on, nor a lead kept by giving up.
        won = match.result == (Match.Result.FIRST, Match.Result.SECOND)[seat.position]
        return max(difference, 0) if won else min(difference, 0)
    return 0  # forfeit, no-show, adjudication: the scores were not settled on the board


def game_counts(match: Match, seats: Sequence[Seat]) -> list[GameCount]:
    """What ``match`` counts for each seated member (none if it does not count).

    ``seats`` are the match's seats in position order (prefetched by the caller)."""
    if not counts(match):
        return []
    by_position = {seat.position: seat for seat in seats}
    lines = []
    for seat in seats:
        if seat.member_id is None:
            continue  # the empty seat of a no-show, or the computer
        other = by_position.get(1 - seat.position)
        if match.result == Match.Result.DRAW:
            points = 0.5
        elif match.result == (Match.Result.FIRST, Match.Result.SECOND)[seat.position]:
            points = 1.0
        else:
            points = 0.0
        lines.append(
            GameCount(
                match_id=match.id,
                member_id=seat.member_id,
                opponent_id=other.member_id if other is not None else None,
                points=points,
                spread=_spread(match, seat, other),
            )
        )
    return lines


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
                separated_by=line.separated_by,
            )
            for rank, line in enumerate(standings(tournament), start=1)
        ],
    )


__all__ = [
    "ON_THE_BOARD",
    "TIE_BREAK_ORDER",
    "GameCount",
    "Standing",
    "api_standings",
    "counts",
    "game_counts",
    "order",
    "standings",
]


def standings_by_name(tournament: Tournament) -> dict[str, Standing]:
    """Standings keyed by player name; handy for tests and exports."""
    return {line.name: line for line in standings(tournament)}
