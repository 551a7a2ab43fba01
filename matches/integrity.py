"""Invariants every match must hold, checked from the database (``check_integrity``).

Tiles are conserved (a withdrawn phony's tiles back on its player's rack and its draw back in
the bag), the move log is contiguous, goes round the table in seat order and keeps its hash
chain (no turn changed after it was published), every move is the one accepted request that
made it (a turn lost to a wrong challenge was made by none), scores add up (challenges
included), each seat's place agrees with the game, and the status agrees with the log and
the deadlines. Tests call :func:`match_problems` after what they do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from engine import get_ruleset
from matches.chain import chain_problems
from matches.models import CommitReceipt, Match, Seat, Turn
from matches.places import places_of_game, result_of
from matches.stored_game import game_of


def _challenge_points(turn: Turn) -> int:
    return 0 if turn.challenge is None else int(turn.challenge["points"])


def _game_problems(match: Match, seats: list[Seat], turns: list[Turn]) -> Iterator[str]:
    """The stored position (matches/stored_game.py) against the rules and against the log."""
    try:
        game = game_of(match, seats)
    except (KeyError, TypeError, ValueError) as error:
        yield f"the stored position cannot be read ({error})"
        return
    full = sorted(get_ruleset(match.ruleset).full_bag)
    if game.tiles_in_play() != full:
        yield "board + racks + bag is not the ruleset's full set of tiles"
    if match.turn_number != len(turns):
        yield f"{len(turns)} turns logged, match {match.turn_number}"
    if match.bag_count != game.bag_count:
        yield f"bag count {match.bag_count} but the bag holds {game.bag_count}"
    if turns and turns[-1].bag_count != game.bag_count:
        yield f"the last turn left {turns[-1].bag_count} in the bag, the bag holds {game.bag_count}"
    for seat in seats:
        logged = sum(t.score + _challenge_points(t) for t in turns if t.position == seat.position)
        adjusted = sum(a.points for a in game.adjustments if a.player == seat.position)
        if seat.score != logged + adjusted:
            yield (
                f"seat {seat.position} scores {seat.score}, but its turns sum to {logged} "
                f"with {adjusted} in end adjustments"
            )
    totals = [0] * len(seats)
    for turn in turns:
        totals[turn.position] += turn.score + _challenge_points(turn)
        if list(turn.totals) != totals:
            shown = "/".join(str(total) for total in turn.totals)
            yield f"turn {turn.number}'s totals {shown} != {totals}"
            break
    played_to_the_end = game.is_over and match.end_reason in {
        "played_out",
        "six_scoreless",
        "finish_line",
    }
    if played_to_the_end:
        places = places_of_game(game)
        if match.end_reason != game.end_reason or match.result != result_of(places):
            yield "the recorded result differs from the game's"
        if [seat.place for seat in seats] != list(places):
            yield "the seats' places differ from the game's"
    if match.status == Match.Status.LIVE:
        open_ending = game.is_over and game.open_play is not None
        if game.is_over and not open_ending:
            yield "live, but the game is over"
        if match.to_move != (None if open_ending else game.to_move):
            yield f"to_move {match.to_move}, but the next turn is seat {game.to_move}'s"


def _log_problems(match: Match, seats: list[Seat], turns: list[Turn]) -> Iterator[str]:
    """Seats take turns, and each move is the one accepted request that made it.

    A commit and its receipt are written in one transaction, so a retried or replayed request
    can never log a second move, and a move never lacks the answer its sender was given.
    """
    first = int((match.game_state or {}).get("first", 0))
    for turn in turns:
        if turn.position != (first + turn.number - 1) % len(seats):
            yield f"turn {turn.number} was made by seat {turn.position} out of turn"
            break
    members = {seat.position: seat.member_id for seat in seats}
    made = Counter(
        (members.get(turn.position), turn.client_id) for turn in turns if not turn.lost_turn
    )
    accepted: Counter[tuple[int | None, str]] = Counter(
        CommitReceipt.objects.filter(
            match=match, accepted=True, kind=CommitReceipt.Kind.MOVE
        ).values_list("member_id", "client_id")
    )
    if made != accepted:
        extra, missing = made - accepted, accepted - made
        yield (
            f"moves and accepted requests differ: {sum(extra.values())} moves without their "
            f"receipt, {sum(missing.values())} accepted requests without exactly one move"
        )


def match_problems(match: Match) -> list[str]:
    """Every invariant ``match`` breaks, in words; empty when it is sound."""
    seats = list(match.seats.order_by("position"))
    turns = list(match.turns.order_by("number"))
    problems: list[str] = []
    if [seat.position for seat in seats] != list(range(match.seat_count)):
        return ["a match must have one seat for each place at its table, in order"]
    if [turn.number for turn in turns] != list(range(1, len(turns) + 1)):
        problems.append("turn numbers are not contiguous from 1")
    problems += chain_problems(turns, match.bag_commitment)
    problems += list(_log_problems(match, seats, turns))
    if match.is_over and (
        match.to_move is not None or match.turn_deadline_at is not None or not match.finished_at
    ):
        problems.append("over, yet with a player to move, a running deadline or no finish time")
    status = match.status
    if status == Match.Status.SCHEDULED:
        if match.game_state is not None or turns:
            problems.append("scheduled, but racks were dealt or moves logged")
    elif status == Match.Status.LIVE:
        if match.game_state is None:
            problems.append("live, but no game was dealt")
        if not all(seat.member_id for seat in seats):
            problems.append("live with an empty seat")
        waiting = match.to_move is None and (match.game_state or {}).get("open_play")
        if (match.to_move is None and not waiting) or match.turn_deadline_at is None:
            problems.append("live without a player to move or a turn deadline")
    elif status == Match.Status.FINISHED:
        if not match.result or not match.end_reason:
            problems.append("finished without a result and how it ended")
        if match.result and any(seat.place is None for seat in seats):
            problems.append("finished, yet a seat has no place")
    elif status == Match.Status.ABANDONED and match.result:
        problems.append("abandoned, yet with a result")
    if match.game_state is not None:
        problems += list(_game_problems(match, seats, turns))
    elif any(seat.rack for seat in seats):
        problems.append("racks held without a game")
    return problems


def integrity_report(queryset=None) -> Iterator[tuple[Match, list[str]]]:
    """(match, problems) for every unsound match."""
    for match in (queryset if queryset is not None else Match.objects.all()).iterator():
        problems = match_problems(match)
        if problems:
            yield match, problems
