"""Glue between the stored match record and the engine: the whole game, and the bag check.

The engine recomputes a game from its seed, its salt (the seats' contributions in seat order)
and its moves and challenges: :func:`replayed_game` gives the whole game with its history (for a
record), and :func:`verify_bag` compares that recomputation with what the server stored,
turn by turn. Both read hidden fields (the seed, the racks, a swap's letters): server-side
only; the bag check only once the match is over, when the seed is public anyway.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine import (
    Game,
    Move,
    MoveError,
    Pass,
    PlacedTile,
    Play,
    StealTake,
    Swap,
    SwapTake,
    Take,
    TakePlay,
    TurnRecord,
)
from matches.models import Match, Seat, Turn
from matches.stored_game import game_of, salt_of

__all__ = ["BagReport", "BagStillSecret", "move_of", "replayed_game", "salt_of", "verify_bag"]


class BagStillSecret(Exception):
    """The match is not over, so its seed is secret and its bag cannot be checked."""


@dataclass
class BagReport:
    """What :func:`verify_bag` found; ``ok`` when nothing disagreed."""

    match_id: int
    turns: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def move_of(turn: Turn) -> Move:
    """The engine move a stored turn made (a swap's letters are the mover's secret)."""
    if turn.kind == Turn.Kind.PLAY:
        tiles = tuple(
            PlacedTile(tile["row"], tile["col"], tile["letter"], bool(tile["blank"]))
            for tile in turn.placement
        )
        if turn.takes:  # Reword: its swaps and steals, then the play
            return TakePlay(tuple(take_of(take) for take in turn.takes), tiles)
        return Play(tiles)
    if turn.kind == Turn.Kind.SWAP:
        return Swap(tuple(turn.swapped))
    return Pass()


def take_of(take: dict[str, Any]) -> Take:
    """The engine's take a stored ``TakeView`` made."""
    if take["take"] == "steal":
        return StealTake(take["row"], take["col"])
    return SwapTake(take["row"], take["col"], take["placed"], bool(take["placed_blank"]))


class RecordedVerdicts:
    """A word list that gives a logged challenge the verdict it was given: every word is
    good but the phonies the turn names (so a replay never depends on the lexicon of today)."""

    def __init__(self, phonies: list[str]) -> None:
        self.phonies = frozenset(phonies)

    def __contains__(self, word: object) -> bool:
        return word not in self.phonies


def new_game(match: Match, seats: list[Seat]) -> Game:
    """The match's game as dealt: its table, challenge rule and finish line."""
    return Game.new(
        ruleset=match.ruleset,
        seed=bytes.fromhex(match.bag_seed),
        salt=salt_of(seats),
        players=len(seats),
        challenge=match.challenge_rule,  # type: ignore[arg-type]
        finish_line=match.finish_line,
    )


def replayed_steps(game: Game, turns: list[Turn]) -> Iterator[tuple[Turn, Game]]:
    """Each logged turn with the game after it (after its challenge, when it had one): a
    lost turn is the engine's own step after a challenge, so it is not applied again."""
    for turn in turns:
        if not turn.lost_turn:
            game = game.apply(move_of(turn), player=game.to_move, lexicon=None)
            if turn.challenge is not None:
                verdicts = RecordedVerdicts(list(turn.challenge["phonies"]))
                game = game.challenge(by=int(turn.challenge["by"]), lexicon=verdicts)
        yield turn, game


def replayed_game(match: Match, seats: list[Seat], turns: list[Turn]) -> Game:
    """The whole game, history included, replayed from the deal and the logged ``turns``.

    The engine applies each logged move as it did live (without the word list: each was
    checked when it was made) and each logged challenge with its recorded verdict. Raises
    MoveError if the log does not fit its own deal, which ``check_integrity`` and
    :func:`verify_bag` would report.
    """
    game = new_game(match, seats)
    for _turn, after in replayed_steps(game, turns):
        game = after
    return game


def _compare(report: BagReport, what: str, recorded: object, computed: object) -> None:
    if recorded != computed:
        report.mismatches.append(f"{what}: recorded {recorded!r}, recomputed {computed!r}")


def _check_turn(report: BagReport, turn: Turn, record: TurnRecord) -> None:
    where = f"turn {turn.number}"
    _compare(report, f"{where} seat", turn.position, record.player)
    _compare(report, f"{where} rack before", turn.rack_before, "".join(record.rack_before))
    _compare(report, f"{where} drawn", turn.drawn, "".join(record.drawn))
    _compare(report, f"{where} score", turn.score, record.score)


def verify_bag(match: Match) -> BagReport:
    """Recompute every rack and draw of a finished match and compare with the record.

    Checks the commitment against the revealed seed, then replays the recorded moves from
    seed + contributions with the engine (the live code path) and compares each turn's rack,
    draw and score, the bag counts, and the racks stored at the end. Raises BagStillSecret
    while the match is not over.
    """
    if not match.is_over:
        raise BagStillSecret(f"Match {match.id} is not over: its bag seed is still secret.")
    report = BagReport(match.id)
    seed = bytes.fromhex(match.bag_seed)
    commitment = hashlib.sha256(seed).hexdigest()
    if not hmac.compare_digest(commitment, match.bag_commitment):
        report.mismatches.append(
            f"commitment: published {match.bag_commitment}, sha256 of the seed is {commitment}"
        )
    seats = list(match.seats.order_by("position"))
    turns = list(match.turns.order_by("number"))
    if match.game_state is None:
        if turns:
            report.mismatches.append("turns were recorded but no tiles were ever dealt")
        return report
    try:
        game = new_game(match, seats)
    except ValueError as error:
        report.mismatches.append(f"contributions: {error}")
        return report
    _compare(report, "numbering", [turn.number for turn in turns], list(range(1, len(turns) + 1)))
    steps = replayed_steps(game, turns)
    while True:
        try:
            step = next(steps, None)
        except MoveError as error:
            report.mismatches.append(
                f"turn {report.turns + 1}: the recorded move does not fit the recomputed rack "
                f"({error.message})"
            )
            return report
        if step is None:
            break
        turn, game = step
        _check_turn(report, turn, game.turns[turn.number - 1])
        _compare(report, f"turn {turn.number} bag count", turn.bag_count, game.bag_count)
        report.turns += 1
    for seat in seats:
        _compare(
            report,
            f"final rack of seat {seat.position}",
            seat.rack,
            "".join(game.racks[seat.position]),
        )
    stored = game_of(match, seats)  # its racks are the seats' own, compared above
    _compare(report, "stored bag", stored.bag, game.bag)
    _compare(report, "stored stream position", stored.stream, game.stream)
    return report
