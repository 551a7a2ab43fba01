"""Word Skill's rounds (seed 002): every player plays the same tray, the best play is placed.

A rounds game is a value, as ``Game`` is: ``start``, ``submit`` and ``close_round`` return
the next game or raise a MoveError with docs/RULES.md's text, and nothing changes in place.
Any number of players from two share one board and one bag; each round deals one tray.

- A player **starts** the round (their tray shows and their own timer runs from then) and
  **submits** a play or a pass; a play is checked against the board and the lexicon as
  ``Game.apply`` checks it (``scoring.evaluate_play``) and scored the same way.
- The round **closes** when every player has submitted, or when the server says its deadline
  passed (``close_round``). The highest-scoring play is placed; a tie goes to the faster
  submission (the shorter time on its own clock), then the earlier one, then a draw from the
  game's committed stream. Every player scores their own submission, placed or not; a player
  who never started, or never submitted, scores 0.
- The placed play's tiles leave the tray and are replaced from the bag; the others stay.
  After a round with no word placed the whole tray goes back and seven are drawn afresh.
- A tray dealt with no legal play on the board (checked with the lexicon) goes back into the
  bag whole and seven are dealt afresh from the same stream, up to ``max_redeals`` times
  (``MAX_REDEALS``); the rejected trays are public (``OpenRound.redealt``).
- The game **ends** when the bag and the tray's kept tiles hold fewer than seven, when no
  tray with a play can be dealt within the redeals, or after three rounds in a row with no
  word.

Times are whole milliseconds on one clock the server keeps for the game (since the epoch,
say); the engine only compares and subtracts them. Randomness is the one HMAC stream of
``tiles.DrawStream``, so the whole game follows from the seed, the salt and the log of
actions (``actions``, ``replay``), and ``to_json``/``position_json`` store it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Final, Literal

from .board import Board
from .errors import (
    AlreadySubmitted,
    MatchOver,
    NotSeated,
    RoundAlreadyStarted,
    RoundNotStarted,
    RoundTimeUp,
    SwapInRound,
    TableNotAllowed,
    TakesOff,
    TilesNotOnRack,
)
from .movegen import legal_plays
from .moves import BLANK, Move, Pass, Play, Swap, TakePlay, check_move_shape, move_from_dict
from .rulesets import Ruleset, get_ruleset
from .scoring import WordScore, evaluate_play
from .tiles import DrawStream, draw_tiles, new_seed, remove_tiles, return_tiles, sort_rack

WORD_SKILL: Final = "word-skill"
#: The fewest players a rounds game has (the seed: "at least two accepted players").
MIN_PLAYERS: Final = 2
#: Rounds in a row with no word placed that end the game (nobody can or will play).
WORDLESS_ROUNDS_TO_END: Final = 3
#: Times a tray with no play is put back and another dealt before the game ends (``no_play``).
#: A game stored before the rule (its JSON has no ``max_redeals``) keeps 0: it ends at once.
MAX_REDEALS: Final = 10

#: ``RoundsGame.end_reason`` values: the bag and the kept tiles cannot fill a tray; no tray
#: with a play on the board could be dealt (the first and every redeal); three rounds in a row
#: placed no word.
SUPPLY_LOW: Final = "supply_low"
NO_PLAY: Final = "no_play"
NO_WORDS: Final = "no_words"
EndReason = Literal["supply_low", "no_play", "no_words"]
END_REASONS: Final = (SUPPLY_LOW, NO_PLAY, NO_WORDS)

#: What a player did in a closed round.
PLAYED: Final = "played"
PASSED: Final = "passed"
#: Started the round but submitted nothing before it closed.
TIMED_OUT: Final = "timed_out"
#: Never started the round.
ABSENT: Final = "absent"
Status = Literal["played", "passed", "timed_out", "absent"]

#: What decided which play was placed: the only best score, then the faster, then the
#: earlier submission, then the stream's draw.
BY_SCORE: Final = "score"
BY_SPEED: Final = "speed"
BY_ORDER: Final = "order"
BY_DRAW: Final = "draw"
DecidedBy = Literal["score", "speed", "order", "draw"]
DECIDED_BY: Final = (BY_SCORE, BY_SPEED, BY_ORDER, BY_DRAW)

JSON_FORMAT: Final = 1

RoundMove = Play | Pass


# -- the log ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Start:
    """``player`` started the round at ``at_ms``: their tray shows, their timer runs."""

    kind: ClassVar[str] = "start"
    player: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class Submit:
    """``player`` submitted ``move`` (a play or a pass) at ``at_ms``."""

    kind: ClassVar[str] = "submit"
    player: int
    move: RoundMove
    at_ms: int


@dataclass(frozen=True, slots=True)
class Close:
    """The server closed the round at its deadline (a round every player finished closes
    by itself, and the log holds no Close for it)."""

    kind: ClassVar[str] = "close"


RoundAction = Start | Submit | Close


def action_to_json(action: RoundAction) -> dict[str, Any]:
    """One row of the log in plain JSON types."""
    if isinstance(action, Start):
        return {"kind": "start", "player": action.player, "at_ms": action.at_ms}
    if isinstance(action, Submit):
        return {
            "kind": "submit",
            "player": action.player,
            "move": action.move.to_dict(),
            "at_ms": action.at_ms,
        }
    return {"kind": "close"}


def action_from_json(data: dict[str, Any], *, ruleset: str | Ruleset = WORD_SKILL) -> RoundAction:
    """Inverse of ``action_to_json`` (MalformedMove for a move that is not well formed)."""
    rules = get_ruleset(ruleset)
    kind = data.get("kind")
    if kind == "start":
        return Start(int(data["player"]), int(data["at_ms"]))
    if kind == "submit":
        move = move_from_dict(data["move"], board_size=rules.board_size, max_tiles=rules.rack_size)
        if isinstance(move, Swap):
            raise SwapInRound
        if isinstance(move, TakePlay):  # Reword's swaps and steals are not Word Skill's
            raise TakesOff
        return Submit(int(data["player"]), move, int(data["at_ms"]))
    if kind == "close":
        return Close()
    raise ValueError(f"not a round action: {kind!r}")


# -- the pieces of a round -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Submission:
    """A player's play or pass for a round, when it came and, for a play, what it scores."""

    player: int
    move: RoundMove
    #: When the player started the round, and when they submitted (the game's clock, ms).
    started_at_ms: int
    at_ms: int
    words: tuple[WordScore, ...] = ()
    bingo: bool = False
    score: int = 0

    @property
    def elapsed_ms(self) -> int:
        """The time it took on the player's own clock: the tie-break's "faster"."""
        return self.at_ms - self.started_at_ms

    @property
    def is_play(self) -> bool:
        """A play (which may be placed), not a pass."""
        return isinstance(self.move, Play)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types."""
        return {
            "player": self.player,
            "move": self.move.to_dict(),
            "started_at_ms": self.started_at_ms,
            "at_ms": self.at_ms,
            "words": [word.to_json() for word in self.words],
            "bingo": self.bingo,
            "score": self.score,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, rules: Ruleset) -> Submission:
        """Inverse of ``to_json``."""
        move = move_from_dict(data["move"], board_size=rules.board_size, max_tiles=rules.rack_size)
        if isinstance(move, Swap):
            raise SwapInRound
        if isinstance(move, TakePlay):  # Reword's swaps and steals are not Word Skill's
            raise TakesOff
        return cls(
            player=int(data["player"]),
            move=move,
            started_at_ms=int(data["started_at_ms"]),
            at_ms=int(data["at_ms"]),
            words=tuple(WordScore.from_json(word) for word in data["words"]),
            bingo=bool(data["bingo"]),
            score=int(data["score"]),
        )


Tray = tuple[str, ...]


def _trays_to_json(trays: tuple[Tray, ...]) -> list[str]:
    return ["".join(tray) for tray in trays]


def _trays_from_json(data: Sequence[Any]) -> tuple[Tray, ...]:
    return tuple(tuple(str(tray)) for tray in data)


def _started_to_json(started: tuple[int | None, ...]) -> list[int | None]:
    return list(started)


def _started_from_json(data: Sequence[Any]) -> tuple[int | None, ...]:
    return tuple(None if at is None else int(at) for at in data)


@dataclass(frozen=True, slots=True)
class OpenRound:
    """The round being played: its tray, who has started (and when), what has come in."""

    number: int
    tray: tuple[str, ...]
    #: Per player: when they started the round (ms), or None.
    started: tuple[int | None, ...]
    #: In the order they were made.
    submissions: tuple[Submission, ...] = ()
    #: Trays dealt for this round before ``tray`` and put back: none had a play (public).
    redealt: tuple[Tray, ...] = ()

    def submission_of(self, player: int) -> Submission | None:
        """The player's submission this round, if any."""
        return next((s for s in self.submissions if s.player == player), None)

    @property
    def everyone_submitted(self) -> bool:
        """Whether every player has played or passed (the round then closes)."""
        return len(self.submissions) == len(self.started)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types."""
        return {
            "number": self.number,
            "tray": "".join(self.tray),
            "started": _started_to_json(self.started),
            "submissions": [submission.to_json() for submission in self.submissions],
            "redealt": _trays_to_json(self.redealt),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, rules: Ruleset) -> OpenRound:
        """Inverse of ``to_json`` (a round stored before redeals has none)."""
        return cls(
            number=int(data["number"]),
            tray=tuple(data["tray"]),
            started=_started_from_json(data["started"]),
            submissions=tuple(Submission.from_json(s, rules=rules) for s in data["submissions"]),
            redealt=_trays_from_json(data.get("redealt", ())),
        )


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A closed round: the tray, every submission, the play placed and why, the tiles that
    moved and everyone's total after it."""

    number: int
    tray: tuple[str, ...]
    started: tuple[int | None, ...]
    submissions: tuple[Submission, ...]
    #: The player whose play was placed (None: nobody played a word).
    placed: int | None
    decided_by: DecidedBy | None
    #: The players level after every tie-break but the draw (the draw chose among these).
    drawn_among: tuple[int, ...]
    #: Tiles drawn from the bag for the next tray.
    drawn: tuple[str, ...]
    #: Tray tiles that went back into the bag (a wordless round's tray; the last tray's
    #: at the end).
    returned: tuple[str, ...]
    #: Each player's score this round, and totals after it.
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    #: Trays dealt for this round before ``tray`` and put back, none with a play (public).
    redealt: tuple[Tray, ...] = ()

    def submission_of(self, player: int) -> Submission | None:
        """The player's submission this round, if any."""
        return next((s for s in self.submissions if s.player == player), None)

    def status_of(self, player: int) -> Status:
        """What the player did: played, passed, timed out (started, no submission), absent."""
        submission = self.submission_of(player)
        if submission is not None:
            return PLAYED if submission.is_play else PASSED
        return TIMED_OUT if self.started[player] is not None else ABSENT

    @property
    def placed_submission(self) -> Submission | None:
        """The play placed on the board, if any."""
        return None if self.placed is None else self.submission_of(self.placed)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types."""
        return {
            "number": self.number,
            "tray": "".join(self.tray),
            "started": _started_to_json(self.started),
            "submissions": [submission.to_json() for submission in self.submissions],
            "placed": self.placed,
            "decided_by": self.decided_by,
            "drawn_among": list(self.drawn_among),
            "drawn": "".join(self.drawn),
            "returned": "".join(self.returned),
            "scores": list(self.scores),
            "totals": list(self.totals),
            "redealt": _trays_to_json(self.redealt),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, rules: Ruleset) -> RoundRecord:
        """Inverse of ``to_json``."""
        decided_by = data["decided_by"]
        if decided_by not in (None, *DECIDED_BY):
            raise ValueError(f"unknown tie-break {decided_by!r}")
        return cls(
            number=int(data["number"]),
            tray=tuple(data["tray"]),
            started=_started_from_json(data["started"]),
            submissions=tuple(Submission.from_json(s, rules=rules) for s in data["submissions"]),
            placed=None if data["placed"] is None else int(data["placed"]),
            decided_by=decided_by,
            drawn_among=tuple(int(p) for p in data["drawn_among"]),
            drawn=tuple(data["drawn"]),
            returned=tuple(data["returned"]),
            scores=tuple(int(s) for s in data["scores"]),
            totals=tuple(int(t) for t in data["totals"]),
            redealt=_trays_from_json(data.get("redealt", ())),
        )


# -- choosing the play placed ----------------------------------------------------------------


def choose_placed(
    submissions: Sequence[Submission], stream: DrawStream
) -> tuple[Submission | None, DecidedBy | None, tuple[int, ...], DrawStream]:
    """The play placed: (it, what decided it, the players the draw was among, the stream).

    The highest score; level plays, the shortest time on the player's clock; still level,
    the earliest submitted; still level, ``stream.randbelow`` among them in submission order.
    None when the round holds no play (a play worth 0 is still a word, and is placed).
    """
    contenders = [submission for submission in submissions if submission.is_play]
    if not contenders:
        return None, None, (), stream
    steps: tuple[tuple[DecidedBy, Any], ...] = (
        (BY_SCORE, lambda s: -s.score),
        (BY_SPEED, lambda s: s.elapsed_ms),
        (BY_ORDER, lambda s: s.at_ms),
    )
    for decided_by, key in steps:
        best = min(key(s) for s in contenders)
        contenders = [s for s in contenders if key(s) == best]
        if len(contenders) == 1:
            return contenders[0], decided_by, (), stream
    index, stream = stream.randbelow(len(contenders))
    return contenders[index], BY_DRAW, tuple(s.player for s in contenders), stream


def has_play(
    board: Board, tray: Sequence[str], *, ruleset: Ruleset, lexicon: Collection[str]
) -> bool:
    """Whether the tray has any legal play on the board.

    Tried with the tray's letters alone first, then with one blank more at a time: each blank
    multiplies the search by 26, and a play almost always turns up before the last."""
    letters = [tile for tile in tray if tile != BLANK]
    blanks = len(tray) - len(letters)
    return any(
        legal_plays(board, (*letters, *(BLANK,) * used), ruleset=ruleset, lexicon=lexicon)
        for used in range(blanks + 1)
    )


# -- the game --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundsGame:
    """The full state of a rounds game. Build with ``RoundsGame.new``."""

    ruleset: Ruleset
    board: Board
    bag: tuple[str, ...]
    stream: DrawStream
    #: Every player's total, in player order.
    scores: tuple[int, ...]
    #: The round being played; None once the game is over.
    current: OpenRound | None
    #: Closed rounds held (all of them unless restored from a position).
    rounds: tuple[RoundRecord, ...] = ()
    #: Closed rounds before the first one ``rounds`` holds (a game restored from a position).
    rounds_before: int = 0
    #: Rounds in a row that placed no word.
    wordless_streak: int = 0
    end_reason: EndReason | None = None
    #: Each player's own time for a round (ms); None: no limit the engine checks.
    turn_time_ms: int | None = None
    #: Trays with no play put back and dealt afresh before the game ends (``no_play``).
    max_redeals: int = MAX_REDEALS
    #: At a ``no_play`` end: every tray dealt for the round that never opened (public).
    unplayable: tuple[Tray, ...] = ()

    # -- creation ----------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        *,
        players: int,
        ruleset: str | Ruleset = WORD_SKILL,
        seed: bytes | None = None,
        salt: bytes = b"",
        turn_time_ms: int | None = None,
        lexicon: Collection[str] | None = None,
        max_redeals: int = MAX_REDEALS,
    ) -> RoundsGame:
        """A new game of ``players`` (two or more) with round 1's tray dealt.

        ``seed`` (32 bytes) keys the draw stream (None: a fresh one); ``salt`` separates
        streams sharing a seed. ``lexicon``, when given, checks the first tray has a play,
        dealing another up to ``max_redeals`` times and else ending the game (as every later
        tray is checked at its round's close)."""
        rules = get_ruleset(ruleset)
        if not rules.shared_tray:
            raise TableNotAllowed(f"The {rules.name} ruleset is not played in rounds.")
        if isinstance(players, bool) or not isinstance(players, int) or players < MIN_PLAYERS:
            raise TableNotAllowed(f"A rounds game has at least {MIN_PLAYERS} players.")
        if turn_time_ms is not None and (isinstance(turn_time_ms, bool) or turn_time_ms < 1):
            raise ValueError("a round's time is a positive number of milliseconds")
        if isinstance(max_redeals, bool) or not isinstance(max_redeals, int) or max_redeals < 0:
            raise ValueError("max_redeals is a whole number, 0 or more")
        stream = DrawStream(new_seed() if seed is None else seed, salt)
        game = cls(
            ruleset=rules,
            board=Board.empty(rules.board_size),
            bag=rules.full_bag,
            stream=stream,
            scores=(0,) * players,
            current=None,
            turn_time_ms=turn_time_ms,
            max_redeals=max_redeals,
        )
        return _deal(game, kept=(), number=1, lexicon=lexicon)[0]

    # -- read-only views ---------------------------------------------------------------------

    @property
    def players(self) -> int:
        """How many players the game has."""
        return len(self.scores)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.end_reason is not None

    @property
    def round_number(self) -> int:
        """The open round's number (1-based); once over, the number of rounds played."""
        closed = self.rounds_before + len(self.rounds)
        return closed if self.current is None else self.current.number

    @property
    def bag_count(self) -> int:
        """Tiles left in the bag (public; its contents are not)."""
        return len(self.bag)

    @property
    def winners(self) -> tuple[int, ...]:
        """Every player with the highest total once the game is over (one, or several)."""
        if not self.is_over:
            return ()
        best = max(self.scores)
        return tuple(player for player, score in enumerate(self.scores) if score == best)

    def tiles_in_play(self) -> list[str]:
        """Board + tray + bag as rack tiles: always the ruleset's full set (conservation)."""
        tray = self.current.tray if self.current is not None else ()
        return sorted([*self.board.tiles(), *tray, *self.bag])

    @property
    def actions(self) -> tuple[RoundAction, ...]:
        """The log that makes this game (for ``replay``): per round the starts in the order
        of their times, the submissions as made, and a Close for a round closed at its
        deadline (one that every player finished closed by itself)."""
        if self.rounds_before:
            raise ValueError("a game restored from a position holds no whole log")
        log: list[RoundAction] = []
        for record in self.rounds:
            log += _round_actions(record.started, record.submissions)
            if len(record.submissions) < self.players:
                log.append(Close())
        if self.current is not None:
            log += _round_actions(self.current.started, self.current.submissions)
        return tuple(log)

    # -- a player's actions ------------------------------------------------------------------

    def start(self, *, player: int, at_ms: int) -> RoundsGame:
        """The game after ``player`` starts the open round at ``at_ms``: their tray may be
        shown and their timer runs."""
        current = self._open_round(player)
        if current.started[player] is not None:
            raise RoundAlreadyStarted
        _check_time(at_ms)
        started = _with(current.started, player, at_ms)
        return replace(self, current=replace(current, started=started))

    def submit(
        self,
        move: Move,
        *,
        player: int,
        at_ms: int,
        lexicon: Collection[str] | None,
    ) -> RoundsGame:
        """The game after ``player`` plays or passes at ``at_ms``, or a MoveError.

        A play is checked as ``Game.apply`` checks one against the tray (rules 4-9;
        ``lexicon=None`` skips rule 9) and scored; nothing is placed until the round closes.
        The last player's submission closes the round (``lexicon`` then also checks that the
        next tray has a play)."""
        current = self._open_round(player)
        started_at = current.started[player]
        if started_at is None:
            raise RoundNotStarted
        if current.submission_of(player) is not None:
            raise AlreadySubmitted
        _check_time(at_ms)
        if at_ms < started_at:
            raise ValueError("a submission cannot come before its player started the round")
        if self.turn_time_ms is not None and at_ms - started_at > self.turn_time_ms:
            raise RoundTimeUp
        if isinstance(move, Swap):
            raise SwapInRound
        if isinstance(move, TakePlay):  # Reword's swaps and steals are not Word Skill's
            raise TakesOff
        rules = self.ruleset
        check_move_shape(move, board_size=rules.board_size, max_tiles=rules.rack_size)
        submission = Submission(player, move, started_at, at_ms)
        if isinstance(move, Play):
            if remove_tiles(current.tray, (tile.rack_tile for tile in move.tiles)) is None:
                raise TilesNotOnRack
            outcome = evaluate_play(
                self.board,
                move.tiles,
                ruleset=rules,
                lexicon=lexicon,
                bingo=len(move.tiles) >= rules.bingo_tiles,
            )
            submission = replace(
                submission, words=outcome.words, bingo=outcome.bingo, score=outcome.score
            )
        after = replace(
            self, current=replace(current, submissions=(*current.submissions, submission))
        )
        assert after.current is not None
        if after.current.everyone_submitted:
            return after.close_round(lexicon=lexicon)
        return after

    # -- the close ---------------------------------------------------------------------------

    def close_round(self, *, lexicon: Collection[str] | None) -> RoundsGame:
        """The game after the open round closes (every player done, or its deadline passed).

        The chosen play (``choose_placed``) is placed; every player scores their own
        submission; the next tray is the kept tiles and as many drawn from the bag, or the
        game ends (see the module). ``lexicon`` checks the next tray has a play (None: not
        checked)."""
        if self.current is None:
            raise MatchOver
        current = self.current
        chosen, decided_by, drawn_among, stream = choose_placed(current.submissions, self.stream)
        round_scores = tuple(
            s.score if (s := current.submission_of(p)) is not None else 0
            for p in range(self.players)
        )
        totals = tuple(total + gain for total, gain in zip(self.scores, round_scores, strict=True))
        board, bag = self.board, self.bag
        returned: tuple[str, ...] = ()
        if chosen is not None and isinstance(chosen.move, Play):
            board = board.place(chosen.move.tiles)
            kept = remove_tiles(current.tray, (tile.rack_tile for tile in chosen.move.tiles))
            assert kept is not None  # the submission was checked against this tray
            streak = 0
        else:
            kept, returned, streak = (), current.tray, self.wordless_streak + 1
            bag = return_tiles(bag, current.tray)
        after = replace(
            self,
            board=board,
            bag=bag,
            stream=stream,
            scores=totals,
            current=None,
            wordless_streak=streak,
        )
        if streak >= WORDLESS_ROUNDS_TO_END:
            after = replace(after, bag=return_tiles(after.bag, kept), end_reason=NO_WORDS)
            dealt: tuple[str, ...] = ()
            returned = (*returned, *kept)
        else:
            after, dealt, more_returned = _deal(
                after, kept=kept, number=current.number + 1, lexicon=lexicon
            )
            returned = (*returned, *more_returned)
        record = RoundRecord(
            number=current.number,
            tray=current.tray,
            started=current.started,
            submissions=current.submissions,
            placed=None if chosen is None else chosen.player,
            decided_by=decided_by,
            drawn_among=drawn_among,
            drawn=dealt,
            returned=returned,
            scores=round_scores,
            totals=totals,
            redealt=current.redealt,
        )
        return replace(after, rounds=(*self.rounds, record))

    def _open_round(self, player: int) -> OpenRound:
        """The open round, if the game is on and ``player`` is one of its players."""
        if self.current is None:
            raise MatchOver
        if isinstance(player, bool) or not isinstance(player, int):
            raise NotSeated
        if not 0 <= player < self.players:
            raise NotSeated
        return self.current

    # -- serialisation -----------------------------------------------------------------------

    def position_json(self) -> dict[str, Any]:
        """What the next action needs, without the closed rounds (``rounds_before`` counts
        them): a stored position stays the same size however long the game. Holds the seed
        and the bag: server-side only."""
        data = self.to_json()
        data["rounds_before"] = self.rounds_before + len(self.rounds)
        del data["rounds"]
        return data

    def to_json(self) -> dict[str, Any]:
        """Everything, in plain JSON types (the seed and the bag too: server-side only)."""
        return {
            "format": JSON_FORMAT,
            "ruleset": self.ruleset.name,
            "seed": self.stream.seed.hex(),
            "salt": self.stream.salt.hex(),
            "counter": self.stream.counter,
            "board": list(self.board.rows()),
            "bag": "".join(self.bag),
            "scores": list(self.scores),
            "current": None if self.current is None else self.current.to_json(),
            "rounds": [record.to_json() for record in self.rounds],
            "rounds_before": self.rounds_before,
            "wordless_streak": self.wordless_streak,
            "end_reason": self.end_reason,
            "turn_time_ms": self.turn_time_ms,
            "max_redeals": self.max_redeals,
            "unplayable": _trays_to_json(self.unplayable),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoundsGame:
        """Inverse of ``to_json`` and of ``position_json`` (ValueError for what neither
        writes)."""
        if data.get("format") != JSON_FORMAT:
            raise ValueError(f"unsupported rounds game format {data.get('format')!r}")
        rules = get_ruleset(data["ruleset"])
        if not rules.shared_tray:
            raise ValueError(f"the {rules.name} ruleset is not played in rounds")
        board = Board.from_rows(data["board"])
        if board.size != rules.board_size:
            raise ValueError("board size does not match the ruleset")
        scores = tuple(int(score) for score in data["scores"])
        if len(scores) < MIN_PLAYERS:
            raise ValueError(f"a rounds game has at least {MIN_PLAYERS} players")
        end_reason = data["end_reason"]
        if end_reason not in (None, *END_REASONS):
            raise ValueError(f"unknown end reason {end_reason!r}")
        current = (
            None if data["current"] is None else OpenRound.from_json(data["current"], rules=rules)
        )
        if (current is None) != (end_reason is not None):
            raise ValueError("a game has an open round exactly while it is not over")
        if current is not None and len(current.started) != len(scores):
            raise ValueError("the open round does not have one entry per player")
        turn_time = data.get("turn_time_ms")
        max_redeals = int(data.get("max_redeals", 0))  # stored before redeals: none
        if max_redeals < 0:
            raise ValueError("max_redeals is 0 or more")
        return cls(
            ruleset=rules,
            board=board,
            bag=tuple(data["bag"]),
            stream=DrawStream(
                bytes.fromhex(data["seed"]), bytes.fromhex(data["salt"]), int(data["counter"])
            ),
            scores=scores,
            current=current,
            rounds=tuple(RoundRecord.from_json(r, rules=rules) for r in data.get("rounds", ())),
            rounds_before=int(data["rounds_before"]),
            wordless_streak=int(data["wordless_streak"]),
            end_reason=end_reason,
            turn_time_ms=None if turn_time is None else int(turn_time),
            max_redeals=max_redeals,
            unplayable=_trays_from_json(data.get("unplayable", ())),
        )


def _deal(
    game: RoundsGame,
    *,
    kept: tuple[str, ...],
    number: int,
    lexicon: Collection[str] | None,
) -> tuple[RoundsGame, tuple[str, ...], tuple[str, ...]]:
    """Fill the tray from the bag and open round ``number``, or end the game: (the game,
    the tiles drawn, the tray tiles put back into the bag).

    A tray with no play (``lexicon`` given) goes back whole and seven are drawn afresh from
    the same stream, up to ``game.max_redeals`` times; the rejected trays are the round's
    ``redealt``, or the game's ``unplayable`` when none of them had a play."""
    rules = game.ruleset
    if len(kept) + len(game.bag) < rules.rack_size:
        over = replace(game, bag=return_tiles(game.bag, kept), end_reason=SUPPLY_LOW)
        return over, (), kept
    bag, stream, hand = game.bag, game.stream, kept
    drawn_all: list[str] = []
    returned: list[str] = []
    rejected: list[Tray] = []
    while True:
        drawn, bag, stream = draw_tiles(bag, rules.rack_size - len(hand), stream)
        drawn_all += drawn
        tray = sort_rack((*hand, *drawn))
        if lexicon is None or has_play(game.board, tray, ruleset=rules, lexicon=lexicon):
            break
        rejected.append(tray)
        bag, hand = return_tiles(bag, tray), ()
        returned += tray
        if len(rejected) > game.max_redeals:
            over = replace(
                game, bag=bag, stream=stream, end_reason=NO_PLAY, unplayable=tuple(rejected)
            )
            return over, tuple(drawn_all), tuple(returned)
    opened = OpenRound(number, tray, (None,) * game.players, redealt=tuple(rejected))
    current = replace(game, bag=bag, stream=stream, current=opened)
    return current, tuple(drawn_all), tuple(returned)


def _round_actions(
    started: tuple[int | None, ...], submissions: tuple[Submission, ...]
) -> list[RoundAction]:
    """A round's starts (by time, then player) and then its submissions as made."""
    starts = sorted((at, player) for player, at in enumerate(started) if at is not None)
    return [
        *(Start(player, at) for at, player in starts),
        *(Submit(s.player, s.move, s.at_ms) for s in submissions),
    ]


def _check_time(at_ms: object) -> None:
    if isinstance(at_ms, bool) or not isinstance(at_ms, int) or at_ms < 0:
        raise ValueError("a time is a whole, non-negative number of milliseconds")


def _with(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


def apply_action(
    game: RoundsGame, action: RoundAction, *, lexicon: Collection[str] | None
) -> RoundsGame:
    """The game after one row of the log."""
    if isinstance(action, Start):
        return game.start(player=action.player, at_ms=action.at_ms)
    if isinstance(action, Submit):
        return game.submit(action.move, player=action.player, at_ms=action.at_ms, lexicon=lexicon)
    return game.close_round(lexicon=lexicon)


def replay(
    actions: Iterable[RoundAction],
    *,
    players: int,
    seed: bytes,
    salt: bytes = b"",
    ruleset: str | Ruleset = WORD_SKILL,
    turn_time_ms: int | None = None,
    lexicon: Collection[str] | None = None,
    max_redeals: int = MAX_REDEALS,
) -> RoundsGame:
    """Recompute a rounds game from its seed, salt and log. Give the lexicon it was played
    with: it decides which words stand and whether a tray has a play (else it is redealt, up
    to ``max_redeals`` times, the game's setting, then the game ends)."""
    game = RoundsGame.new(
        players=players,
        ruleset=ruleset,
        seed=seed,
        salt=salt,
        turn_time_ms=turn_time_ms,
        lexicon=lexicon,
        max_redeals=max_redeals,
    )
    for action in actions:
        game = apply_action(game, action, lexicon=lexicon)
    return game
