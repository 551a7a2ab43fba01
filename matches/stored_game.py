"""A match's current position, kept once and read and written without its history.

The ``Turn`` rows are the match's log; nothing else repeats them. The position is what the
next move needs that the log does not say cheaply, and each part of it lives in one place:

- on the seats: each rack and score (``Seat.rack``, ``Seat.score``);
- on the match: the turn number and whose move (``Match.turn_number``, ``Match.to_move``),
  the bag's seed (``Match.bag_seed``; the salt is the seats' contributions);
- in ``Match.game_state``, a small JSON object: the board, the bag, how far the draw stream
  has run, the scoreless run, and once the game has ended, how and the rack adjustments;
  at a table or under a challenge rule also the seat that started (``first``), the seats
  owed a lost turn (``lost_turns``) and, while the last play is open to a challenge, what
  withdrawing it must restore (``open_play``: the engine's ``OpenPlay`` and the play's own
  turn record, hidden like the bag);
- the challenge rule and the finish line are the match's columns.

``Match.bag_count`` is the one derived column, written beside the bag by
:func:`store_position` for the listings and snapshots that must not read the hidden bag.
Reading a position costs the same at turn 2 as at turn 40: no earlier turn is parsed. The
whole game (for a record) is replayed from the log by :func:`matches.records.replayed_game`.
"""

from __future__ import annotations

from typing import Any, Final

from engine import Board, Game, get_ruleset
from engine.game import EndAdjustment, OpenPlay, TurnRecord
from engine.tiles import DrawStream
from matches.models import Match, Seat

#: ``game_state["format"]`` of a position (format 1 was the whole game with its history,
#: converted by migration 0008).
POSITION_FORMAT: Final = 2


def position_state(game: Game) -> dict[str, Any]:
    """What ``Match.game_state`` holds of ``game``: the parts with no column of their own."""
    state: dict[str, Any] = {
        "format": POSITION_FORMAT,
        "board": list(game.board.rows()),
        "bag": "".join(game.bag),
        "draws": game.stream.counter,
        "scoreless_streak": game.scoreless_streak,
        "end_reason": game.end_reason,
        "result": game.result,
        "adjustments": [adjustment.to_json() for adjustment in game.adjustments],
    }
    # A table's and a challenge rule's parts, only when they differ from a duel's (whose
    # position keeps exactly the keys it always had).
    if game.first:
        state["first"] = game.first
    if game.lost_turns:
        state["lost_turns"] = list(game.lost_turns)
    if game.open_play is not None:
        state["open_play"] = _open_play_state(game)
    return state


def _open_play_state(game: Game) -> dict[str, Any] | None:
    """The open play's restore facts and turn record (None when no play can be challenged)."""
    if game.open_play is None:
        return None
    return {"open": game.open_play.to_json(), "turn": game.turns[-1].to_json()}


def salt_of(seats: list[Seat]) -> bytes:
    """The draw stream's salt: the seats' contributions in seat order (the deal uses it too)."""
    return b"".join(bytes.fromhex(seat.contribution) for seat in seats)


def game_of(match: Match, seats: list[Seat]) -> Game:
    """The game at ``match``'s stored position (``seats`` in seat order), without history.

    Raises ValueError for a match whose tiles were never dealt or a state of another format.
    """
    state = match.game_state
    if state is None:
        raise ValueError(f"match {match.pk} has not been dealt")
    if state.get("format") != POSITION_FORMAT:
        raise ValueError(f"unsupported position format {state.get('format')!r}")
    board = Board.from_rows(state["board"])
    open_state = state.get("open_play")
    ruleset = get_ruleset(match.ruleset)
    return Game.resume(
        ruleset=ruleset,
        board=board,
        racks=tuple(tuple(seat.rack) for seat in seats),
        bag=tuple(state["bag"]),
        stream=DrawStream(bytes.fromhex(match.bag_seed), salt_of(seats), int(state["draws"])),
        scores=tuple(seat.score for seat in seats),
        turn_number=match.turn_number,
        scoreless_streak=int(state["scoreless_streak"]),
        end_reason=state["end_reason"],
        result=state["result"],
        adjustments=tuple(EndAdjustment.from_json(item) for item in state["adjustments"]),
        first=int(state.get("first", 0)),
        challenge=match.challenge_rule,  # type: ignore[arg-type]
        finish_line=match.finish_line,
        lost_turns=tuple(int(seat) for seat in state.get("lost_turns", ())),
        open_play=None if open_state is None else OpenPlay.from_json(open_state["open"]),
        last_turn=None
        if open_state is None
        else TurnRecord.from_json(
            open_state["turn"], board_size=board.size, max_tiles=ruleset.rack_size
        ),
    )


def adjustments_of(match: Match) -> list[EndAdjustment]:
    """The end-of-game rack adjustments (none before the end, or for an undealt match)."""
    state = match.game_state or {}
    return [EndAdjustment.from_json(item) for item in state.get("adjustments", [])]


#: What a move changes on a seat's row.
SEAT_FIELDS: Final = ["rack", "score"]


def changed_seats(match: Match, seats: list[Seat], game: Game) -> list[Seat]:
    """Put ``game``'s position on ``match`` and ``seats`` (not saved); the seats whose rack
    or score changed (most moves leave one seat as it was), for the caller to write."""
    match.game_state = position_state(game)
    match.turn_number = game.turn_number
    match.bag_count = game.bag_count
    match.to_move = None if game.is_over else game.to_move
    changed = []
    for seat in seats:
        rack, score = "".join(game.racks[seat.position]), game.scores[seat.position]
        if (seat.rack, seat.score) != (rack, score):
            seat.rack, seat.score = rack, score
            changed.append(seat)
    return changed


def store_position(match: Match, seats: list[Seat], game: Game) -> None:
    """Write ``game``'s position: the match's state and counters, and each changed seat.

    The match row itself is saved by the caller (with whatever else it changes); a seat
    whose rack and score are unchanged is not written.
    """
    for seat in changed_seats(match, seats, game):
        seat.save(update_fields=SEAT_FIELDS)
