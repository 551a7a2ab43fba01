"""A game of Word Duel as an immutable value: apply a move, get the next game.

``Game.apply`` either returns a new Game or raises a MoveError subclass whose message is
docs/RULES.md's text; a refused move changes nothing because nothing is ever changed in place.
The whole state, including the position in the random stream, round-trips through
``to_json``/``from_json``. A game can also be resumed from a stored position without its
history (``Game.resume``): what the next move needs, and nothing that grows with the game.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from .board import Board
from .errors import (
    BagTooSmall,
    MalformedMove,
    MatchOver,
    NotYourTurn,
    TilesNotOnRack,
    WholeRackSwap,
)
from .moves import Move, Pass, Play, Swap, check_move_shape, move_from_dict
from .rulesets import DEFAULT_RULESET, Ruleset, get_ruleset
from .scoring import WordScore, evaluate_play
from .tiles import DrawStream, draw_tiles, new_seed, remove_tiles, return_tiles, sort_rack

#: ``Game.end_reason`` values.
PLAYED_OUT: Final = "played_out"
SIX_SCORELESS: Final = "six_scoreless"
#: ``Game.result`` when nobody won (otherwise the winner's seat, 0 or 1).
DRAW: Final = "draw"

EndReason = Literal["played_out", "six_scoreless"]
Result = int | Literal["draw"]

JSON_FORMAT = 1


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One turn as it happened: who, what, with which rack, for how much, what was drawn."""

    player: int
    move: Move
    rack_before: tuple[str, ...]
    words: tuple[WordScore, ...]
    bingo: bool
    score: int
    #: Tiles drawn from the bag after the move (the replacements, for a swap).
    drawn: tuple[str, ...]
    #: Both scores after this turn.
    totals: tuple[int, int]

    @property
    def kind(self) -> str:
        """``play``, ``swap`` or ``pass``."""
        return self.move.kind

    @property
    def is_scoreless(self) -> bool:
        """A pass or a swap (a play is never scoreless, even one worth 0)."""
        return not isinstance(self.move, Play)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types."""
        return {
            "player": self.player,
            "move": self.move.to_dict(),
            "rack_before": "".join(self.rack_before),
            "words": [word.to_json() for word in self.words],
            "bingo": self.bingo,
            "score": self.score,
            "drawn": "".join(self.drawn),
            "totals": list(self.totals),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, board_size: int) -> TurnRecord:
        """Inverse of ``to_json``."""
        return cls(
            player=int(data["player"]),
            move=move_from_dict(data["move"], board_size=board_size),
            rack_before=tuple(data["rack_before"]),
            words=tuple(WordScore.from_json(word) for word in data["words"]),
            bingo=bool(data["bingo"]),
            score=int(data["score"]),
            drawn=tuple(data["drawn"]),
            totals=(int(data["totals"][0]), int(data["totals"][1])),
        )


@dataclass(frozen=True, slots=True)
class EndAdjustment:
    """An end-of-game score change: ``player`` gains ``points`` (negative: loses) for a rack."""

    player: int
    #: Whose remaining tiles were counted (the opponent's when going out gains them).
    rack_owner: int
    rack: tuple[str, ...]
    points: int
    totals: tuple[int, int]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types."""
        return {
            "player": self.player,
            "rack_owner": self.rack_owner,
            "rack": "".join(self.rack),
            "points": self.points,
            "totals": list(self.totals),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EndAdjustment:
        """Inverse of ``to_json``."""
        return cls(
            player=int(data["player"]),
            rack_owner=int(data["rack_owner"]),
            rack=tuple(data["rack"]),
            points=int(data["points"]),
            totals=(int(data["totals"][0]), int(data["totals"][1])),
        )


def _is_seat(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in (0, 1)


@dataclass(frozen=True, slots=True)
class Game:
    """The full state of one game. Build with ``Game.new``; advance with ``apply``."""

    ruleset: Ruleset
    board: Board
    racks: tuple[tuple[str, ...], tuple[str, ...]]
    bag: tuple[str, ...]
    stream: DrawStream
    scores: tuple[int, int] = (0, 0)
    to_move: int = 0
    scoreless_streak: int = 0
    end_reason: EndReason | None = None
    result: Result | None = None
    turns: tuple[TurnRecord, ...] = ()
    adjustments: tuple[EndAdjustment, ...] = ()
    #: Turns played before the first one ``turns`` holds: a game resumed from a stored
    #: position (:meth:`resume`) carries none of its history, only what it plays from there.
    turns_before: int = 0

    # -- creation ----------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        *,
        ruleset: str | Ruleset = DEFAULT_RULESET,
        seed: bytes | None = None,
        salt: bytes = b"",
    ) -> Game:
        """A new game: seven tiles to First (seat 0), then seven to Second (seat 1).

        ``seed`` (32 bytes) keys the draw stream; None takes a fresh one from ``secrets``.
        ``salt`` separates streams that share a seed (e.g. the match id).
        """
        rules = get_ruleset(ruleset)
        stream = DrawStream(new_seed() if seed is None else seed, salt)
        first, bag, stream = draw_tiles(rules.full_bag, rules.rack_size, stream)
        second, bag, stream = draw_tiles(bag, rules.rack_size, stream)
        return cls(
            ruleset=rules,
            board=Board.empty(rules.board_size),
            racks=(sort_rack(first), sort_rack(second)),
            bag=bag,
            stream=stream,
        )

    @classmethod
    def resume(
        cls,
        *,
        ruleset: str | Ruleset,
        board: Board,
        racks: tuple[tuple[str, ...], tuple[str, ...]],
        bag: tuple[str, ...],
        stream: DrawStream,
        scores: tuple[int, int],
        turn_number: int,
        scoreless_streak: int = 0,
        end_reason: EndReason | None = None,
        result: Result | None = None,
        adjustments: tuple[EndAdjustment, ...] = (),
    ) -> Game:
        """The game at a stored position after ``turn_number`` turns, without their history.

        Seats alternate from First, so the player to move follows from the turn number.
        Raises ValueError for a position no game could reach that way.
        """
        rules = get_ruleset(ruleset)
        if board.size != rules.board_size:
            raise ValueError("board size does not match the ruleset")
        if turn_number < 0 or scoreless_streak < 0:
            raise ValueError("a turn number and a scoreless run count up from 0")
        if end_reason not in (None, PLAYED_OUT, SIX_SCORELESS):
            raise ValueError(f"unknown end reason {end_reason!r}")
        if result not in (None, 0, 1, DRAW) or isinstance(result, bool):
            raise ValueError(f"unknown result {result!r}")
        return cls(
            ruleset=rules,
            board=board,
            racks=(sort_rack(racks[0]), sort_rack(racks[1])),
            bag=bag,
            stream=stream,
            scores=scores,
            to_move=turn_number % 2,
            scoreless_streak=scoreless_streak,
            end_reason=end_reason,
            result=result,
            adjustments=adjustments,
            turns_before=turn_number,
        )

    # -- read-only views ---------------------------------------------------------------------

    @property
    def seed(self) -> bytes:
        """The draw stream's secret seed."""
        return self.stream.seed

    @property
    def salt(self) -> bytes:
        """The draw stream's salt."""
        return self.stream.salt

    @property
    def bag_count(self) -> int:
        """Tiles left in the bag (public; the bag's contents are not)."""
        return len(self.bag)

    @property
    def turn_number(self) -> int:
        """Turns played so far (0 before the first move); the next turn's 0-based index."""
        return self.turns_before + len(self.turns)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.end_reason is not None

    @property
    def winner(self) -> int | None:
        """The winning seat, or None while running or after a draw."""
        return self.result if isinstance(self.result, int) else None

    @property
    def is_draw(self) -> bool:
        """True when the game ended level (after the ruleset's tie rule)."""
        return self.result == DRAW

    @property
    def history(self) -> tuple[TurnRecord | EndAdjustment, ...]:
        """Every turn held in order (all of them unless resumed), then the end adjustments."""
        return (*self.turns, *self.adjustments)

    @property
    def scores_before_adjustments(self) -> tuple[int, int]:
        """Scores after the last turn, before racks were counted (classic's tie-break)."""
        return (
            self.scores[0] - sum(a.points for a in self.adjustments if a.player == 0),
            self.scores[1] - sum(a.points for a in self.adjustments if a.player == 1),
        )

    def can_swap(self, player: int | None = None) -> bool:
        """Whether a swap is allowed now for ``player`` (default: the player to move)."""
        seat = self.to_move if player is None else player
        if self.is_over or not _is_seat(seat):
            return False
        return len(self.bag) >= self.ruleset.swap_bag_needed(len(self.racks[seat]))

    def tiles_in_play(self) -> list[str]:
        """Board + racks + bag as rack tiles: always the ruleset's full set (conservation)."""
        return sorted([*self.board.tiles(), *self.racks[0], *self.racks[1], *self.bag])

    # -- moves -------------------------------------------------------------------------------

    def apply(self, move: Move, *, player: int, lexicon: Container[str] | None) -> Game:
        """The game after ``player`` makes ``move``, or a MoveError with RULES.md's message.

        Checks: over, turn, then the move's shape and rules 4-9 (``lexicon=None`` skips
        rule 9). Kick-off (rule 1) and stale turns (rule 3) are the server's to check.
        """
        if self.is_over:
            raise MatchOver
        if not _is_seat(player) or player != self.to_move:
            raise NotYourTurn
        rules = self.ruleset
        check_move_shape(move, board_size=rules.board_size, max_tiles=rules.rack_size)
        if isinstance(move, Play):
            return self._play(move, player, lexicon)
        if isinstance(move, Swap):
            return self._swap(move, player)
        if isinstance(move, Pass):
            return self._scoreless(
                move, player, racks=self.racks, bag=self.bag, stream=self.stream, drawn=()
            )
        raise MalformedMove  # unreachable: check_move_shape accepts only the three kinds

    def _play(self, move: Play, player: int, lexicon: Container[str] | None) -> Game:
        rules = self.ruleset
        rack = self.racks[player]
        remaining = remove_tiles(rack, (tile.rack_tile for tile in move.tiles))
        if remaining is None:
            raise TilesNotOnRack
        outcome = evaluate_play(
            self.board,
            move.tiles,
            ruleset=rules,
            lexicon=lexicon,
            bingo=len(move.tiles) == rules.rack_size and len(rack) == rules.rack_size,
        )
        board = self.board.place(move.tiles)
        drawn, bag, stream = draw_tiles(self.bag, rules.rack_size - len(remaining), self.stream)
        new_rack = sort_rack((*remaining, *drawn))
        racks = _with(self.racks, player, new_rack)
        scores = _with(self.scores, player, self.scores[player] + outcome.score)
        record = TurnRecord(
            player, move, rack, outcome.words, outcome.bingo, outcome.score, drawn, scores
        )
        game = replace(
            self,
            board=board,
            racks=racks,
            bag=bag,
            stream=stream,
            scores=scores,
            to_move=1 - player,
            scoreless_streak=0,
            turns=(*self.turns, record),
        )
        if not new_rack and not bag:
            return game.finish(PLAYED_OUT, out_player=player)
        return game

    def _swap(self, move: Swap, player: int) -> Game:
        rules = self.ruleset
        rack = self.racks[player]
        if len(self.bag) < rules.swap_bag_needed(len(rack)):
            raise BagTooSmall
        remaining = remove_tiles(rack, move.tiles)
        if remaining is None:
            raise TilesNotOnRack
        if rules.swap_whole_rack and remaining:
            raise WholeRackSwap
        # Draw the replacements first, then the returned tiles go back into the bag.
        drawn, bag, stream = draw_tiles(self.bag, len(move.tiles), self.stream)
        bag = return_tiles(bag, move.tiles)
        racks = _with(self.racks, player, sort_rack((*remaining, *drawn)))
        return self._scoreless(move, player, racks=racks, bag=bag, stream=stream, drawn=drawn)

    def _scoreless(
        self,
        move: Move,
        player: int,
        *,
        racks: tuple[tuple[str, ...], tuple[str, ...]],
        bag: tuple[str, ...],
        stream: DrawStream,
        drawn: tuple[str, ...],
    ) -> Game:
        record = TurnRecord(player, move, self.racks[player], (), False, 0, drawn, self.scores)
        streak = self.scoreless_streak + 1
        game = replace(
            self,
            racks=racks,
            bag=bag,
            stream=stream,
            to_move=1 - player,
            scoreless_streak=streak,
            turns=(*self.turns, record),
        )
        if streak >= self.ruleset.scoreless_turns_to_end:
            return game.finish(SIX_SCORELESS)
        return game

    def finish(self, reason: EndReason, *, out_player: int | None = None) -> Game:
        """Apply the end-of-game rack adjustments and decide the result."""
        rules = self.ruleset
        scores = list(self.scores)
        adjustments: list[EndAdjustment] = []

        def adjust(player: int, owner: int, points: int) -> None:
            scores[player] += points
            rack = self.racks[owner]
            adjustments.append(EndAdjustment(player, owner, rack, points, _pair(scores)))

        if reason == PLAYED_OUT and out_player is not None:
            other = 1 - out_player
            value = rules.rack_value(self.racks[other])
            if rules.out_gains_opponent_rack and self.racks[other]:
                adjust(out_player, other, value)
            if self.racks[other]:
                adjust(other, other, -value)
        else:
            for seat in (0, 1):
                if self.racks[seat]:
                    adjust(seat, seat, -rules.rack_value(self.racks[seat]))

        final = _pair(scores)
        result: Result
        if final[0] != final[1]:
            result = 0 if final[0] > final[1] else 1
        else:
            before = self.scores
            if rules.tie_break_before_adjustments and before[0] != before[1]:
                result = 0 if before[0] > before[1] else 1
            else:
                result = DRAW
        return replace(
            self,
            scores=final,
            end_reason=reason,
            result=result,
            adjustments=tuple(adjustments),
        )

    # -- serialisation -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Everything, in plain JSON types. Contains the seed and the bag: server-side only.

        A resumed game holds only part of its history, so it has no whole record to give.
        """
        if self.turns_before:
            raise ValueError("a game resumed from a position holds no whole history")
        return {
            "format": JSON_FORMAT,
            "ruleset": self.ruleset.name,
            "seed": self.stream.seed.hex(),
            "salt": self.stream.salt.hex(),
            "counter": self.stream.counter,
            "board": list(self.board.rows()),
            "racks": ["".join(self.racks[0]), "".join(self.racks[1])],
            "bag": "".join(self.bag),
            "scores": list(self.scores),
            "to_move": self.to_move,
            "scoreless_streak": self.scoreless_streak,
            "end_reason": self.end_reason,
            "result": self.result,
            "turns": [turn.to_json() for turn in self.turns],
            "adjustments": [adjustment.to_json() for adjustment in self.adjustments],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Game:
        """Inverse of ``to_json``: ``Game.from_json(game.to_json()) == game``."""
        if data.get("format") != JSON_FORMAT:
            raise ValueError(f"unsupported game format {data.get('format')!r}")
        rules = get_ruleset(data["ruleset"])
        board = Board.from_rows(data["board"])
        if board.size != rules.board_size:
            raise ValueError("board size does not match the ruleset")
        end_reason = data["end_reason"]
        if end_reason not in (None, PLAYED_OUT, SIX_SCORELESS):
            raise ValueError(f"unknown end reason {end_reason!r}")
        result = data["result"]
        if result not in (None, 0, 1, DRAW) or isinstance(result, bool):
            raise ValueError(f"unknown result {result!r}")
        return cls(
            ruleset=rules,
            board=board,
            racks=(tuple(data["racks"][0]), tuple(data["racks"][1])),
            bag=tuple(data["bag"]),
            stream=DrawStream(
                bytes.fromhex(data["seed"]), bytes.fromhex(data["salt"]), int(data["counter"])
            ),
            scores=(int(data["scores"][0]), int(data["scores"][1])),
            to_move=int(data["to_move"]),
            scoreless_streak=int(data["scoreless_streak"]),
            end_reason=end_reason,
            result=result,
            turns=tuple(
                TurnRecord.from_json(turn, board_size=rules.board_size) for turn in data["turns"]
            ),
            adjustments=tuple(EndAdjustment.from_json(item) for item in data["adjustments"]),
        )


def _with(pair: tuple[Any, Any], index: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if index == 0 else (pair[0], value)


def _pair(values: list[int]) -> tuple[int, int]:
    return (values[0], values[1])


def replay(
    moves: Iterable[Move],
    *,
    ruleset: str | Ruleset = DEFAULT_RULESET,
    seed: bytes,
    salt: bytes = b"",
    lexicon: Container[str] | None = None,
) -> Game:
    """Recompute a game from its seed, salt and moves (each by the player to move then)."""
    game = Game.new(ruleset=ruleset, seed=seed, salt=salt)
    for move in moves:
        game = game.apply(move, player=game.to_move, lexicon=lexicon)
    return game


@dataclass(frozen=True, slots=True)
class DrawReplay:
    """What the bag dealt: the two opening racks and the tiles drawn after each turn."""

    opening_racks: tuple[tuple[str, ...], tuple[str, ...]]
    drawn: tuple[tuple[str, ...], ...]
    racks_before: tuple[tuple[str, ...], ...]


def replay_draws(
    seed: bytes,
    salt: bytes,
    moves: Iterable[Move],
    *,
    ruleset: str | Ruleset = DEFAULT_RULESET,
) -> DrawReplay:
    """Every rack and draw of a game from seed + salt + moves, to audit a stored game's bag."""
    start = Game.new(ruleset=ruleset, seed=seed, salt=salt)
    game = start
    for move in moves:
        game = game.apply(move, player=game.to_move, lexicon=None)
    return DrawReplay(
        opening_racks=start.racks,
        drawn=tuple(turn.drawn for turn in game.turns),
        racks_before=tuple(turn.rack_before for turn in game.turns),
    )
