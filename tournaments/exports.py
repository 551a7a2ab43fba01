"""A tournament's results and standings as files: CSV (the stdlib ``csv`` module) and the
``.t`` file tsh reads, for rating submission (docs/RULES.md section 12, "Exports").

Only what the tournament page already shows to whoever may see it: finished matches'
scores, results and end reasons, the standings' numbers; never a rack, a swap or the bag
(no hidden field is read). Nothing here writes.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC

from matches import visibility
from matches.game_counts import ON_THE_BOARD, game_counts, table_counts
from matches.models import Match, Seat, Tournament
from ratings.selectors import ratings_at
from tournaments.models import SwissBye
from tournaments.standings import standings, table_scheme_of

RESULT_COLUMNS = (
    "round",
    "match_id",
    "first",
    "first_score",
    "second",
    "second_score",
    "spread",
    "result",
    "end_reason",
    "finished_at",
)
#: A Swiss of tables' results add its other seats and every seat's place.
TABLE_RESULT_COLUMNS = ("third", "third_score", "fourth", "fourth_score", "places")
STANDING_COLUMNS = (
    "rank",
    "member",
    "name",
    "played",
    "won",
    "lost",
    "drawn",
    "byes",
    "points",
    "spread",
    "opponents_scores",
    "buchholz",
    "separated_by",
)

#: A spreadsheet runs a cell starting with one of these as a formula: such a name is
#: written with a leading apostrophe.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _text(value: str) -> str:
    return f"'{value}" if value.startswith(_FORMULA_STARTS) else value


def _csv(columns: Sequence[str], rows: Iterable[dict[str, object]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _finished(tournament: Tournament) -> list[Match]:
    return list(
        tournament.matches.filter(status=Match.Status.FINISHED)
        .prefetch_related("seats__member")
        .order_by("round_number", "finished_at", "id")
    )


def _table_cells(match: Match, seats: list[Seat]) -> dict[str, object]:
    """A table's third and fourth seats (empty at a smaller table) and every seat's place,
    First's first (``1 2 2 4``; ``-`` for a seat without one)."""
    cells: dict[str, object] = {}
    for position, word in ((2, "third"), (3, "fourth")):
        seat = seats[position] if position < len(seats) else None
        cells[word] = _text(seat.member.username if seat and seat.member else "")
        cells[f"{word}_score"] = seat.score if seat is not None else ""
    places = [str(seat.place) if seat.place is not None else "-" for seat in seats]
    cells["places"] = " ".join(places) if match.result == Match.Result.TABLE else ""
    return cells


def _result_text(match: Match, seats: list[Seat]) -> str:
    """The result in words: a table's winner (or the players sharing first place), else the
    match page's words (:func:`matches.visibility.result_text`)."""
    if match.result != Match.Result.TABLE:
        return visibility.result_text(match, seats)
    first = [seat.member.username for seat in seats if seat.place == 1 and seat.member]
    if len(first) == 1:
        return f"{first[0]} won"
    return " and ".join(first) + " shared first place" if first else "No result"


def _first_spread(match: Match, seats: list[Seat]) -> int:
    """First's spread as the standings count it (at a table: against every other seat)."""
    placed, _ = table_counts(match, seats)
    spreads = {count.member_id: count.spread for count in placed}
    spreads.update((game.member_id, game.spread) for game in game_counts(match, seats))
    return spreads.get(seats[0].member_id, 0) if seats[0].member_id is not None else 0


def result_columns(tournament: Tournament) -> tuple[str, ...]:
    """The results' columns: a Swiss of tables adds :data:`TABLE_RESULT_COLUMNS`."""
    tables = table_scheme_of(tournament) is not None
    return RESULT_COLUMNS + TABLE_RESULT_COLUMNS if tables else RESULT_COLUMNS


def result_rows(tournament: Tournament) -> list[dict[str, object]]:
    """One row per finished match: its round, players (usernames), scores, First's spread
    as the standings count it, the result and end reason in words, and when it finished
    (UTC, ISO 8601); in a Swiss of tables also the third and fourth seats and the places."""
    tables = table_scheme_of(tournament) is not None
    rows: list[dict[str, object]] = []
    for match in _finished(tournament):
        seats = sorted(match.seats.all(), key=lambda seat: seat.position)
        assert match.finished_at is not None
        rows.append(
            {
                "round": match.round_number if match.round_number is not None else "",
                "match_id": match.id,
                "first": _text(seats[0].member.username if seats[0].member else ""),
                "first_score": seats[0].score,
                "second": _text(seats[1].member.username if seats[1].member else ""),
                "second_score": seats[1].score,
                "spread": _first_spread(match, seats),
                "result": _text(_result_text(match, seats)),
                "end_reason": match.get_end_reason_display(),
                "finished_at": match.finished_at.astimezone(UTC).isoformat(),
                **(_table_cells(match, seats) if tables else {}),
            }
        )
    return rows


def standing_rows(tournament: Tournament) -> list[dict[str, object]]:
    """One row per line of the table, in its order (the tournament's own tie-breaks), with
    each tie-break's number and what separated the player from the next one."""
    rows: list[dict[str, object]] = [
        {
            "rank": rank,
            "member": _text(line.username),
            "name": _text(line.name),
            "played": line.played,
            "won": line.won,
            "lost": line.lost,
            "drawn": line.drawn,
            "byes": line.byes,
            "points": f"{line.points:g}",
            "spread": line.spread,
            "opponents_scores": line.opponents_scores,
            "buchholz": f"{line.buchholz:g}",
            "separated_by": line.separated_by,
        }
        for rank, line in enumerate(standings(tournament), start=1)
    ]
    return rows


def results_csv(tournament: Tournament) -> str:
    return _csv(result_columns(tournament), result_rows(tournament))


def standings_csv(tournament: Tournament) -> str:
    return _csv(STANDING_COLUMNS, standing_rows(tournament))


# ---------------------------------------------------------------- tsh's .t file

#: The spread tsh records for a game won or lost without a board score (a forfeit).
FORFEIT_SPREAD = 50


@dataclass
class _Cell:
    """One round of one player's line: the opponent's number (0: none) and the score."""

    opponent: int
    score: int


def _tsh_name(member_name: str) -> str:
    """A name tsh can read back: one line, no ``;`` or ``#``, and no word that is a number
    (tsh takes the first number after the name for the rating)."""
    words = member_name.replace(";", " ").replace("#", " ").split()
    return " ".join(f"_{word}" if word[:1].isdigit() else word for word in words) or "Player"


def tsh_file(tournament: Tournament) -> str:
    """The tournament as tsh's ``.t`` file: one line per player, numbered from 1 in the
    order of the lines (best rating first): the name, the rating when the tournament was
    created (rounded), the opponent of each round by number, ``;``, and the player's score
    of each round. A game decided on the board (or resigned) has the opponent's number and
    the player's own score; a bye, and a game won or lost without a board score (forfeit,
    no-show, adjudication, withdrawal), are written as tsh writes a bye: opponent 0 and the
    spread credited as the score (a bye's own spread; a forfeit ±50, a drawn ruling 0). A
    round with no counted game for the player (cancelled, voided, still to play) is also
    opponent 0, score 0. Rounds 1 to the last with a counted result; fixtures without a
    round number are left out."""
    matches = [m for m in _finished(tournament) if m.round_number is not None]
    byes = list(SwissBye.objects.filter(swiss__tournament=tournament))
    lines = standings(tournament)
    ruleset = tournament.matches.values_list("ruleset", flat=True).first() or "word-duel"
    ratings = ratings_at([line.member_id for line in lines], ruleset, tournament.created_at)
    players = sorted(lines, key=lambda line: (-ratings[line.member_id].rating, line.username))
    number = {line.member_id: index for index, line in enumerate(players, start=1)}
    cells: dict[tuple[int, int], _Cell] = {}
    for match in matches:
        seats = list(match.seats.all())
        scores = {seat.member_id: seat.score for seat in seats}
        on_board = match.end_reason in ON_THE_BOARD or match.end_reason == Match.EndReason.RESIGNED
        for game in game_counts(match, seats):
            assert match.round_number is not None
            if on_board and game.opponent_id in number:
                cell = _Cell(number[game.opponent_id], scores[game.member_id])
            else:
                cell = _Cell(0, round((game.points - 0.5) * 2 * FORFEIT_SPREAD))
            cells[(game.member_id, match.round_number)] = cell
    for bye in byes:
        cells[(bye.member_id, bye.round_number)] = _Cell(0, bye.spread)
    rounds = max((r for _, r in cells), default=0)
    out = []
    for line in players:
        row = [cells.get((line.member_id, r), _Cell(0, 0)) for r in range(1, rounds + 1)]
        opponents = " ".join(str(cell.opponent) for cell in row)
        scores_text = " ".join(str(cell.score) for cell in row)
        rating = round(ratings[line.member_id].rating)
        out.append(f"{_tsh_name(line.name)} {rating} {opponents}; {scores_text}".rstrip() + "\n")
    return "".join(out)


__all__ = [
    "RESULT_COLUMNS",
    "STANDING_COLUMNS",
    "TABLE_RESULT_COLUMNS",
    "result_columns",
    "result_rows",
    "results_csv",
    "standing_rows",
    "standings_csv",
    "tsh_file",
]
