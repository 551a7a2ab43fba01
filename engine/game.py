"""A game of Word Duel as an immutable value: apply a move, get the next game.

``Game.apply`` either returns a new Game or raises a MoveError subclass whose message is
docs/RULES.md's text; a refused move changes nothing because nothing is ever changed in place.
The whole state, including the position in the random stream, round-trips through
``to_json``/``from_json``. A game can also be resumed from a stored position without its
history (``Game.resume``): what the next move needs, and nothing that grows with the game.

A table seats 2 to 4 players (as the ruleset allows); play passes in seat order. Under a
challenge rule other than ``void`` a play's words are not checked when it is made: it stands
provisionally until the next turn, and ``Game.challenge`` adjudicates it (a phony is withdrawn
exactly: tiles back on the rack, the drawn tiles back in the bag; the draw stream runs on,
so the tiles the player saw are not dealt to them again by rote).
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Final, Literal

from .board import Board
from .errors import (
    AlreadyChallenged,
    BagTooSmall,
    ChallengeAfterEnd,
    ChallengeRuleNotAllowed,
    ChallengesOff,
    MalformedMove,
    MatchOver,
    NoPlayToChallenge,
    NotYourTurn,
    OwnPlay,
    TableNotAllowed,
    TakesOff,
    TilesNotOnRack,
    UnknownChallengeRule,
    WholeRackSwap,
)
from .moves import (
    BLANK,
    MAX_TILES,
    Move,
    Pass,
    Play,
    Swap,
    TakePlay,
    check_move_shape,
    move_from_dict,
)
from .reword import evaluate_take_play
from .rulesets import DEFAULT_RULESET, Ruleset, get_ruleset
from .scoring import PlayScore, WordScore, evaluate_play
from .tiles import DrawStream, draw_tiles, new_seed, remove_tiles, return_tiles, sort_rack

#: ``Game.end_reason`` values.
PLAYED_OUT: Final = "played_out"
#: Three scoreless rounds (six turns at two; 3 x N at a table of N).
SIX_SCORELESS: Final = "six_scoreless"
#: Finish Line: a player reached the game's target score.
FINISH_LINE: Final = "finish_line"
#: ``Game.result`` when first place is shared (otherwise the winner's seat).
DRAW: Final = "draw"

EndReason = Literal["played_out", "six_scoreless", "finish_line"]
END_REASONS: Final = (PLAYED_OUT, SIX_SCORELESS, FINISH_LINE)
Result = int | Literal["draw"]

#: Challenge rules (Woogles' set). ``void``: phonies are refused when played (no challenges).
VOID: Final = "void"
SINGLE: Final = "single"
DOUBLE: Final = "double"
FIVE_POINT: Final = "five_point"
TEN_POINT: Final = "ten_point"
ChallengeRule = Literal["void", "single", "double", "five_point", "ten_point"]
CHALLENGE_RULES: Final = (VOID, SINGLE, DOUBLE, FIVE_POINT, TEN_POINT)
#: Points the challenged player gains when a challenged play stands.
CHALLENGE_BONUS: Final = {VOID: 0, SINGLE: 0, DOUBLE: 0, FIVE_POINT: 5, TEN_POINT: 10}

JSON_FORMAT = 1


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge as an action in a game's stream (for ``replay``): seat ``by`` challenges
    the last play."""

    kind: ClassVar[str] = "challenge"
    by: int


@dataclass(frozen=True, slots=True)
class ChallengeResult:
    """How a challenge of a play ended: who challenged, the phonies, the points it moved."""

    by: int
    #: The words of the play that are not in the lexicon (empty: the play stands).
    phonies: tuple[str, ...]
    #: The play's player's score change: minus the play's score when withdrawn, the bonus
    #: (0, 5 or 10) when it stands.
    points: int

    @property
    def withdrawn(self) -> bool:
        """Whether the play was a phony and was taken back."""
        return bool(self.phonies)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types."""
        return {"by": self.by, "phonies": list(self.phonies), "points": self.points}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChallengeResult:
        """Inverse of ``to_json``."""
        return cls(int(data["by"]), tuple(str(w) for w in data["phonies"]), int(data["points"]))


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One turn as it happened: who, what, with which rack, for how much, what was drawn."""

    player: int
    move: Move
    rack_before: tuple[str, ...]
    words: tuple[WordScore, ...]
    bingo: bool
    score: int
    #: Tiles drawn from the bag after the move (the replacements, for a swap; a withdrawn
    #: play's, which went back into the bag).
    drawn: tuple[str, ...]
    #: Every seat's score after this turn (and after its challenge, if any).
    totals: tuple[int, ...]
    #: The challenge of this play, once adjudicated.
    challenge: ChallengeResult | None = None
    #: A turn lost to a wrong challenge under the double rule (recorded as a pass).
    lost_turn: bool = False
    #: Reword: the tiles a take-play took, in order, as the board held them (lower case: a
    #: blank, which went back to the rack unlettered).
    taken: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """``play``, ``swap``, ``pass`` or ``take_play``."""
        return self.move.kind

    @property
    def withdrawn(self) -> bool:
        """A phony taken back after a challenge."""
        return self.challenge is not None and self.challenge.withdrawn

    @property
    def is_scoreless(self) -> bool:
        """A pass, a swap, a lost turn or a withdrawn play (a play is never scoreless, even
        one worth 0)."""
        return not isinstance(self.move, Play | TakePlay) or self.withdrawn

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types (``challenge``/``lost_turn`` only when they apply)."""
        data: dict[str, Any] = {
            "player": self.player,
            "move": self.move.to_dict(),
            "rack_before": "".join(self.rack_before),
            "words": [word.to_json() for word in self.words],
            "bingo": self.bingo,
            "score": self.score,
            "drawn": "".join(self.drawn),
            "totals": list(self.totals),
        }
        if self.challenge is not None:
            data["challenge"] = self.challenge.to_json()
        if self.lost_turn:
            data["lost_turn"] = True
        if self.taken:
            data["taken"] = "".join(self.taken)
        return data

    @classmethod
    def from_json(
        cls, data: dict[str, Any], *, board_size: int, max_tiles: int = MAX_TILES
    ) -> TurnRecord:
        """Inverse of ``to_json`` (``max_tiles``: the ruleset's rack size)."""
        challenge = data.get("challenge")
        return cls(
            player=int(data["player"]),
            move=move_from_dict(data["move"], board_size=board_size, max_tiles=max_tiles),
            rack_before=tuple(data["rack_before"]),
            words=tuple(WordScore.from_json(word) for word in data["words"]),
            bingo=bool(data["bingo"]),
            score=int(data["score"]),
            drawn=tuple(data["drawn"]),
            totals=tuple(int(total) for total in data["totals"]),
            challenge=None if challenge is None else ChallengeResult.from_json(challenge),
            lost_turn=bool(data.get("lost_turn", False)),
            taken=tuple(data.get("taken", "")),
        )


@dataclass(frozen=True, slots=True)
class EndAdjustment:
    """An end-of-game score change: ``player`` gains ``points`` (negative: loses) for a rack."""

    player: int
    #: Whose remaining tiles were counted (another seat's when going out gains them).
    rack_owner: int
    rack: tuple[str, ...]
    points: int
    totals: tuple[int, ...]

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
            totals=tuple(int(total) for total in data["totals"]),
        )


@dataclass(frozen=True, slots=True)
class OpenPlay:
    """The last play, open to a challenge: what withdrawing it must restore besides the
    board, the rack and the bag (which its turn record gives)."""

    #: The draw stream's position before the play's tiles were drawn (for the record: a
    #: withdrawal does not rewind the stream).
    counter: int
    #: The scoreless run before the play (a withdrawn play continues it).
    scoreless_streak: int

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types."""
        return {"counter": self.counter, "scoreless_streak": self.scoreless_streak}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OpenPlay:
        """Inverse of ``to_json``."""
        return cls(int(data["counter"]), int(data["scoreless_streak"]))


def _is_seat(value: object, players: int = 2) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players


def first_tile_rank(tile: str) -> int:
    """Order of the draw for who starts: a blank beats any letter, then A, B, ... Z."""
    return -1 if tile == BLANK else ord(tile)


def draw_for_first(
    full_bag: tuple[str, ...], players: int, stream: DrawStream
) -> tuple[int, tuple[tuple[str, ...], ...], DrawStream]:
    """Who starts, drawn from the stream: (the starting seat, each round's draws, the stream).

    Each contending seat, in seat order, draws one tile from the full bag; the tile closest to
    A starts, a blank beats any letter; the seats tied for best draw again. Each round is one
    tile per seat (``""`` for a seat no longer drawing); the tiles go back after every round.
    """
    contenders = list(range(players))
    rounds: list[tuple[str, ...]] = []
    while True:
        drawn, _, stream = draw_tiles(full_bag, len(contenders), stream)
        row = [""] * players
        for seat, tile in zip(contenders, drawn, strict=True):
            row[seat] = tile
        rounds.append(tuple(row))
        best = min(first_tile_rank(tile) for tile in drawn)
        contenders = [
            s for s, t in zip(contenders, drawn, strict=True) if first_tile_rank(t) == best
        ]
        if len(contenders) == 1:
            return contenders[0], tuple(rounds), stream


def _top_seats(
    final: tuple[int, ...], before: tuple[int, ...], *, tie_break: bool
) -> tuple[int, ...]:
    """The seats in first place: the highest final score, a tie broken (if the ruleset says
    so) by the higher score before the racks were counted, then shared."""
    best = max(final)
    top = [seat for seat, score in enumerate(final) if score == best]
    if len(top) > 1 and tie_break:
        best_before = max(before[seat] for seat in top)
        top = [seat for seat in top if before[seat] == best_before]
    return tuple(top)


@dataclass(frozen=True, slots=True)
class Game:
    """The full state of one game. Build with ``Game.new``; advance with ``apply``."""

    ruleset: Ruleset
    board: Board
    #: One rack per seat (2 to 4).
    racks: tuple[tuple[str, ...], ...]
    bag: tuple[str, ...]
    stream: DrawStream
    scores: tuple[int, ...] = (0, 0)
    to_move: int = 0
    scoreless_streak: int = 0
    end_reason: EndReason | None = None
    result: Result | None = None
    turns: tuple[TurnRecord, ...] = ()
    adjustments: tuple[EndAdjustment, ...] = ()
    #: Turns played before the first one ``turns`` holds: a game resumed from a stored
    #: position (:meth:`resume`) carries none of its history, only what it plays from there.
    turns_before: int = 0
    #: The seat that made the first move (drawn for at a table of 3-4).
    first: int = 0
    #: The draw for who starts, one tuple of tiles per round (empty when none was drawn).
    first_draws: tuple[tuple[str, ...], ...] = ()
    challenge_rule: ChallengeRule = VOID
    #: Finish Line: the score that ends the game when a player reaches it (None: off).
    finish_line: int | None = None
    #: The last play while it can still be challenged.
    open_play: OpenPlay | None = None
    #: Seats owed a lost turn (a wrong double challenge), taken when their turn comes.
    lost_turns: tuple[int, ...] = ()

    # -- creation ----------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        *,
        ruleset: str | Ruleset = DEFAULT_RULESET,
        seed: bytes | None = None,
        salt: bytes = b"",
        players: int = 2,
        challenge: ChallengeRule = VOID,
        finish_line: int | None = None,
    ) -> Game:
        """A new game of ``players`` seats, each dealt its rack in seat order (First, seat 0,
        then seat 1, ...).

        At a table of 3-4 (or of two, if the ruleset says so) the seats first draw for who
        starts (``draw_for_first``); the tiles go back before the deal. ``seed`` (32 bytes)
        keys the draw stream; None takes a fresh one from ``secrets``. ``salt`` separates
        streams that share a seed (e.g. the match id). ``challenge`` is the challenge rule;
        ``finish_line`` a target score that ends the game.
        """
        rules = get_ruleset(ruleset)
        if isinstance(players, bool) or players not in rules.seat_counts:
            raise TableNotAllowed(f"The {rules.name} ruleset does not seat {players!r} players.")
        if challenge not in CHALLENGE_RULES:
            raise UnknownChallengeRule(f"No challenge rule is called {challenge!r}.")
        if rules.swap_and_steal and challenge != VOID:
            raise ChallengeRuleNotAllowed(
                f"The {rules.name} ruleset checks every word as it is played: no challenges."
            )
        if finish_line is not None and (isinstance(finish_line, bool) or finish_line < 1):
            raise ValueError("a finish line is a positive score")
        stream = DrawStream(new_seed() if seed is None else seed, salt)
        first = 0
        first_draws: tuple[tuple[str, ...], ...] = ()
        if players > 2 or rules.draw_for_first_at_two:
            first, first_draws, stream = draw_for_first(rules.full_bag, players, stream)
        bag = rules.full_bag
        racks: list[tuple[str, ...]] = []
        for _ in range(players):
            rack, bag, stream = draw_tiles(bag, rules.rack_size, stream)
            racks.append(sort_rack(rack))
        return cls(
            ruleset=rules,
            board=Board.empty(rules.board_size),
            racks=tuple(racks),
            bag=bag,
            stream=stream,
            scores=(0,) * players,
            to_move=first,
            first=first,
            first_draws=first_draws,
            challenge_rule=challenge,
            finish_line=finish_line,
        )

    @classmethod
    def resume(
        cls,
        *,
        ruleset: str | Ruleset,
        board: Board,
        racks: tuple[tuple[str, ...], ...],
        bag: tuple[str, ...],
        stream: DrawStream,
        scores: tuple[int, ...],
        turn_number: int,
        scoreless_streak: int = 0,
        end_reason: EndReason | None = None,
        result: Result | None = None,
        adjustments: tuple[EndAdjustment, ...] = (),
        first: int = 0,
        challenge: ChallengeRule = VOID,
        finish_line: int | None = None,
        lost_turns: tuple[int, ...] = (),
        open_play: OpenPlay | None = None,
        last_turn: TurnRecord | None = None,
    ) -> Game:
        """The game at a stored position after ``turn_number`` turns, without their history.

        Seats take turns in order from ``first`` (every turn, a lost one too, is one turn), so
        the player to move follows from the turn number. A play still open to a challenge is
        resumed with ``open_play`` and its record ``last_turn`` (the one turn it then holds);
        without them the resumed game has no play to challenge. Raises ValueError for a
        position no game could reach that way.
        """
        rules = get_ruleset(ruleset)
        players = len(racks)
        if board.size != rules.board_size:
            raise ValueError("board size does not match the ruleset")
        if players not in rules.seat_counts or len(scores) != players:
            raise ValueError("racks and scores do not make a table the ruleset allows")
        if turn_number < 0 or scoreless_streak < 0:
            raise ValueError("a turn number and a scoreless run count up from 0")
        if end_reason not in (None, *END_REASONS):
            raise ValueError(f"unknown end reason {end_reason!r}")
        if not (result in (None, DRAW) or _is_seat(result, players)):
            raise ValueError(f"unknown result {result!r}")
        if not _is_seat(first, players) or not all(_is_seat(s, players) for s in lost_turns):
            raise ValueError("a seat is out of range")
        if challenge not in CHALLENGE_RULES:
            raise UnknownChallengeRule(f"No challenge rule is called {challenge!r}.")
        if (open_play is None) != (last_turn is None) or (open_play and turn_number < 1):
            raise ValueError("an open play is resumed with its turn's record")
        if open_play is not None and challenge == VOID:
            raise ValueError("no play is open to a challenge under the void rule")
        held = () if last_turn is None else (last_turn,)
        return cls(
            ruleset=rules,
            board=board,
            racks=tuple(sort_rack(rack) for rack in racks),
            bag=bag,
            stream=stream,
            scores=scores,
            to_move=(first + turn_number) % players,
            scoreless_streak=scoreless_streak,
            end_reason=end_reason,
            result=result,
            adjustments=adjustments,
            turns=held,
            turns_before=turn_number - len(held),
            first=first,
            challenge_rule=challenge,
            finish_line=finish_line,
            open_play=open_play,
            lost_turns=lost_turns,
        )

    # -- read-only views ---------------------------------------------------------------------

    @property
    def players(self) -> int:
        """How many seats the table has (2 to 4)."""
        return len(self.racks)

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
        """Whether the game has ended (under a challenge rule its last play may still be
        challenged: see ``open_play``, and a withdrawn phony resumes the game)."""
        return self.end_reason is not None

    @property
    def winner(self) -> int | None:
        """The winning seat, or None while running or when first place is shared."""
        return self.result if isinstance(self.result, int) else None

    @property
    def winners(self) -> tuple[int, ...]:
        """Every seat in first place once the game is over (one, or several sharing it)."""
        if not self.is_over:
            return ()
        if isinstance(self.result, int):
            return (self.result,)
        return _top_seats(
            self.scores,
            self.scores_before_adjustments,
            tie_break=self.ruleset.tie_break_before_adjustments,
        )

    @property
    def is_draw(self) -> bool:
        """True when the game ended level (after the ruleset's tie rule)."""
        return self.result == DRAW

    @property
    def history(self) -> tuple[TurnRecord | EndAdjustment, ...]:
        """Every turn held in order (all of them unless resumed), then the end adjustments."""
        return (*self.turns, *self.adjustments)

    @property
    def scores_before_adjustments(self) -> tuple[int, ...]:
        """Scores after the last turn, before racks were counted (classic's tie-break)."""
        return tuple(
            score - sum(a.points for a in self.adjustments if a.player == seat)
            for seat, score in enumerate(self.scores)
        )

    @property
    def scoreless_turns_to_end(self) -> int:
        """Scoreless turns in a row that end this game: three rounds of the table."""
        return self.ruleset.scoreless_turns_at(self.players)

    @property
    def actions(self) -> tuple[Move | Challenge, ...]:
        """The moves and challenges that made this game, for ``replay`` (lost turns follow
        from the challenges and are left out)."""
        actions: list[Move | Challenge] = []
        for turn in self.turns:
            if not turn.lost_turn:
                actions.append(turn.move)
            if turn.challenge is not None:
                actions.append(Challenge(turn.challenge.by))
        return tuple(actions)

    @property
    def challengers(self) -> tuple[int, ...]:
        """The seats that may challenge the last play now (none when no play is open)."""
        if self.challenge_rule == VOID or self.open_play is None:
            return ()
        player = self.turns[-1].player
        return tuple(seat for seat in range(self.players) if seat != player)

    def can_swap(self, player: int | None = None) -> bool:
        """Whether a swap is allowed now for ``player`` (default: the player to move)."""
        seat = self.to_move if player is None else player
        if self.is_over or not _is_seat(seat, self.players):
            return False
        return len(self.bag) >= self.ruleset.swap_bag_needed(len(self.racks[seat]))

    def tiles_in_play(self) -> list[str]:
        """Board + racks + bag as rack tiles: always the ruleset's full set (conservation)."""
        return sorted([*self.board.tiles(), *(t for rack in self.racks for t in rack), *self.bag])

    def next_seat(self, seat: int) -> int:
        """The seat after ``seat`` in the order of play."""
        return (seat + 1) % self.players

    # -- moves -------------------------------------------------------------------------------

    def apply(self, move: Move, *, player: int, lexicon: Container[str] | None) -> Game:
        """The game after ``player`` makes ``move``, or a MoveError with RULES.md's message.

        Checks: over, turn, then the move's shape and rules 4-9 (``lexicon=None`` skips
        rule 9; so does a challenge rule other than void, where a play waits for a
        challenge instead). Kick-off (rule 1) and stale turns (rule 3) are the server's.
        """
        if self.is_over:
            raise MatchOver
        if not _is_seat(player, self.players) or player != self.to_move:
            raise NotYourTurn
        rules = self.ruleset
        if isinstance(move, TakePlay) and not rules.swap_and_steal:
            raise TakesOff
        check_move_shape(move, board_size=rules.board_size, max_tiles=rules.rack_size)
        if isinstance(move, Play):
            game = self._play(move, player, lexicon if self.challenge_rule == VOID else None)
        elif isinstance(move, TakePlay):
            game = self._take_play(move, player, lexicon)
        elif isinstance(move, Swap):
            game = self._swap(move, player)
        elif isinstance(move, Pass):
            game = _scoreless(
                self, move, player, racks=self.racks, bag=self.bag, stream=self.stream, drawn=()
            )
        else:
            raise MalformedMove  # unreachable: check_move_shape accepts only the three kinds
        return _take_lost_turns(game)

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
            bingo=len(move.tiles) >= rules.bingo_tiles and len(rack) >= rules.bingo_tiles,
        )
        return self._placed(move, player, self.board.place(move.tiles), remaining, outcome)

    def _take_play(self, move: TakePlay, player: int, lexicon: Container[str] | None) -> Game:
        """Reword: the whole turn checked (``reword.evaluate_take_play``), then applied."""
        turn = evaluate_take_play(
            self.board, self.racks[player], move, ruleset=self.ruleset, lexicon=lexicon
        )
        board = turn.after_takes.board.place(move.tiles)
        taken = turn.after_takes.taken_faces
        return self._placed(move, player, board, turn.remaining, turn.score, taken=taken)

    def _placed(
        self,
        move: Play | TakePlay,
        player: int,
        board: Board,
        remaining: tuple[str, ...],
        outcome: PlayScore,
        *,
        taken: tuple[str, ...] = (),
    ) -> Game:
        """The game after a checked play: the board given, the draw, the score, the record."""
        rules = self.ruleset
        rack = self.racks[player]
        drawn, bag, stream = draw_tiles(self.bag, rules.rack_size - len(remaining), self.stream)
        new_rack = sort_rack((*remaining, *drawn))
        racks = _with(self.racks, player, new_rack)
        scores = _with(self.scores, player, self.scores[player] + outcome.score)
        record = TurnRecord(
            player,
            move,
            rack,
            outcome.words,
            outcome.bingo,
            outcome.score,
            drawn,
            scores,
            taken=taken,
        )
        open_play = None
        if self.challenge_rule != VOID:
            open_play = OpenPlay(self.stream.counter, self.scoreless_streak)
        game = replace(
            self,
            board=board,
            racks=racks,
            bag=bag,
            stream=stream,
            scores=scores,
            to_move=self.next_seat(player),
            scoreless_streak=0,
            turns=(*self.turns, record),
            open_play=open_play,
        )
        return _end_after_play(game, player)

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
        return _scoreless(self, move, player, racks=racks, bag=bag, stream=stream, drawn=drawn)

    # -- challenges --------------------------------------------------------------------------

    def challenge(self, *, by: int, lexicon: Container[str]) -> Game:
        """The game after seat ``by`` challenges the last play, adjudicated on ``lexicon``.

        Every word the play made is checked. A phony is withdrawn: its tiles go back on the
        player's rack, the tiles drawn for it back in the bag (the stream runs on: rewound, it
        would deal the player the tiles they saw again); the player's turn is lost (a
        scoreless turn; a game the play had ended resumes). A good play stands: ``single``
        costs nothing, ``double`` costs the challenger their next turn, ``five_point`` and
        ``ten_point`` give the player 5/10 points. A ChallengeRefused subclass says why a
        challenge is not allowed (nothing changes).
        """
        if self.challenge_rule == VOID:
            raise ChallengesOff
        if not _is_seat(by, self.players):
            raise NotYourTurn
        if self.open_play is None:
            if self.is_over:
                raise ChallengeAfterEnd
            last = [turn for turn in self.turns[-2:] if not turn.lost_turn][-1:]
            if last and last[0].challenge is not None:
                raise AlreadyChallenged
            raise NoPlayToChallenge
        record = self.turns[-1]
        if by == record.player:
            raise OwnPlay
        phonies = tuple(word.word for word in record.words if word.word not in lexicon)
        if phonies:
            return self._withdraw(record, by, phonies, self.open_play)
        return self._stand(record, by)

    def _unfinished(self) -> Game:
        """This game as it was before ``finish``: no adjustments, no result."""
        if not self.is_over:
            return self
        return replace(
            self,
            scores=self.scores_before_adjustments,
            end_reason=None,
            result=None,
            adjustments=(),
        )

    def _withdraw(
        self, record: TurnRecord, by: int, phonies: tuple[str, ...], open_play: OpenPlay
    ) -> Game:
        game = self._unfinished()
        player = record.player
        assert isinstance(record.move, Play)
        scores = _with(game.scores, player, game.scores[player] - record.score)
        result = ChallengeResult(by, phonies, -record.score)
        streak = open_play.scoreless_streak + 1
        game = replace(
            game,
            board=game.board.remove((tile.row, tile.col) for tile in record.move.tiles),
            racks=_with(game.racks, player, record.rack_before),
            bag=return_tiles(game.bag, record.drawn),
            stream=game.stream,  # not rewound: the player has seen the tiles it drew
            scores=scores,
            scoreless_streak=streak,
            turns=(*game.turns[:-1], replace(record, challenge=result, totals=scores)),
            open_play=None,
        )
        if streak >= game.scoreless_turns_to_end:
            return game.finish(SIX_SCORELESS)
        return game

    def _stand(self, record: TurnRecord, by: int) -> Game:
        ended = self.end_reason
        game = self._unfinished()
        player = record.player
        bonus = CHALLENGE_BONUS[self.challenge_rule]
        scores = _with(game.scores, player, game.scores[player] + bonus)
        result = ChallengeResult(by, (), bonus)
        game = replace(
            game,
            scores=scores,
            turns=(*game.turns[:-1], replace(record, challenge=result, totals=scores)),
            open_play=None,
        )
        if ended == PLAYED_OUT:
            return game.finish(PLAYED_OUT, out_player=player)
        game = _end_after_play(game, player)
        if game.is_over or self.challenge_rule != DOUBLE:
            return game
        return _take_lost_turns(replace(game, lost_turns=(*game.lost_turns, by)))

    # -- the end -----------------------------------------------------------------------------

    def finish(self, reason: EndReason, *, out_player: int | None = None) -> Game:
        """Apply the end-of-game rack adjustments and decide the result.

        Going out: each other seat in turn after the goer-out (in the order of play) gives
        its rack's value to the goer-out (if the ruleset says so) and loses it. Three
        scoreless rounds: every rack is deducted. Finish Line: no rack is counted.
        """
        rules = self.ruleset
        scores = list(self.scores)
        adjustments: list[EndAdjustment] = []

        def adjust(player: int, owner: int, points: int) -> None:
            scores[player] += points
            rack = self.racks[owner]
            adjustments.append(EndAdjustment(player, owner, rack, points, tuple(scores)))

        if reason == PLAYED_OUT and out_player is not None:
            for step in range(1, self.players):
                other = (out_player + step) % self.players
                value = rules.rack_value(self.racks[other])
                if rules.out_gains_opponent_rack and self.racks[other]:
                    adjust(out_player, other, value)
                if self.racks[other]:
                    adjust(other, other, -value)
        elif reason != FINISH_LINE:
            for seat in range(self.players):
                if self.racks[seat]:
                    adjust(seat, seat, -rules.rack_value(self.racks[seat]))

        final = tuple(scores)
        top = _top_seats(final, self.scores, tie_break=rules.tie_break_before_adjustments)
        result: Result = top[0] if len(top) == 1 else DRAW
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

        A two-player void game without a finish line writes exactly the keys it always did;
        the table's and the options' keys appear only when they differ from that.
        A resumed game holds only part of its history, so it has no whole record to give.
        """
        if self.turns_before:
            raise ValueError("a game resumed from a position holds no whole history")
        data: dict[str, Any] = {
            "format": JSON_FORMAT,
            "ruleset": self.ruleset.name,
            "seed": self.stream.seed.hex(),
            "salt": self.stream.salt.hex(),
            "counter": self.stream.counter,
            "board": list(self.board.rows()),
            "racks": ["".join(rack) for rack in self.racks],
            "bag": "".join(self.bag),
            "scores": list(self.scores),
            "to_move": self.to_move,
            "scoreless_streak": self.scoreless_streak,
            "end_reason": self.end_reason,
            "result": self.result,
            "turns": [turn.to_json() for turn in self.turns],
            "adjustments": [adjustment.to_json() for adjustment in self.adjustments],
        }
        if self.first or self.first_draws:
            data["first"] = self.first
            data["first_draws"] = ["".join(f"{t or '-'}" for t in row) for row in self.first_draws]
        if self.challenge_rule != VOID:
            data["challenge_rule"] = self.challenge_rule
        if self.finish_line is not None:
            data["finish_line"] = self.finish_line
        if self.open_play is not None:
            data["open_play"] = self.open_play.to_json()
        if self.lost_turns:
            data["lost_turns"] = list(self.lost_turns)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Game:
        """Inverse of ``to_json``: ``Game.from_json(game.to_json()) == game``."""
        if data.get("format") != JSON_FORMAT:
            raise ValueError(f"unsupported game format {data.get('format')!r}")
        rules = get_ruleset(data["ruleset"])
        board = Board.from_rows(data["board"])
        if board.size != rules.board_size:
            raise ValueError("board size does not match the ruleset")
        players = len(data["racks"])
        if players not in rules.seat_counts or len(data["scores"]) != players:
            raise ValueError("racks and scores do not make a table the ruleset allows")
        end_reason = data["end_reason"]
        if end_reason not in (None, *END_REASONS):
            raise ValueError(f"unknown end reason {end_reason!r}")
        result = data["result"]
        if not (result in (None, DRAW) or _is_seat(result, players)):
            raise ValueError(f"unknown result {result!r}")
        challenge_rule = data.get("challenge_rule", VOID)
        if challenge_rule not in CHALLENGE_RULES:
            raise UnknownChallengeRule(f"No challenge rule is called {challenge_rule!r}.")
        open_play = data.get("open_play")
        return cls(
            ruleset=rules,
            board=board,
            racks=tuple(tuple(rack) for rack in data["racks"]),
            bag=tuple(data["bag"]),
            stream=DrawStream(
                bytes.fromhex(data["seed"]), bytes.fromhex(data["salt"]), int(data["counter"])
            ),
            scores=tuple(int(score) for score in data["scores"]),
            to_move=int(data["to_move"]),
            scoreless_streak=int(data["scoreless_streak"]),
            end_reason=end_reason,
            result=result,
            turns=tuple(
                TurnRecord.from_json(turn, board_size=rules.board_size, max_tiles=rules.rack_size)
                for turn in data["turns"]
            ),
            adjustments=tuple(EndAdjustment.from_json(item) for item in data["adjustments"]),
            first=int(data.get("first", 0)),
            first_draws=tuple(
                tuple("" if t == "-" else t for t in row) for row in data.get("first_draws", ())
            ),
            challenge_rule=challenge_rule,
            finish_line=None if data.get("finish_line") is None else int(data["finish_line"]),
            open_play=None if open_play is None else OpenPlay.from_json(open_play),
            lost_turns=tuple(int(seat) for seat in data.get("lost_turns", ())),
        )


def _end_after_play(game: Game, player: int) -> Game:
    """End the game if the play that ``player`` just made (and kept) ends it."""
    if not game.racks[player] and not game.bag:
        return game.finish(PLAYED_OUT, out_player=player)
    if game.finish_line is not None and game.scores[player] >= game.finish_line:
        return game.finish(FINISH_LINE)
    return game


def _scoreless(
    game: Game,
    move: Move,
    player: int,
    *,
    racks: tuple[tuple[str, ...], ...],
    bag: tuple[str, ...],
    stream: DrawStream,
    drawn: tuple[str, ...],
    lost_turn: bool = False,
) -> Game:
    record = TurnRecord(
        player, move, game.racks[player], (), False, 0, drawn, game.scores, lost_turn=lost_turn
    )
    streak = game.scoreless_streak + 1
    after = replace(
        game,
        racks=racks,
        bag=bag,
        stream=stream,
        to_move=game.next_seat(player),
        scoreless_streak=streak,
        turns=(*game.turns, record),
        open_play=None,
    )
    if streak >= game.scoreless_turns_to_end:
        return after.finish(SIX_SCORELESS)
    return after


def _take_lost_turns(game: Game) -> Game:
    """Take every lost turn owed by the seat to move, in order (each a scoreless turn)."""
    while not game.is_over and game.to_move in game.lost_turns:
        seat = game.to_move
        owed = list(game.lost_turns)
        owed.remove(seat)
        game = _scoreless(
            replace(game, lost_turns=tuple(owed)),
            Pass(),
            seat,
            racks=game.racks,
            bag=game.bag,
            stream=game.stream,
            drawn=(),
            lost_turn=True,
        )
    return game


def _with(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _act(game: Game, action: Move | Challenge, lexicon: Container[str] | None) -> Game:
    if isinstance(action, Challenge):
        if lexicon is None:
            raise ValueError("replaying a challenge needs the lexicon it was judged on")
        return game.challenge(by=action.by, lexicon=lexicon)
    return game.apply(action, player=game.to_move, lexicon=lexicon)


def replay(
    moves: Iterable[Move | Challenge],
    *,
    ruleset: str | Ruleset = DEFAULT_RULESET,
    seed: bytes,
    salt: bytes = b"",
    lexicon: Container[str] | None = None,
    players: int = 2,
    challenge: ChallengeRule = VOID,
    finish_line: int | None = None,
) -> Game:
    """Recompute a game from its seed, salt and moves (each by the player to move then) and
    challenges (``Challenge(by)``, judged on ``lexicon``), as ``Game.actions`` lists them."""
    game = Game.new(
        ruleset=ruleset,
        seed=seed,
        salt=salt,
        players=players,
        challenge=challenge,
        finish_line=finish_line,
    )
    for action in moves:
        game = _act(game, action, lexicon)
    return game


@dataclass(frozen=True, slots=True)
class DrawReplay:
    """What the bag dealt: the opening racks and the tiles drawn after each turn."""

    opening_racks: tuple[tuple[str, ...], ...]
    drawn: tuple[tuple[str, ...], ...]
    racks_before: tuple[tuple[str, ...], ...]


def replay_draws(
    seed: bytes,
    salt: bytes,
    moves: Iterable[Move | Challenge],
    *,
    ruleset: str | Ruleset = DEFAULT_RULESET,
    players: int = 2,
    challenge: ChallengeRule = VOID,
    finish_line: int | None = None,
    lexicon: Container[str] | None = None,
) -> DrawReplay:
    """Every rack and draw of a game from seed + salt + moves, to audit a stored game's bag.

    A game with challenges needs the lexicon they were judged on (a withdrawn play's draw
    is listed too: those tiles went back into the bag, and the stream ran on).
    """
    start = Game.new(
        ruleset=ruleset,
        seed=seed,
        salt=salt,
        players=players,
        challenge=challenge,
        finish_line=finish_line,
    )
    game = start
    for action in moves:
        game = _act(game, action, lexicon)
    return DrawReplay(
        opening_racks=start.racks,
        drawn=tuple(turn.drawn for turn in game.turns),
        racks_before=tuple(turn.rack_before for turn in game.turns),
    )
