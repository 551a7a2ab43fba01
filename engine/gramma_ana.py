"""Gramma Ana (Word Skill, seed 002): the computer whose vocabulary follows a rating.

She plays the highest-scoring legal play (``movegen``, ties broken as ``ranked``) whose every
word, the main word and each cross-word, is within the difficulty cap the rating gives, and
passes when there is none. The cap is the seed's table: 800 → 25, 900 → 31, … 1200 → 50, …
2000 → 100. Every row of it is exactly ⌊25 + (rating − 800) × 75 / 1200⌋, so that line gives
the ratings between the rows too (1250 → 53); a rating outside 800–2000 is taken at the
nearer end. A word's difficulty (1 commonest, 100 rarest or unknown) is
``lexicon.difficulty``'s table from wordfreq's Zipf frequencies; it is passed in, so the
engine reads no word list of its own.

In a rounds game (``engine.rounds``) she submits ``round_move``; at a table of turns she is
``computer.choose_move`` at the Greedy level with her vocabulary (``choose_game_move``).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from typing import Final, Protocol

from .board import Board
from .computer import GREEDY, Choice, SeatPosition, choose_move
from .movegen import LegalMove, legal_plays
from .moves import Pass, Play
from .rounds import RoundMove, RoundsGame
from .rulesets import Ruleset

#: The seed's rating range and its caps at the two ends.
MIN_RATING: Final = 800
MAX_RATING: Final = 2000
EASIEST_CAP: Final = 25
HARDEST_CAP: Final = 100


class DifficultyTable(Protocol):
    """A word's difficulty, 1-100 (``lexicon.difficulty.WordDifficulty`` is one)."""

    def __getitem__(self, word: str) -> int: ...


def cap_for_rating(rating: int) -> int:
    """The highest word difficulty Gramma Ana plays against a player of ``rating``."""
    if isinstance(rating, bool) or not isinstance(rating, int):
        raise TypeError("a rating is a whole number")
    clamped = min(MAX_RATING, max(MIN_RATING, rating))
    span = HARDEST_CAP - EASIEST_CAP
    return EASIEST_CAP + (clamped - MIN_RATING) * span // (MAX_RATING - MIN_RATING)


def within_cap(play: LegalMove, *, difficulty: DifficultyTable, cap: int) -> bool:
    """Whether every word the play forms is at or under ``cap``."""
    return all(difficulty[word.word] <= cap for word in play.words)


def best_within_cap(
    plays: Iterable[LegalMove], *, difficulty: DifficultyTable, cap: int
) -> LegalMove | None:
    """The best play (``LegalMove.sort_key``) whose words are all within ``cap``, or None.

    One pass, the full sort key built only for plays level on score with the best so far (a
    tray with two blanks has tens of thousands of plays)."""
    best: LegalMove | None = None
    for play in plays:
        if best is not None and play.score < best.score:
            continue
        if not isinstance(play.move, Play) or not within_cap(play, difficulty=difficulty, cap=cap):
            continue
        if best is None or play.score > best.score or play.sort_key < best.sort_key:
            best = play
    return best


def choose_play(
    board: Board,
    tray: Sequence[str],
    *,
    ruleset: Ruleset,
    lexicon: Collection[str],
    difficulty: DifficultyTable,
    rating: int,
) -> LegalMove | None:
    """Her play of ``tray`` on ``board`` against a player of ``rating`` (None: she passes)."""
    plays = legal_plays(board, tray, ruleset=ruleset, lexicon=lexicon)
    return best_within_cap(plays, difficulty=difficulty, cap=cap_for_rating(rating))


def round_move(
    game: RoundsGame, *, lexicon: Collection[str], difficulty: DifficultyTable, rating: int
) -> RoundMove:
    """What she submits in the open round of ``game``: her play, or a pass."""
    if game.current is None:
        raise ValueError("the game is over: there is no round to play")
    play = choose_play(
        game.board,
        game.current.tray,
        ruleset=game.ruleset,
        lexicon=lexicon,
        difficulty=difficulty,
        rating=rating,
    )
    if play is None or not isinstance(play.move, Play):
        return Pass()
    return play.move


class CappedWords:
    """The words within a cap, as a container (what ``choose_move``'s vocabulary takes)."""

    __slots__ = ("cap", "difficulty")

    def __init__(self, difficulty: DifficultyTable, cap: int) -> None:
        self.difficulty = difficulty
        self.cap = cap

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.difficulty[word] <= self.cap


def choose_game_move(
    position: SeatPosition,
    *,
    lexicon: Collection[str],
    difficulty: DifficultyTable,
    rating: int,
    rng: random.Random,
) -> Choice:
    """Her move at a table of turns (one to one): the Greedy computer within her cap."""
    vocabulary = CappedWords(difficulty, cap_for_rating(rating))
    return choose_move(position, lexicon=lexicon, level=GREEDY, rng=rng, vocabulary=vocabulary)
