"""What one viewer may see of a match: the only door out for match data.

Every page, websocket message, API answer and export is built here. A rack's letters go
only to the seat that holds them; the tiles a swap returned only to the swapper; the bag's
contents, order and seed to nobody (the seed only after the game, for verification).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from matches.engine import Game, export_gcg, format_position, get_ruleset
from matches.models import Match, Seat, Tournament, Turn

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from accounts.models import Member


@dataclass(frozen=True)
class Viewer:
    """Who is looking: a member (or nobody), the key they presented, their seat."""

    member_id: int | None = None
    seat: int | None = None
    has_key: bool = False
    is_organiser: bool = False

    @property
    def is_member(self) -> bool:
        return self.member_id is not None


def key_is_valid(match: Match, key: str | None) -> bool:
    """Constant-time check of a presented viewing key against the current one."""
    return bool(key) and hmac.compare_digest(str(key).encode(), match.viewing_key.encode())


def viewer_for(match: Match, user: Member | Any, key: str | None = None) -> Viewer:
    """Describe ``user`` (possibly anonymous) looking at ``match`` with ``key``."""
    member_id = user.pk if getattr(user, "is_authenticated", False) else None
    seat = None
    if member_id is not None:
        seat = next((s.position for s in match.seats.all() if s.member_id == member_id), None)
    return Viewer(
        member_id=member_id,
        seat=seat,
        has_key=key_is_valid(match, key),
        is_organiser=bool(member_id and user.is_organiser),
    )


def can_watch(match: Match, viewer: Viewer) -> bool:
    """Public matches: anyone. Members-only: signed-in members and current-key holders."""
    return match.visibility == Match.Visibility.PUBLIC or viewer.is_member or viewer.has_key


def can_share(match: Match, viewer: Viewer) -> bool:
    """The players and the organiser may copy a members-only match's viewing link."""
    return match.visibility == Match.Visibility.MEMBERS and (
        viewer.seat is not None
        or viewer.is_organiser
        or (viewer.member_id is not None and viewer.member_id == match.created_by_id)
    )


# ---------------------------------------------------------------- building blocks


def _iso(value: Any) -> str | None:
    return value.isoformat() if value else None


def _seat_name(seat: Seat) -> str | None:
    return str(seat.member) if seat.member_id else None


def seats_payload(match: Match, seats: list[Seat] | None = None) -> dict[str, Any]:
    """Who sits where, scores and rack counts: public facts."""
    seats = seats if seats is not None else list(match.seats.all())
    return {
        "seats": [
            {
                "position": seat.position,
                "label": seat.get_position_display(),
                "member_id": seat.member_id,
                "name": _seat_name(seat),
                "score": seat.score,
                "rack_count": len(seat.rack),
            }
            for seat in seats
        ]
    }


def turn_public(turn: Turn) -> dict[str, Any]:
    """One move of the log as everyone may see it (a swap is only a count)."""
    return {
        "number": turn.number,
        "position": turn.position,
        "kind": turn.kind,
        "tiles": turn.placement if turn.kind == Turn.Kind.PLAY else [],
        "swap_count": turn.swap_count if turn.kind == Turn.Kind.SWAP else 0,
        "words": turn.words,
        "score": turn.score,
        "totals": [turn.first_total, turn.second_total],
        "bag_count": turn.bag_count,
        "at": _iso(turn.created_at),
    }


def board_rows(match: Match, turns: list[Turn]) -> list[str]:
    """The board as strings, one per row: ``.`` empty, capitals tiles, lower case blanks."""
    size = get_ruleset(match.ruleset).board_size
    grid = [["."] * size for _ in range(size)]
    for turn in turns:
        if turn.kind != Turn.Kind.PLAY:
            continue
        for tile in turn.placement:
            letter = tile["letter"].lower() if tile["blank"] else tile["letter"].upper()
            grid[tile["row"]][tile["col"]] = letter
    return ["".join(row) for row in grid]


def result_payload(match: Match) -> dict[str, Any]:
    """How the match ended: result, reason, final scores."""
    return {
        "status": match.status,
        "result": match.result,
        "end_reason": match.end_reason,
        "scores": [seat.score for seat in match.seats.all()],
        "finished_at": _iso(match.finished_at),
    }


def public_snapshot(match: Match, *, turns: list[Turn] | None = None) -> dict[str, Any]:
    """Everything about the match that everyone who may watch it may see."""
    turns = turns if turns is not None else list(match.turns.order_by("number"))
    ruleset = get_ruleset(match.ruleset)
    over = match.is_over
    return {
        "match_id": match.id,
        "name": match.name,
        "ruleset": match.ruleset,
        "lexicon": match.lexicon,
        "board_size": ruleset.board_size,
        "visibility": match.visibility,
        "status": match.status,
        "result": match.result,
        "end_reason": match.end_reason,
        "kickoff_at": _iso(match.kickoff_at),
        "no_show_at": _iso(match.no_show_at),
        "turn_deadline_at": _iso(match.turn_deadline_at),
        "turn_number": match.turn_number,
        "to_move": match.to_move,
        "bag_count": match.bag_count,
        "board": board_rows(match, turns),
        "moves": [turn_public(turn) for turn in turns],
        "bag_commitment": match.bag_commitment,
        "bag_seed": match.bag_seed if over else None,
        **seats_payload(match),
    }


def snapshot_for(match: Match, viewer: Viewer) -> dict[str, Any]:
    """The public snapshot plus, for a seated viewer, their own rack."""
    snapshot = public_snapshot(match)
    snapshot["your_seat"] = viewer.seat
    snapshot["rack"] = None
    if viewer.seat is not None:
        seat = next(s for s in match.seats.all() if s.position == viewer.seat)
        snapshot["rack"] = list(seat.rack)
    snapshot["can_share"] = can_share(match, viewer)
    snapshot["viewing_key"] = match.viewing_key if snapshot["can_share"] else None
    return snapshot


def turn_payload(match: Match, turn: Turn, seats: list[Seat] | None = None) -> dict[str, Any]:
    """The public news of one move: the move, totals, counts and who is next."""
    return {
        "move": turn_public(turn),
        "turn_number": match.turn_number,
        "to_move": match.to_move,
        "bag_count": match.bag_count,
        "turn_deadline_at": _iso(match.turn_deadline_at),
        **seats_payload(match, seats),
    }


def rack_payload(match: Match, seat: Seat) -> dict[str, Any]:
    """A seat's own rack: only ever sent to that seat's member."""
    return {"position": seat.position, "rack": list(seat.rack), "turn_number": match.turn_number}


def commit_ack(match: Match, seat: Seat, last: Turn | None = None) -> dict[str, Any]:
    """The accepted-commit acknowledgement for the mover: the score and their new rack."""
    if last is None:
        last = match.turns.order_by("-number").first()
    return {
        "code": "accepted",
        "score": last.score if last else 0,
        "words": last.words if last else [],
        "turn_number": match.turn_number,
        "rack": list(seat.rack),
    }


# ---------------------------------------------------------------- pages: lists, tournaments, board
# Added for the server-rendered pages. Lists carry only public facts (names, status, scores,
# results); a rack never appears in them because they never read one.

_PREMIUM_LABELS = {"T": "TW", "D": "DW", "t": "TL", "d": "DL"}


def visible_matches(user: Member | Any) -> QuerySet[Match]:
    """The matches ``user`` may find in a list: public ones, and every one for a member.

    A viewing key opens one match page, never a list, so keys play no part here.
    """
    matches = Match.objects.all()
    if not getattr(user, "is_authenticated", False):
        matches = matches.filter(visibility=Match.Visibility.PUBLIC)
    return matches


def can_view_tournament(tournament: Tournament, user: Member | Any) -> bool:
    """Members see every tournament; others only one whose fixtures are all public.

    A tournament's standings summarise every fixture, so showing them to someone who may
    not watch one of its fixtures would leak that fixture's result.
    """
    if getattr(user, "is_authenticated", False):
        return True
    return not tournament.matches.exclude(visibility=Match.Visibility.PUBLIC).exists()


def can_rotate_key(match: Match, viewer: Viewer) -> bool:
    """Whether to offer "New viewing key": the organiser of a members-only match."""
    return can_share(match, viewer) and (
        viewer.is_organiser
        or (viewer.member_id is not None and viewer.member_id == match.created_by_id)
    )


def _outcome_for(match: Match, position: int | None) -> str:
    """``won``, ``lost``, ``drawn`` or ``""`` from the point of view of seat ``position``."""
    if position is None or match.status != Match.Status.FINISHED or not match.result:
        return ""
    if match.result == Match.Result.DRAW:
        return "drawn"
    winner = 0 if match.result == Match.Result.FIRST else 1
    return "won" if winner == position else "lost"


def result_text(match: Match, seats: list[Seat] | None = None) -> str:
    """The result in words: who won, a draw, no result, or nothing while not over."""
    seats = seats if seats is not None else list(match.seats.all())
    if match.status == Match.Status.ABANDONED:
        return "No result (both seats empty)"
    if not match.is_over:
        return ""
    if match.result == Match.Result.DRAW:
        return "Draw"
    if match.result in (Match.Result.FIRST, Match.Result.SECOND):
        seat = seats[0 if match.result == Match.Result.FIRST else 1]
        who = _seat_name(seat) or seat.get_position_display()
        return f"{who} ({seat.get_position_display()}) won"
    return "No result"


def match_row(match: Match, *, member_id: int | None = None) -> dict[str, Any]:
    """One line of a match list (home, my matches, a tournament) from public facts.

    With ``member_id`` the row also says how it went for that member: their seat, the
    opponent and won/lost/drawn. Prefetch ``seats__member`` to keep lists to few queries.
    """
    seats = list(match.seats.all())
    row: dict[str, Any] = {
        "id": match.id,
        "name": match.name,
        "status": match.status,
        "status_label": match.get_status_display(),
        "visibility": match.visibility,
        "visibility_label": match.get_visibility_display(),
        "kickoff_at": match.kickoff_at,
        "finished_at": match.finished_at,
        "round_number": match.round_number,
        "tournament_id": match.tournament_id,
        "result": match.result,
        "result_text": result_text(match, seats),
        "end_reason": match.end_reason,
        "end_reason_label": match.get_end_reason_display() if match.end_reason else "",
        "seats": [
            {
                "position": seat.position,
                "label": seat.get_position_display(),
                "name": _seat_name(seat),
                "score": seat.score,
            }
            for seat in seats
        ],
    }
    if member_id is not None:
        mine = next((seat for seat in seats if seat.member_id == member_id), None)
        other = next((seat for seat in seats if mine and seat.position != mine.position), None)
        row["your_seat"] = mine.get_position_display() if mine else None
        row["opponent"] = _seat_name(other) if other else None
        row["your_score"] = mine.score if mine else None
        row["opponent_score"] = other.score if other else None
        row["outcome"] = _outcome_for(match, mine.position if mine else None)
    return row


def _word_text(word: Any) -> str:
    """A formed word from a move's ``words`` entry, in capitals."""
    if isinstance(word, dict):
        return str(word.get("tiles") or word.get("word") or "").upper()
    return str(word).upper()


def _move_position(move: dict[str, Any]) -> str:
    """The GCG position of a play: its main word's, else worked out from its tiles."""
    words = move.get("words") or []
    if words and isinstance(words[0], dict) and {"row", "col", "across"} <= words[0].keys():
        main = words[0]
        return format_position(main["row"], main["col"], across=bool(main["across"]))
    tiles = move.get("tiles") or []
    if not tiles:
        return ""
    across = len({tile["row"] for tile in tiles}) == 1
    first = min(tiles, key=lambda tile: (tile["row"], tile["col"]))
    return format_position(first["row"], first["col"], across=across)


def move_lines(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """The move list of a snapshot, each move described in words for a page."""
    names = {seat["position"]: seat["name"] or seat["label"] for seat in snapshot["seats"]}
    labels = {seat["position"]: seat["label"] for seat in snapshot["seats"]}
    lines = []
    for move in snapshot["moves"]:
        if move["kind"] == Turn.Kind.PLAY:
            words = [_word_text(word) for word in move["words"]]
            what = f"played {', '.join(words) or 'tiles'} at {_move_position(move)}"
        elif move["kind"] == Turn.Kind.SWAP:
            count = move["swap_count"]
            what = f"swapped {count} tile{'s' if count != 1 else ''}"
        else:
            what = "passed"
        lines.append(
            {
                "number": move["number"],
                "seat": labels.get(move["position"], ""),
                "who": names.get(move["position"], ""),
                "what": what,
                "score": move["score"],
                "totals": move["totals"],
            }
        )
    return lines


def board_grid(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """The snapshot's board as rows of cells: a tile's letter, or the square's premium label.

    Premium labels come from the ruleset's layout (TW/DW/TL/DL, the centre star ★); a
    covered square shows its tile, as premiums count only on the turn a tile lands.
    """
    ruleset = get_ruleset(snapshot["ruleset"])
    centre = ruleset.centre
    rows = []
    for r, line in enumerate(snapshot["board"]):
        cells = []
        for c, char in enumerate(line):
            premium = ruleset.premium(r, c)
            label = "★" if (r, c) == centre else _PREMIUM_LABELS.get(premium, "")
            cells.append(
                {
                    "square": format_position(r, c, across=False),
                    "letter": char.upper() if char != "." else "",
                    "blank": char.islower(),
                    "premium": _PREMIUM_LABELS.get(premium, "").lower(),
                    "label": label,
                }
            )
        rows.append({"number": r + 1, "cells": cells})
    return rows


def board_rules(name: str) -> dict[str, Any]:
    """The public numbers the interactive board draws with: premium layout, letter values, swap.

    ``layout`` rows use the ruleset's characters (``.`` plain, ``d`` DL, ``t`` TL, ``D`` DW,
    ``T`` TW); the page needs them for squares a tile covers now but not earlier in a replay.
    """
    ruleset = get_ruleset(name)
    return {
        "layout": list(ruleset.layout),
        "values": dict(ruleset.values),
        "rack_size": ruleset.rack_size,
        "swap_whole_rack": ruleset.swap_whole_rack,
    }


def board_columns(snapshot: dict[str, Any]) -> list[str]:
    """Column letters for the board's header row."""
    return [chr(ord("A") + c) for c in range(snapshot["board_size"])]


def _to_move_label(seats: list[Seat], to_move: int | None) -> str | None:
    """``First (alice)``: whose turn it is, by seat and name."""
    if to_move is None:
        return None
    seat = seats[to_move]
    name = _seat_name(seat)
    return f"{seat.get_position_display()} ({name})" if name else seat.get_position_display()


def match_page(match: Match, viewer: Viewer) -> dict[str, Any]:
    """Everything the match page shows ``viewer``: their snapshot, made readable.

    Built on :func:`snapshot_for`, so the page carries the viewer's own rack and nothing
    else hidden; the rest is presentation of public facts.
    """
    snapshot = snapshot_for(match, viewer)
    seats = list(match.seats.all())
    return {
        **snapshot,
        "status_label": match.get_status_display(),
        "visibility_label": match.get_visibility_display(),
        "result_text": result_text(match, seats),
        "end_reason_label": match.get_end_reason_display() if match.end_reason else "",
        "kickoff": match.kickoff_at,
        "no_show": match.no_show_at,
        "tournament": (
            {"id": match.tournament_id, "name": match.tournament.name}
            if match.tournament_id
            else None
        ),
        "round_number": match.round_number,
        "your_seat_label": Seat.Position(viewer.seat).label if viewer.seat is not None else None,
        "to_move_label": _to_move_label(seats, match.to_move),
        "grid": board_grid(snapshot),
        "board_rules": board_rules(match.ruleset),
        "columns": board_columns(snapshot),
        "move_lines": move_lines(snapshot),
        "can_rotate_key": can_rotate_key(match, viewer),
        "is_member": viewer.is_member,
    }


# ---------------------------------------------------------------- records: API, replay, GCG, bag
# Added for the JSON API and the exports. A replay shows what the viewer saw at that turn: the
# public facts, and their own rack as it was then. The seed appears only once the match is over.


def bag_proof(match: Match, seats: list[Seat] | None = None) -> dict[str, Any]:
    """The bag's commitment, each seat's contribution, and the seed once the match is over.

    A contribution alone predicts nothing (the draws are keyed by the secret seed), so it is
    public from the moment it is made; the seed is withheld until the end.
    """
    seats = seats if seats is not None else list(match.seats.all())
    return {
        "commitment": match.bag_commitment,
        "seed": match.bag_seed if match.is_over else None,
        "contributions": [
            {"position": seat.position, "value": seat.contribution or None} for seat in seats
        ],
    }


def api_match_row(match: Match) -> dict[str, Any]:
    """One match of the API's list: public facts only, in plain JSON types."""
    return {
        "id": match.id,
        "name": match.name,
        "status": match.status,
        "visibility": match.visibility,
        "ruleset": match.ruleset,
        "kickoff_at": _iso(match.kickoff_at),
        "finished_at": _iso(match.finished_at),
        "tournament_id": match.tournament_id,
        "round_number": match.round_number,
        "result": match.result,
        "end_reason": match.end_reason,
        "turn_number": match.turn_number,
        "to_move": match.to_move,
        "seats": [
            {
                "position": seat.position,
                "label": seat.get_position_display(),
                "member_id": seat.member_id,
                "name": _seat_name(seat),
                "score": seat.score,
            }
            for seat in match.seats.all()
        ],
    }


def api_match_state(match: Match, viewer: Viewer) -> dict[str, Any]:
    """The API's match state: the viewer's snapshot (as on the page) plus the bag's proof."""
    return {**snapshot_for(match, viewer), "bag": bag_proof(match)}


def _rack_after(turns: list[Turn], seats: list[Seat], position: int, count: int) -> str:
    """Seat ``position``'s rack after ``count`` turns.

    A rack changes only on its owner's turns, so it is the ``rack_before`` of the owner's next
    turn, or the stored rack when they have not moved since.
    """
    later = next((turn for turn in turns[count:] if turn.position == position), None)
    return later.rack_before if later is not None else seats[position].rack


def replay_snapshot(match: Match, viewer: Viewer, turn: int) -> dict[str, Any]:
    """The match as ``viewer`` saw it after ``turn`` turns (0: the opening position).

    The same public facts as :func:`snapshot_for` at that moment, and the viewer's own rack
    as it was then; the other rack only as a count. Raises ValueError for a turn that was not
    played.
    """
    turns = list(match.turns.order_by("number"))
    seats = list(match.seats.all())
    count = len(turns)
    if not 0 <= turn <= count:
        raise ValueError(f"turn must be between 0 and {count}")
    shown = turns[:turn]
    final = turn == count
    ruleset = get_ruleset(match.ruleset)
    if shown:
        # The final position's scores include the end-of-game rack adjustments.
        last = shown[-1]
        scores = [s.score for s in seats] if final else [last.first_total, last.second_total]
        bag_count = last.bag_count
    else:
        scores = [0, 0]
        dealt = match.game_state is not None
        bag_count = ruleset.tile_count - 2 * ruleset.rack_size if dealt else match.bag_count
    racks = [_rack_after(turns, seats, seat.position, turn) for seat in seats]
    return {
        "match_id": match.id,
        "name": match.name,
        "ruleset": match.ruleset,
        "lexicon": match.lexicon,
        "board_size": ruleset.board_size,
        "visibility": match.visibility,
        "turn": turn,
        "turn_count": count,
        "final": final,
        "status": match.status if final else Match.Status.LIVE,
        "result": match.result if final else "",
        "end_reason": match.end_reason if final else "",
        "turn_number": turn,
        "to_move": match.to_move if final else turns[turn].position,
        "bag_count": bag_count,
        "board": board_rows(match, shown),
        "moves": [turn_public(item) for item in shown],
        "bag_commitment": match.bag_commitment,
        "bag_seed": match.bag_seed if match.is_over else None,
        "seats": [
            {
                "position": seat.position,
                "label": seat.get_position_display(),
                "member_id": seat.member_id,
                "name": _seat_name(seat),
                "score": scores[seat.position],
                "rack_count": len(racks[seat.position]),
            }
            for seat in seats
        ],
        "your_seat": viewer.seat,
        "rack": list(racks[viewer.seat]) if viewer.seat is not None else None,
    }


def _gcg_notes(match: Match) -> list[str]:
    """Why a match ended when no rack line says so (a forfeit, a no-show)."""
    if match.end_reason in (Match.EndReason.FORFEIT, Match.EndReason.NO_SHOW):
        return [f"{result_text(match)}: {match.get_end_reason_display().lower()}."]
    return []


def gcg_for(match: Match, viewer: Viewer) -> str | None:
    """The match as a GCG record for ``viewer``, or None before the tiles are dealt.

    Rack letters (and a swap's letters) only for the viewer's own seat, as during play; the
    other seat's exchanges and end-of-game rack are counts. Blanks are lower case.
    """
    if match.game_state is None:
        return None
    seats = list(match.seats.all())
    game = Game.from_json(match.game_state)
    names = (
        _seat_name(seats[0]) or seats[0].get_position_display(),
        _seat_name(seats[1]) or seats[1].get_position_display(),
    )
    visible = frozenset() if viewer.seat is None else frozenset({viewer.seat})
    # The writer folds every name, the title and the notes onto one line each: a display
    # name cannot add a line to the record.
    return export_gcg(
        game,
        player_names=names,
        visible_racks=visible,
        title=match.name,
        game_id=("wordduel", str(match.id)),
        notes=_gcg_notes(match),
    )
