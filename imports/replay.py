"""Replay a GCG record turn by turn under a ruleset and lexicon: checked, and analysed.

Pure Python (no Django), like the engine it drives. Every play is placed on a board and
checked against the ruleset (placement rules, its tile set, the recorded score and total)
and the lexicon; what fails is *flagged*, not refused, since real games hold phonies,
challenges and scorers' slips. A play that cannot be placed at all (off the board, through
an empty square, over a different tile) leaves no board to go on with: that is refused, as
the reader refuses a line, with a :class:`GcgError` naming the line. Beside each turn whose
rack the record shows, the engine's move generator finds the best-scoring play: for at most
a number of moves and a time, since it costs CPU seconds a record could multiply. Without
analysis (``analyse=False``: the import's request, whose Celery task analyses later) the
same replay is built, checked, with its racks marked ``pending``.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Collection

from engine import (
    BLANK,
    Board,
    GcgError,
    GcgEvent,
    GcgRecord,
    MoveError,
    Play,
    Ruleset,
    WordGraph,
    best_play,
    legal_plays,
    play_from_gcg,
    word_graph,
)
from engine.gcg import EXCHANGE, PASS, PLAY, WITHDRAWN
from engine.moves import LETTERS
from engine.scoring import evaluate_play

from .schemas import (
    Analysis,
    BestPlay,
    Flag,
    Replay,
    ReplayPlayer,
    ReplayTile,
    ReplayTurn,
    ReplayWord,
    TurnKind,
)

#: More move lines than this are not one game between two players (a full game has fewer
#: than a hundred); the limit bounds the work and the storage of one import.
MAX_TURNS = 300

#: The moves a rack is analysed for: what the player chose between.
_ANALYSED_KINDS = frozenset({PLAY, EXCHANGE, PASS})


def build_replay(
    record: GcgRecord,
    *,
    ruleset: Ruleset,
    lexicon: Collection[str],
    lexicon_name: str,
    analyse: bool = True,
    analysis_seconds: float = 20.0,
    max_analysed_moves: int = 60,
) -> Replay:
    """The record replayed on a board of ``ruleset``, each turn checked and analysed.

    Raises GcgError (with the line) when a play cannot be placed, when a third player
    appears, when the record has no move lines or more than ``MAX_TURNS``. The move
    generator runs for the first ``max_analysed_moves`` racks only (later ones are marked
    ``over_cap``) and for at most about ``analysis_seconds`` in all (turns past that are
    marked ``over_budget``), rather than making one upload cost unbounded time. With
    ``analyse=False`` it does not run at all: the racks it would analyse are ``pending``.
    """
    if not record.events:
        raise GcgError("the record has no move lines (>nick: ...)")
    if len(record.events) > MAX_TURNS:
        raise GcgError(
            f"more than {MAX_TURNS} move lines: not one game", line=record.events[MAX_TURNS].line
        )
    budget = _Budget(
        analyse=analyse,
        deadline=time.monotonic() + analysis_seconds,
        moves=max_analysed_moves,
    )
    return _Replayer(record, ruleset, lexicon, lexicon_name, budget).run()


class _Budget:
    """What the move generator may still spend: racks, and time until ``deadline``."""

    def __init__(self, *, analyse: bool, deadline: float, moves: int) -> None:
        self.analyse = analyse
        self.deadline = deadline
        self.moves_left = moves

    def spend(self) -> Analysis | None:
        """Why the next rack is not analysed, or None (one rack is then spent)."""
        if not self.analyse:
            return "pending"
        if self.moves_left <= 0:
            return "over_cap"
        if time.monotonic() > self.deadline:
            return "over_budget"
        self.moves_left -= 1
        return None


class _Replayer:
    def __init__(
        self,
        record: GcgRecord,
        rules: Ruleset,
        lexicon: Collection[str],
        lexicon_name: str,
        budget: _Budget,
    ) -> None:
        self.record = record
        self.rules = rules
        self.lexicon = lexicon
        self.lexicon_name = lexicon_name
        self.budget = budget
        self.board = Board.empty(rules.board_size)
        self.seats: dict[str, int] = {}
        self.totals = [0, 0]
        #: Each player's last play still on the board, by nick: what ``--`` takes back.
        self.last_play: dict[str, Play] = {}
        self.set_counts = Counter(dict(rules.distribution))

    def run(self) -> Replay:
        players = self._players()
        events = self.record.events
        turns = []
        for index, event in enumerate(events):
            later = events[index + 1] if index + 1 < len(events) else None
            withdrawn = (
                event.kind == PLAY
                and later is not None
                and later.kind == WITHDRAWN
                and later.nick == event.nick
            )
            turns.append(self._turn(index + 1, event, withdrawn=withdrawn))
        return Replay(
            ruleset=self.rules.name,
            lexicon=self.lexicon_name,
            board_size=self.rules.board_size,
            recorded_lexicon=self.record.lexicon,
            players=players,
            notes=list(self.record.notes),
            turns=turns,
        )

    def _players(self) -> tuple[ReplayPlayer, ReplayPlayer]:
        """The two players: as ``#player1``/``#player2`` name them, else in order of play."""
        # Two seats: a third named player is refused at their first line, as one unnamed.
        named = [player for player in self.record.players[:2] if player is not None]
        for player in named:
            self.seats.setdefault(player.nick, len(self.seats))
        for event in self.record.events:
            self._seat(event)
        names = {player.nick: player.name for player in named}
        nicks = sorted(self.seats, key=self.seats.__getitem__)
        nicks += [f"player{i + 1}" for i in range(len(nicks), 2)]
        first, second = (ReplayPlayer(nick=n, name=names.get(n, n)) for n in nicks[:2])
        return (first, second)

    def _seat(self, event: GcgEvent) -> int:
        if event.nick not in self.seats:
            if len(self.seats) == 2:
                raise GcgError(
                    f"a third player {event.nick!r}: a record is of one game between two",
                    line=event.line,
                )
            self.seats[event.nick] = len(self.seats)
        return self.seats[event.nick]

    def _turn(self, number: int, event: GcgEvent, *, withdrawn: bool) -> ReplayTurn:
        seat = self._seat(event)
        flags: list[Flag] = []
        expected = self.totals[seat] + event.score
        if expected != event.total:
            flags.append(
                Flag(
                    code="total_differs",
                    message=f"The record's total is {event.total}; "
                    f"{self.totals[seat]} plus {event.score} is {expected}.",
                )
            )
        self.totals[seat] = event.total
        analysis: Analysis = "not_a_move"
        best = None
        if event.kind in _ANALYSED_KINDS:
            analysis, best = self._analyse(event.rack)
        tiles: list[ReplayTile] = []
        words: list[ReplayWord] = []
        computed = None
        if event.kind == PLAY:
            tiles, words, computed = self._play(event, flags)
        elif event.kind == WITHDRAWN:
            taken_back = self.last_play.pop(event.nick, None)
            if taken_back is not None:
                self.board = self.board.remove((t.row, t.col) for t in taken_back.tiles)
                tiles = [_tile(t.row, t.col, t.board_char) for t in taken_back.tiles]
        elif event.kind in (EXCHANGE, PASS):
            self.last_play.pop(event.nick, None)
        kind: TurnKind = event.kind  # type: ignore[assignment]  # the reader's kinds
        return ReplayTurn(
            number=number,
            line=event.line,
            seat=seat,
            nick=event.nick,
            kind=kind,
            move=event.move_text,
            rack=event.rack,
            score=event.score,
            total=event.total,
            totals=(self.totals[0], self.totals[1]),
            computed_score=computed,
            tiles=tiles,
            words=words,
            flags=flags,
            withdrawn=withdrawn,
            analysis=analysis,
            best=best,
            notes=list(event.notes),
            comment=event.comment,
        )

    def _play(
        self, event: GcgEvent, flags: list[Flag]
    ) -> tuple[list[ReplayTile], list[ReplayWord], int | None]:
        """Place a play, flagging every rule, word, tile and score it breaks."""
        rules = self.rules
        try:
            play = play_from_gcg(self.board, event.position or "", event.word or "")
        except GcgError as error:
            size = f" (the {rules.name} board is {rules.board_size} x {rules.board_size})"
            raise GcgError(error.reason + size, line=event.line) from None
        placed = play.tiles
        if len(placed) > rules.rack_size:
            flags.append(
                Flag(
                    code="rule_broken",
                    message=f"It places {len(placed)} tiles; a rack holds {rules.rack_size}.",
                )
            )
        words: list[ReplayWord] = []
        computed = None
        try:
            outcome = evaluate_play(
                self.board, placed, ruleset=rules, bingo=len(placed) == rules.rack_size
            )
        except MoveError as error:
            flags.append(Flag(code="rule_broken", message=error.message))
        else:
            computed = outcome.score
            words = [
                ReplayWord(
                    word=w.tiles,
                    position=w.position,
                    score=w.score,
                    in_lexicon=w.word in self.lexicon,
                )
                for w in outcome.words
            ]
            phonies = [w.word.upper() for w in words if not w.in_lexicon]
            if phonies:
                flags.append(
                    Flag(
                        code="not_in_lexicon",
                        message=f"Not in {self.lexicon_name.upper()}: {', '.join(phonies)}.",
                    )
                )
            if computed != event.score:
                flags.append(
                    Flag(
                        code="score_differs",
                        message=f"Recorded {event.score:+d}; the {rules.name} rules score "
                        f"{computed:+d}.",
                    )
                )
        self.board = self.board.place(placed)
        self.last_play[event.nick] = play
        self._check_tile_set(play, flags)
        return [_tile(t.row, t.col, t.board_char) for t in placed], words, computed

    def _check_tile_set(self, play: Play, flags: list[Flag]) -> None:
        """Flag a tile the ruleset's set does not hold, or holds fewer of than the board."""
        on_board = Counter(self.board.tiles())
        for tile in sorted({BLANK if t.blank else t.letter for t in play.tiles}):
            have = self.set_counts.get(tile, 0)
            name = "blanks" if tile == BLANK else f"{tile} tiles"
            if have == 0:
                flags.append(
                    Flag(
                        code="letter_not_in_set",
                        message=f"The {self.rules.name} set has no {name}.",
                    )
                )
            elif on_board[tile] > have:
                flags.append(
                    Flag(
                        code="too_many_tiles",
                        message=f"{on_board[tile]} {name} on the board; the {self.rules.name} "
                        f"set has {have}.",
                    )
                )

    def _analyse(self, recorded_rack: str) -> tuple[Analysis, BestPlay | None]:
        """The best play of the recorded rack on the board before the move."""
        if not recorded_rack:
            return "no_rack", None
        rack = recorded_rack.upper()
        rules = self.rules
        usable = LETTERS | ({BLANK} if rules.has_blanks else set())
        if len(rack) > rules.rack_size or any(tile not in usable for tile in rack):
            return "bad_rack", None
        refused = self.budget.spend()
        if refused is not None:
            return refused, None
        moves = legal_plays(self.board, tuple(rack), ruleset=rules, graph=self._graph())
        top = best_play(moves)
        if top is None:
            return "done", None
        main = top.words[0]
        return "done", BestPlay(
            position=main.position,
            word=main.tiles,
            score=top.score,
            words=[w.word for w in top.words],
            tiles=[_tile(t.row, t.col, t.board_char) for t in top.tiles],
            choices=len(moves),
        )

    def _graph(self) -> WordGraph:
        return word_graph(self.lexicon)


def _tile(row: int, col: int, letter: str) -> ReplayTile:
    return ReplayTile(row=row, col=col, letter=letter)
