"""What the server-rendered pages show: lists of matches, the board page, tournaments.

Lists carry only public facts (names, status, scores, results): a rack never appears in them
because they never read one. The match page is the viewer's :class:`MatchView` made readable.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engine import format_position, get_ruleset
from matches.models import Match, OrganiserAction, Seat, Tournament, Turn
from matches.places import TABLE
from matches.schemas import (
    BoardRules,
    FairnessRecord,
    FinalScore,
    MatchView,
    MoveView,
    SeatView,
    TakeView,
)
from matches.visibility.access import MatchAccess, can_rotate_key, is_club_member
from matches.visibility.fairness import fairness_record
from matches.visibility.grid import GridRow, board_grid
from matches.visibility.payloads import match_view, seat_name
from matches.visibility.titles import match_title

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from accounts.models import Member


def visible_matches(user: Member | Any) -> QuerySet[Match]:
    """The matches ``user`` may find in a list: public ones, and every one for a member.

    A viewing key opens one match page, never a list, so keys play no part here.
    """
    matches = Match.objects.all()
    if not is_club_member(user):
        matches = matches.filter(visibility=Match.Visibility.PUBLIC)
    return matches


def can_view_tournament(tournament: Tournament, user: Member | Any) -> bool:
    """Members see every tournament; others only a public one whose fixtures are all public.

    A tournament's standings summarise every fixture, so showing them to someone who may
    not watch one of its fixtures would leak that fixture's result; and a members-only
    format (a Swiss paired by hand) is hidden before it has a fixture to say so.
    """
    if is_club_member(user):
        return True
    if tournament.visibility != Match.Visibility.PUBLIC:
        return False
    return not tournament.matches.exclude(visibility=Match.Visibility.PUBLIC).exists()


def outcome_for(match: Match, position: int | None) -> str:
    """``won``, ``lost``, ``drawn`` or ``""`` from the point of view of seat ``position``."""
    if position is None or match.status != Match.Status.FINISHED or not match.result:
        return ""
    if match.result == Match.Result.DRAW:
        return "drawn"
    if match.result == TABLE:  # a table of 3-4: the seat's place says it
        place = match.seats.filter(position=position).values_list("place", flat=True).first()
        return "won" if place == 1 else "lost"
    winner = 0 if match.result == Match.Result.FIRST else 1
    return "won" if winner == position else "lost"


#: How a match that ended without a result reads, by its ending (board.js says the same).
NO_RESULT_TEXTS: dict[str, str] = {
    Match.EndReason.CANCELLED: "Cancelled by an organiser: no result",
    Match.EndReason.VOIDED: "Voided by an organiser: no result",
    Match.EndReason.ABANDONED: "No result (both seats empty)",
}


def result_text(match: Match, seats: list[Seat]) -> str:
    """The result in words: who won, a draw, no result (and why), or nothing while not
    over."""
    if not match.is_over:
        return ""
    if match.end_reason in NO_RESULT_TEXTS:
        return NO_RESULT_TEXTS[match.end_reason]
    if match.result == Match.Result.DRAW:
        return "Draw"
    if match.result in (Match.Result.FIRST, Match.Result.SECOND):
        seat = seats[0 if match.result == Match.Result.FIRST else 1]
        who = seat_name(seat) or seat.get_position_display()
        return f"{who} ({seat.get_position_display()}) won"
    if match.result == TABLE:
        return table_result_text(
            [
                (
                    seat_name(seat) or seat.get_position_display(),
                    seat.get_position_display(),
                    seat.place,
                )
                for seat in seats
            ]
        )
    return "No result"


def table_result_text(seats: list[tuple[str, str, int | None]]) -> str:
    """A table's result from its places (name, seat label, place): who won, or who shared
    first place (board.js says the same)."""
    first = [f"{name} ({label})" for name, label, place in seats if place == 1]
    if len(first) == 1:
        return f"{first[0]} won"
    if first:
        return f"{' and '.join(first)} shared first place"
    return "No result"


def end_line(match: Match, seats: list[Seat]) -> str:
    """The move list's last line when the game ended off the board by a player's act: who
    resigned (the resigner is the seat that lost)."""
    if match.end_reason != Match.EndReason.RESIGNED:
        return ""
    if match.result == TABLE:  # the resigner is placed last, below every other seat
        loser = max(seats, key=lambda seat: seat.place or 0)
    else:
        loser = seats[0 if match.result == Match.Result.SECOND else 1]
    who = seat_name(loser) or loser.get_position_display()
    return f"{who} ({loser.get_position_display()}) resigned."


@dataclass(frozen=True)
class AuditLine:
    """One organiser's action on the match, as the audit trail shows it."""

    kind: str
    label: str
    who: str
    at: datetime
    reason: str
    #: What changed, in words (who took whose seat, the result awarded); empty when the
    #: label says it all.
    detail: str = ""
    #: A kick-off moved: from and to (shown in the viewer's zone, as every time on a page).
    moved_from: datetime | None = None
    moved_to: datetime | None = None


_RULING_WORDS = {"first": "a win for First", "second": "a win for Second", "draw": "a draw"}
_WITHDRAWAL_WORDS = {"cancelled": "the fixture cancelled", "lost": "a win for the opponent"}


def _moment(iso: object) -> datetime | None:
    return datetime.fromisoformat(iso) if isinstance(iso, str) else None


def _audit_detail(action: OrganiserAction) -> str:
    """The action's ``details`` (plain values written by the organiser services) in words."""
    details = action.details or {}
    if action.kind == OrganiserAction.Kind.WITHDRAW:
        outcome = _WITHDRAWAL_WORDS.get(str(details.get("outcome")), "")
        return f"{details.get('member')} withdrawn: {outcome}" if outcome else ""
    if action.kind == OrganiserAction.Kind.SUBSTITUTE:
        seat = Seat.Position(details.get("position", 0)).label
        return f"{seat}: {details.get('member_after')} replaced {details.get('member_before')}"
    if action.kind == OrganiserAction.Kind.ADJUDICATE:
        return _RULING_WORDS.get(str(details.get("result")), "")
    return ""


#: What everyone who may watch a match sees of its audit trail: the rulings on its result,
#: and every substitution (who plays was changed, by whom and why).
WATCHERS_SEE = OrganiserAction.RESULT_KINDS | {OrganiserAction.Kind.SUBSTITUTE}


def audit_lines(match: Match, *, is_organiser: bool) -> list[AuditLine]:
    """Organisers' actions on the match: every one to an organiser; to anyone else who may
    watch it, the rulings on its result (a cancellation, an adjudication, a void, a
    withdrawal) and the substitutions."""
    actions = OrganiserAction.objects.filter(match=match).select_related("organiser")
    if not is_organiser:
        actions = actions.filter(kind__in=WATCHERS_SEE)
    return [
        AuditLine(
            kind=action.kind,
            label=action.get_kind_display(),
            who=str(action.organiser),
            at=action.created_at,
            reason=action.reason,
            detail=_audit_detail(action),
            moved_from=_moment((action.details or {}).get("kickoff_before")),
            moved_to=_moment((action.details or {}).get("kickoff_after")),
        )
        for action in actions
    ]


# ---------------------------------------------------------------- lists


@dataclass(frozen=True)
class SeatLine:
    position: int
    label: str
    name: str | None
    score: int


@dataclass(frozen=True)
class MatchLine:
    """One line of a match list (home, my matches, a tournament), from public facts.

    The ``your_*``, ``opponent*`` and ``outcome`` fields are filled for a member's own list.
    """

    id: int
    name: str
    status: str
    status_label: str
    visibility: str
    visibility_label: str
    kickoff_at: datetime | None
    finished_at: datetime | None
    round_number: int | None
    tournament_id: int | None
    result: str
    result_text: str
    end_reason: str
    end_reason_label: str
    seats: tuple[SeatLine, ...]
    your_seat: str | None = None
    opponent: str | None = None
    your_score: int | None = None
    opponent_score: int | None = None
    outcome: str = ""


def match_line(match: Match, *, member_id: int | None = None) -> MatchLine:
    """A list line for ``match`` (prefetch ``seats__member``); ``member_id`` for their view."""
    seats = list(match.seats.all())
    mine = next((seat for seat in seats if seat.member_id == member_id), None)
    other = next((seat for seat in seats if mine and seat.position != mine.position), None)
    return MatchLine(
        id=match.id,
        name=match_title(match, seats),
        status=match.status,
        status_label=match.get_status_display(),
        visibility=match.visibility,
        visibility_label=match.get_visibility_display(),
        kickoff_at=match.kickoff_at,
        finished_at=match.finished_at,
        round_number=match.round_number,
        tournament_id=match.tournament_id,
        result=match.result,
        result_text=result_text(match, seats),
        end_reason=match.end_reason,
        end_reason_label=match.get_end_reason_display() if match.end_reason else "",
        seats=tuple(
            SeatLine(seat.position, seat.get_position_display(), seat_name(seat), seat.score)
            for seat in seats
        ),
        your_seat=mine.get_position_display() if mine else None,
        opponent=seat_name(other) if other else None,
        your_score=mine.score if mine else None,
        opponent_score=other.score if other else None,
        outcome=outcome_for(match, mine.position if mine else None),
    )


# ---------------------------------------------------------------- the match page


@dataclass(frozen=True)
class MoveLine:
    """A move described in words for the move list."""

    number: int
    seat: str
    who: str
    what: str
    score: int
    totals: tuple[int, ...]
    #: The play's challenge in words, once decided ("" when it was not challenged).
    challenge: str = ""

    @property
    def totals_text(self) -> str:
        """Every seat's total after the move: 120–98–77."""
        return "\u2013".join(str(total) for total in self.totals)


@dataclass(frozen=True)
class ScoreRow:
    """One row of the end-of-game table: what it is, and each seat's figure (or "")."""

    kind: str  # "before", "adjustment" or "final"
    label: str
    cells: tuple[str, ...]


def _points(points: int) -> str:
    """A score change as the table writes it: +6, −6 (a true minus sign)."""
    return f"+{points}" if points >= 0 else f"\u2212{-points}"


def _tiles(count: int) -> str:
    return f"{count} tile{'s' if count != 1 else ''}"


def final_score_rows(final: FinalScore | None, seats: list[SeatView]) -> list[ScoreRow]:
    """How the final score was reached, as table rows (board.js draws the same rows)."""
    if final is None:
        return []
    names = {seat.position: seat.name or seat.label for seat in seats}
    labels = {seat.position: seat.label for seat in seats}
    rows = [ScoreRow("before", "After the last move", tuple(str(score) for score in final.before))]
    for change in final.adjustments:
        who = f"{names[change.position]} ({labels[change.position]})"
        if change.rack_owner == change.position:
            what = f"{_tiles(change.tile_count)} left on the rack"
        else:
            what = f"went out, gains {names[change.rack_owner]}'s {_tiles(change.tile_count)}"
        cells = [""] * len(final.final)
        cells[change.position] = _points(change.points)
        rows.append(ScoreRow("adjustment", f"{who}: {what}", tuple(cells)))
    rows.append(ScoreRow("final", "Final score", tuple(str(score) for score in final.final)))
    return rows


@dataclass(frozen=True)
class TournamentLink:
    id: int
    name: str


def move_position(move: MoveView) -> str:
    """Where a play went, in GCG's notation: its main word's position, as recorded."""
    if move.words:
        return move.words[0].position
    if not move.tiles:
        return ""
    first = min(move.tiles, key=lambda tile: (tile.row, tile.col))
    return format_position(first.row, first.col, across=len({t.row for t in move.tiles}) == 1)


def take_text(take: TakeView) -> str:
    """Reword: a take in words (``swapped Z for e at 8H``, ``stole S at 8K``); a blank's
    letter in lower case, as the board writes it."""
    square = format_position(take.row, take.col, across=True)
    taken = take.letter.lower() if take.blank else take.letter
    if take.take == "steal" or take.placed is None:
        return f"stole {taken} at {square}"
    placed = take.placed.lower() if take.placed_blank else take.placed
    return f"swapped {placed} for {taken} at {square}"


def move_lines(view: MatchView) -> list[MoveLine]:
    """The move list of a view, each move described in words."""
    names = {seat.position: seat.name or seat.label for seat in view.seats}
    labels = {seat.position: seat.label for seat in view.seats}
    lines = []
    for move in view.moves:
        if move.lost_turn:
            what = "lost the turn (a wrong challenge)"
        elif move.kind == Turn.Kind.PLAY:
            words = [word.tiles.upper() for word in move.words]
            what = f"played {', '.join(words) or 'tiles'} at {move_position(move)}"
            if move.takes:  # Reword: the swaps and steals came first
                what = f"{', '.join(take_text(take) for take in move.takes)}, then {what}"
            if move.challenge is not None and move.challenge.withdrawn:
                what += ", withdrawn"
        elif move.kind == Turn.Kind.SWAP:
            count = move.swap_count
            what = f"swapped {count} tile{'s' if count != 1 else ''}"
        else:
            what = "passed"
        lines.append(
            MoveLine(
                number=move.number,
                seat=labels.get(move.position, ""),
                who=names.get(move.position, ""),
                what=what,
                score=move.score,
                totals=move.totals,
                challenge=challenge_text(move, names, view.challenge_rule),
            )
        )
    return lines


def challenge_text(move: MoveView, names: dict[int, str], rule: str) -> str:
    """A decided challenge in words, for everyone (board.js says the same): "Ann challenged
    PHONYX: not a word — withdrawn, Ben loses the turn", "Ann challenged QI: it stands —
    Ann loses the next turn", "... it stands — +5 to Ben"; "" when not challenged."""
    challenge = move.challenge
    if challenge is None:
        return ""
    by, player = names.get(challenge.by, ""), names.get(move.position, "")
    if challenge.withdrawn:
        phonies = ", ".join(challenge.phonies)
        what = "not a word" if len(challenge.phonies) == 1 else "not words"
        return f"{by} challenged {phonies}: {what} \u2014 withdrawn, {player} loses the turn"
    words = ", ".join(word.tiles.upper() for word in move.words)
    text = f"{by} challenged {words}: it stands"
    if challenge.points > 0:
        return f"{text} \u2014 +{challenge.points} to {player}"
    if rule == "double":
        return f"{text} \u2014 {by} loses the next turn"
    return text


def board_rules(name: str) -> BoardRules:
    """The public numbers the interactive board draws with: premium layout, letter values."""
    ruleset = get_ruleset(name)
    return BoardRules(
        layout=list(ruleset.layout),
        values=dict(ruleset.values),
        rack_size=ruleset.rack_size,
        swap_whole_rack=ruleset.swap_whole_rack,
        takes_allowed=ruleset.swap_and_steal,
    )


def _to_move_label(seats: list[Seat], to_move: int | None) -> str | None:
    """``First (alice)``: whose turn it is, by seat and name."""
    if to_move is None:
        return None
    seat = seats[to_move]
    name = seat_name(seat)
    return f"{seat.get_position_display()} ({name})" if name else seat.get_position_display()


@dataclass(frozen=True)
class MatchPage:
    """Everything the match page shows its viewer: their :class:`MatchView` (whose fields
    the template reads straight through, e.g. ``m.rack``) and its presentation."""

    view: MatchView
    status_label: str
    visibility_label: str
    result_text: str
    end_reason_label: str
    kickoff: datetime | None
    no_show: datetime | None
    tournament: TournamentLink | None
    round_number: int | None
    your_seat_label: str | None
    to_move_label: str | None
    grid: list[GridRow]
    board_rules: BoardRules
    columns: list[str]
    move_lines: list[MoveLine]
    end_line: str
    audit: list[AuditLine]
    final_score_rows: list[ScoreRow]
    #: The tiles on the racks this viewer does not see (every other seat's).
    racks_unseen: int
    can_rotate_key: bool
    is_member: bool
    #: What "Check this game's bag" reads, once the match is over (visibility/fairness.py).
    fairness: FairnessRecord | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.view, name)


def match_page(access: MatchAccess) -> MatchPage:
    """The match page for one viewer, built on :func:`match_view`: their own rack and
    nothing else hidden; the rest is presentation of public facts."""
    match, seats, viewer = access.match, access.seats, access.viewer
    view = match_view(access)
    return MatchPage(
        view=view,
        status_label=match.get_status_display(),
        visibility_label=match.get_visibility_display(),
        result_text=result_text(match, seats),
        end_reason_label=match.get_end_reason_display() if match.end_reason else "",
        kickoff=match.kickoff_at,
        no_show=match.no_show_at,
        tournament=(
            TournamentLink(match.tournament.id, match.tournament.name)
            if match.tournament is not None
            else None
        ),
        round_number=match.round_number,
        your_seat_label=Seat.Position(viewer.seat).label if viewer.seat is not None else None,
        to_move_label=_to_move_label(seats, match.to_move),
        grid=board_grid(ruleset=get_ruleset(view.ruleset), board=view.board),
        board_rules=board_rules(match.ruleset),
        columns=[chr(ord("A") + c) for c in range(view.board_size)],
        move_lines=move_lines(view),
        end_line=end_line(match, seats),
        audit=audit_lines(match, is_organiser=viewer.is_organiser),
        final_score_rows=final_score_rows(view.final_score, view.seats),
        racks_unseen=sum(s.rack_count for s in view.seats if s.position != view.your_seat),
        can_rotate_key=can_rotate_key(match, viewer),
        is_member=viewer.is_member,
        fairness=fairness_record(access),
    )
