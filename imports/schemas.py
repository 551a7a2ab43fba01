"""The replay of an imported game, defined once: what is stored and what the page is built from.

Rows and columns are 0-based; a tile's letter is capital, or lower case for a blank (as the
board stores it); seats are 0 and 1 in the order the record names its players.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

#: What a turn of the record is (the reader's event kinds).
TurnKind = Literal[
    "play", "exchange", "pass", "withdrawn", "challenge_bonus", "end_rack", "time_penalty"
]
#: Why a turn is flagged: each check the replay makes has a code of its own.
FlagCode = Literal[
    "not_in_lexicon",
    "rule_broken",
    "score_differs",
    "total_differs",
    "too_many_tiles",
    "letter_not_in_set",
]
#: Whether the move generator looked at a turn: ``done``; ``pending`` (not yet: the import's
#: task has not run); ``no_rack`` (the record does not show the rack); ``bad_rack`` (not a
#: rack of this ruleset); ``over_cap`` (past the number of moves an import analyses);
#: ``over_budget`` (the import's time for analysis ran out); ``not_a_move`` (a withdrawal,
#: a bonus, an end-of-game rack).
Analysis = Literal[
    "done", "pending", "no_rack", "bad_rack", "over_cap", "over_budget", "not_a_move"
]


class Shape(BaseModel):
    """Frozen, and nothing undeclared: a stored replay reads back exactly as written."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ReplayTile(Shape):
    row: int
    col: int
    #: A capital letter, or lower case for a blank standing for that letter.
    letter: str


class ReplayWord(Shape):
    """A word the play formed, as the board spells it, and whether the lexicon has it."""

    word: str
    position: str
    score: int
    in_lexicon: bool


class Flag(Shape):
    code: FlagCode
    message: str


class BestPlay(Shape):
    """The highest-scoring play the move generator finds from the recorded rack."""

    position: str
    #: The main word as the board would spell it (lower case for a blank).
    word: str
    score: int
    words: list[str]
    tiles: list[ReplayTile]
    #: How many legal plays the rack had on that board.
    choices: int


class ReplayTurn(Shape):
    """One line of the record, checked, with the best play of its rack beside it."""

    number: int
    #: The record's line number, so a reader can find it in the file.
    line: int
    seat: int
    nick: str
    kind: TurnKind
    #: The move as the record writes it (``8D WINDY``, ``-ABC``, ``--``).
    move: str
    rack: str
    score: int
    #: The cumulative score the record gives this player after the turn.
    total: int
    #: Both players' recorded totals after the turn.
    totals: tuple[int, int]
    #: The score this ruleset gives the play (None for other turns, or a play it cannot score).
    computed_score: int | None = None
    #: The tiles a play places; for a withdrawal, the tiles it lifts off the board.
    tiles: list[ReplayTile] = []
    words: list[ReplayWord] = []
    flags: list[Flag] = []
    #: A play taken back by the next line (``--``): a phony challenged off.
    withdrawn: bool = False
    analysis: Analysis = "not_a_move"
    best: BestPlay | None = None
    notes: list[str] = []
    comment: str = ""


class ReplayPlayer(Shape):
    nick: str
    name: str


class Replay(Shape):
    """A whole imported game, turn by turn, under one ruleset and lexicon."""

    ruleset: str
    lexicon: str
    board_size: int
    #: The ``#lexicon`` the record says it was played with, if it says.
    recorded_lexicon: str | None
    players: tuple[ReplayPlayer, ReplayPlayer]
    notes: list[str]
    turns: list[ReplayTurn]

    @property
    def flagged_turns(self) -> int:
        """How many turns carry at least one flag."""
        return sum(1 for turn in self.turns if turn.flags)

    @property
    def moves_over_cap(self) -> int:
        """How many racks were left unanalysed for the number of moves an import analyses."""
        return sum(1 for turn in self.turns if turn.analysis == "over_cap")

    @property
    def final_totals(self) -> tuple[int, int]:
        return self.turns[-1].totals if self.turns else (0, 0)
