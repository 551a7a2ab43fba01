"""Tournament standings: the one place the table's order is decided (what one game counts for
is :mod:`matches.game_counts`).

docs/RULES.md section 12 is this module and that one in words. The table's order:

1. *points*: a win 1, a draw ½, a loss 0;
2. the tournament's tie-breaks, in the order its organiser chose from :data:`TIE_BREAKS`
   (:class:`tournaments.models.TournamentOptions`; without a choice :data:`DEFAULT_TIE_BREAKS`,
   spread then head-to-head): each splits the players still tied by the one before it;
   head-to-head is applied again among exactly a smaller group it leaves tied;
3. the last resort, so the order never depends on the database's whim: the player who
   joined the club first (the lower member number; a member number is never reused).

The tie-breaks (each documented in docs/RULES.md section 12):

- ``spread``: points for minus points against, counted only as :func:`game_counts` says;
- ``head_to_head``: among exactly the players still tied, their points in the games between
  them, then their spread in those games;
- ``opponents_scores``: cumulative opponents' scores, the board points each of the player's
  opponents scored over the whole tournament, summed over the player's counted games
  (a strength of the opposition met, by points);
- ``buchholz``: the points (wins, a draw half) each of the player's opponents won in the
  tournament, summed over the player's counted games.

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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING, Any, Literal

from matches.game_counts import (
    ON_THE_BOARD,
    GameCount,
    TableCount,
    counts,
    game_counts,
    table_counts,
)
from matches.models import Match, Tournament
from matches.schemas import StandingRow, TournamentStandings
from tournaments.models import Swiss, SwissBye, TournamentOptions, Withdrawal

if TYPE_CHECKING:
    from accounts.models import Member

#: What placed a player above the next one when points and spread were equal ("" when
#: points or spread did, which the table shows).
Separation = Literal["", "head-to-head", "opponents' scores", "Buchholz", "member number"]

#: The tie-breaks an organiser may choose from, by key: what the table says of each.
TIE_BREAKS: dict[str, str] = {
    "spread": "spread",
    "head_to_head": "head-to-head among the tied players (their points, then their spread)",
    "opponents_scores": "cumulative opponents' scores (their board points, summed)",
    "buchholz": "Buchholz (the points their opponents won, summed)",
}
#: The order without an organiser's choice: the table's order before tie-breaks were chosen.
DEFAULT_TIE_BREAKS: tuple[str, ...] = ("spread", "head_to_head")
#: How a tie-break that separated two players is named beside the upper one.
_SEPARATION: dict[str, Separation] = {
    "spread": "",
    "head_to_head": "head-to-head",
    "opponents_scores": "opponents' scores",
    "buchholz": "Buchholz",
}


#: Each tie-break's steps in the order's words (head-to-head is two: points, then spread).
_ORDER_WORDS: dict[str, tuple[str, ...]] = {
    "spread": ("spread",),
    "head_to_head": (
        "head-to-head points among the tied players",
        "head-to-head spread among the tied players",
    ),
    "opponents_scores": ("cumulative opponents' scores",),
    "buchholz": ("Buchholz",),
}


#: What a table game scores, by the Swiss's ``table_points`` (docs/RULES.md section 12).
TABLE_POINTS_WORDS: dict[str, str] = {
    Swiss.TablePoints.PLACES: "at a table N-1 for first ... 0 for last, ties sharing the average",
    Swiss.TablePoints.WINS: "at a table 1 for first place, shared equally on a tie",
}


def table_points(count: TableCount, scheme: str) -> float:
    """What a table game scores under ``scheme``: by place (the pairwise score: one per
    player placed below, a half per tie), or first place only (shared on a tie)."""
    if scheme == Swiss.TablePoints.WINS:
        return count.first_share
    return count.pairwise


def tie_break_order(
    tie_breaks: Sequence[str] = DEFAULT_TIE_BREAKS, table_scheme: str | None = None
) -> list[str]:
    """The whole order in words, first to last, for the page and the API (a Swiss of
    tables says what a table game scores)."""
    tables = f"; {TABLE_POINTS_WORDS[table_scheme]}" if table_scheme else ""
    return [
        f"points (a win 1, a draw ½{tables})",
        *(words for key in tie_breaks for words in _ORDER_WORDS[key]),
        "the earlier member (lower member number)",
    ]


#: Today's default order in words (the API's ``tie_break_order`` without a choice).
TIE_BREAK_ORDER = tuple(tie_break_order())


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
    #: The first sort key: a win 1, a draw ½, a loss 0; a table game what its scheme says.
    points: float = 0.0
    spread: int = 0
    #: Byes had (a Swiss): each counts as a game with the tournament's bye score.
    byes: int = 0
    #: Board points scored in counted games (what opponents' scores sum).
    scored: int = 0
    #: Cumulative opponents' scores and Buchholz, filled in by :func:`order`.
    opponents_scores: int = 0
    buchholz: float = 0.0
    #: Set when head-to-head or the last resort placed this player above the next one.
    separated_by: Separation = ""
    #: Withdrawn by a director (tournaments.models.Withdrawal): still in the table.
    withdrawn: bool = False

    def add(self, game: GameCount) -> None:
        self.played += 1
        self.won += game.points == 1.0
        self.drawn += game.points == 0.5
        self.lost += game.points == 0.0
        self.points += game.points
        self.spread += game.spread

    def add_table(self, game: TableCount, *, scheme: str) -> None:
        """A table game: won when placed first alone, drawn when first shared, else lost;
        its points as ``scheme`` says (:func:`table_points`), its spread the pairwise one."""
        self.played += 1
        self.won += game.first_share == 1.0
        self.drawn += 0.0 < game.first_share < 1.0
        self.lost += game.first_share == 0.0
        self.points += table_points(game, scheme)
        self.spread += game.spread

    def add_bye(self, *, points: float, spread: int) -> None:
        """A Swiss bye: a game won, drawn or lost (its score's points) with its spread."""
        self.played += 1
        self.byes += 1
        self.won += points == 1.0
        self.drawn += points == 0.5
        self.lost += points == 0.0
        self.points += points
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


def _split(group: list[Standing], key: Callable[[Standing], Any]) -> list[list[Standing]]:
    """``group`` sorted by ``key`` (smallest first) and cut where it changes."""
    ordered = sorted(group, key=key)
    return [list(part) for _, part in groupby(ordered, key=key)]


def _break_tie(
    group: list[Standing], games: Sequence[GameCount], tie_breaks: Sequence[str]
) -> list[Standing]:
    """``group`` (equal on points and every tie-break before ``tie_breaks``) in order:
    ``tie_breaks`` one after another, then the last resort."""
    if len(group) == 1:
        return group
    if not tie_breaks:  # nothing left can tell them apart: the last resort
        result = sorted(group, key=lambda line: line.member_id)
        for line in result[:-1]:
            line.separated_by = "member number"
        return result
    first, rest = tie_breaks[0], tie_breaks[1:]
    if first == "head_to_head":
        tally = _head_to_head(group, games)

        def key(line: Standing) -> tuple[float, float]:
            points, spread = tally[line.member_id]
            return (-points, -spread)

        parts = _split(group, key)
        if len(parts) == 1:
            return _break_tie(group, games, rest)
        # Head-to-head again among exactly a smaller group it leaves tied.
        placed = [_break_tie(part, games, tie_breaks) for part in parts]
    else:
        parts = _split(group, lambda line: -_VALUE[first](line))
        placed = [_break_tie(part, games, rest) for part in parts]
    for part in placed[:-1]:
        part[-1].separated_by = _SEPARATION[first]  # from the first of the next part
    return [line for part in placed for line in part]


#: Each tie-break that is one number per line (higher first).
_VALUE: dict[str, Callable[[Standing], float]] = {
    "spread": lambda line: line.spread,
    "opponents_scores": lambda line: line.opponents_scores,
    "buchholz": lambda line: line.buchholz,
}


def _opposition(lines: Iterable[Standing], games: Sequence[GameCount]) -> None:
    """Fill in each line's cumulative opponents' scores and Buchholz from ``games``."""
    by_id = {line.member_id: line for line in lines}
    for line in by_id.values():
        line.opponents_scores, line.buchholz = 0, 0.0
    for game in games:
        opponent = by_id.get(game.opponent_id) if game.opponent_id is not None else None
        if game.member_id in by_id and opponent is not None:
            by_id[game.member_id].opponents_scores += opponent.scored
            by_id[game.member_id].buchholz += opponent.points


def order(
    lines: Iterable[Standing],
    games: Sequence[GameCount],
    tie_breaks: Sequence[str] = DEFAULT_TIE_BREAKS,
) -> list[Standing]:
    """``lines`` in the table's order (the module's docstring); ``games`` are every counted
    game of the tournament, for head-to-head and the opposition's tie-breaks."""
    lines = list(lines)
    _opposition(lines, games)
    result: list[Standing] = []
    for group in _split(lines, lambda line: -line.points):
        result += _break_tie(group, games, tuple(tie_breaks))
    return result


def table_scheme_of(tournament: Tournament) -> str | None:
    """What a table game scores in ``tournament``: its Swiss of tables' ``table_points``;
    None for a tournament of duels."""
    swiss = Swiss.objects.filter(tournament=tournament, seat_count__gt=2).first()
    return swiss.table_points if swiss is not None else None


def tie_breaks_of(tournament: Tournament) -> tuple[str, ...]:
    """The tournament's chosen tie-breaks, or the default order."""
    options = TournamentOptions.objects.filter(tournament=tournament).first()
    return tuple(options.tie_breaks) if options is not None else DEFAULT_TIE_BREAKS


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
    scheme = table_scheme_of(tournament) or Swiss.TablePoints.PLACES
    matches = tournament.matches.filter(status=Match.Status.FINISHED).prefetch_related(
        "seats__member"
    )
    for match in matches:
        seats = list(match.seats.all())
        members = {seat.member_id: seat.member for seat in seats if seat.member is not None}
        scores = {seat.member_id: seat.score for seat in seats}
        placed, pairs = table_counts(match, seats)
        for count in placed:
            line = line_for(members[count.member_id])
            line.add_table(count, scheme=scheme)
            if match.end_reason in ON_THE_BOARD or match.end_reason == Match.EndReason.RESIGNED:
                line.scored += scores[count.member_id]
        games += pairs
        for game in game_counts(match, seats):
            line = line_for(members[game.member_id])
            line.add(game)
            if match.end_reason in ON_THE_BOARD or match.end_reason == Match.EndReason.RESIGNED:
                line.scored += scores[game.member_id]
            games.append(game)
    for bye in SwissBye.objects.filter(swiss__tournament=tournament).select_related("member"):
        line_for(bye.member).add_bye(points=float(bye.points), spread=bye.spread)
    for member_id in Withdrawal.objects.filter(tournament=tournament).values_list(
        "member_id", flat=True
    ):
        if member_id in table:
            table[member_id].withdrawn = True
    return order(table.values(), games, tie_breaks_of(tournament))


def api_standings(tournament: Tournament) -> TournamentStandings:
    """The table as the API's shape (:class:`matches.schemas.TournamentStandings`)."""
    return TournamentStandings(
        tournament_id=tournament.id,
        name=tournament.name,
        tie_break_order=tie_break_order(tie_breaks_of(tournament), table_scheme_of(tournament)),
        standings=[
            StandingRow(**standing_row_fields(rank, line))
            for rank, line in enumerate(standings(tournament), start=1)
        ],
    )


def standing_row_fields(rank: int, line: Standing) -> dict[str, Any]:
    """A line's fields as :class:`~matches.schemas.StandingRow` has them (a league's table
    row adds its zone to them)."""
    return {
        "rank": rank,
        "member_id": line.member_id,
        "username": line.username,
        "name": line.name,
        "played": line.played,
        "won": line.won,
        "drawn": line.drawn,
        "lost": line.lost,
        "points": line.points,
        "spread": line.spread,
        "byes": line.byes,
        "separated_by": line.separated_by,
    }


def standings_by_name(tournament: Tournament) -> dict[str, Standing]:
    """Standings keyed by player name; handy for tests and exports."""
    return {line.name: line for line in standings(tournament)}


__all__ = [
    "DEFAULT_TIE_BREAKS",
    "TIE_BREAKS",
    "TIE_BREAK_ORDER",
    "GameCount",
    "Standing",
    "api_standings",
    "counts",
    "game_counts",
    "order",
    "standing_row_fields",
    "standings",
    "standings_by_name",
    "tie_break_order",
    "tie_breaks_of",
]
