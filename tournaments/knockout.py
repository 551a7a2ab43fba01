"""Knockout brackets: pure (no Django), so they are tested over random fields.

docs/RULES.md section 3 ("Knockout") is this module in words.

1. **Seeds.** The organiser gives the entrants in their order, or asks for them by rating
   (:func:`seeded_by_rating`: highest first, equal ratings in the order given). Seed 1 is
   the first.
2. **The draw** (:func:`draw`). The bracket has the next power of two slots at or above the
   field (8 for 5 to 8 entrants). Seeds are placed in the usual bracket order
   (:func:`placement`): round 1 pairs seed *k* with seed *size + 1 - k* (1 v 8, 4 v 5,
   2 v 7, 3 v 6 for eight), and each half of the bracket holds one of every pair of seeds
   that should meet late, so seeds 1 and 2 can meet only in the final, 1 to 4 only in the
   semi-finals, and so on. The seeds above the field are absent: whoever they would have
   met has a **bye**, which falls only to the top seeds (a field of 5 in 8 slots: seeds 1,
   2 and 3) and only in round 1.
3. **Ties** are best of *N* games, *N* odd (1, 3, 5, ...). A won game is a point, a **drawn
   game half a point to each**, and the tie goes on. The tie is won by the first player to
   reach (N + 1) / 2 points, a majority the other cannot reach in the games left. With
   draws both may end the N games level (a best of 1 drawn): then the **spread** over the
   tie's games (points scored minus conceded) decides, and level on spread too, the
   **higher seed** goes through. So a tie never has more than N games. In game *k* of a
   tie (from 1) the higher seed moves first when *k* is odd, the other when it is even.
4. **Advancing.** The winner of round *r*'s ties 2j and 2j + 1 (slots from 0) meet in round
   r + 1's tie j, the first of them drawn on top.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: The largest field a knockout takes (a bracket of 256 slots, eight rounds).
MAX_ENTRANTS = 256


class BracketError(ValueError):
    """A bracket or a tie that cannot be: each subclass says why."""


class TooFewEntrants(BracketError):
    """A knockout needs at least two entrants."""


class TooManyEntrants(BracketError):
    """More entrants than :data:`MAX_ENTRANTS`."""


class EnteredTwice(BracketError):
    """An entrant appears twice in the seeding."""


class NotBestOfOdd(BracketError):
    """A tie is best of an odd number of games, at least one."""


class TieDecided(BracketError):
    """A game was added to a tie already won."""


class RoundUndecided(BracketError):
    """The next round was asked for while a tie of this one has no winner."""


def seeded_by_rating(ids: Sequence[int], ratings: Mapping[int, float]) -> tuple[int, ...]:
    """``ids`` highest rating first; equal ratings keep the order given."""
    return tuple(sorted(ids, key=lambda pk: -ratings[pk]))


def bracket_size(entrants: int) -> int:
    """The slots of a bracket for ``entrants``: the next power of two at or above."""
    if entrants < 2:
        raise TooFewEntrants("A knockout needs at least two players.")
    size = 2
    while size < entrants:
        size *= 2
    return size


def rounds_of(entrants: int) -> int:
    """How many rounds the bracket for ``entrants`` has (the final is the last)."""
    return bracket_size(entrants).bit_length() - 1


def placement(size: int) -> tuple[int, ...]:
    """Seeds in bracket order, top to bottom: round 1 pairs them two by two.

    Each doubling keeps every seed *s* where it was and puts its round-1 opponent
    (``2 * len + 1 - s``) beneath it: [1, 2] then [1, 4, 2, 3] then [1, 8, 4, 5, 2, 7, 3, 6].
    """
    if size < 2 or size & (size - 1):
        raise BracketError("A bracket's size is a power of two, at least two.")
    order = [1]
    while len(order) < size:
        mirror = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, mirror - top)]
    return tuple(order)


@dataclass(frozen=True)
class Entry:
    """An entrant in the bracket: their id and seed (1 is the top seed)."""

    id: int
    seed: int


@dataclass(frozen=True)
class Tie:
    """One tie of the bracket: its round (from 1), its slot in the round (from 0, top to
    bottom), and the two drawn in it (None: a bye in round 1, or not yet known)."""

    round: int
    slot: int
    top: Entry | None
    bottom: Entry | None

    @property
    def is_bye(self) -> bool:
        """Round 1 with one entrant only: they go through without a game."""
        return self.round == 1 and (self.top is None) != (self.bottom is None)

    @property
    def bye_winner(self) -> Entry | None:
        return (self.top or self.bottom) if self.is_bye else None

    @property
    def higher_seed(self) -> Entry | None:
        """The better-seeded of the two (the one who moves first in odd games)."""
        present = [entry for entry in (self.top, self.bottom) if entry is not None]
        return min(present, key=lambda entry: entry.seed) if present else None


@dataclass(frozen=True)
class Bracket:
    """The draw: slots, rounds and round 1's ties (a bye where a seed is absent)."""

    size: int
    rounds: int
    first_round: tuple[Tie, ...]

    @property
    def byes(self) -> tuple[Entry, ...]:
        return tuple(tie.bye_winner for tie in self.first_round if tie.bye_winner is not None)


def draw(seeding: Sequence[int]) -> Bracket:
    """The bracket for ``seeding`` (entrant ids, seed 1 first), as the module says."""
    if len(set(seeding)) != len(seeding):
        raise EnteredTwice("Each player can be entered only once.")
    if len(seeding) > MAX_ENTRANTS:
        raise TooManyEntrants(f"A knockout takes at most {MAX_ENTRANTS} players.")
    size = bracket_size(len(seeding))
    entries = {seed: Entry(pk, seed) for seed, pk in enumerate(seeding, start=1)}
    order = placement(size)
    ties = tuple(
        Tie(
            round=1,
            slot=slot,
            top=entries.get(order[2 * slot]),
            bottom=entries.get(order[2 * slot + 1]),
        )
        for slot in range(size // 2)
    )
    return Bracket(size=size, rounds=size.bit_length() - 1, first_round=ties)


def next_round(ties: Sequence[Tie], winners: Mapping[int, Entry]) -> tuple[Tie, ...]:
    """Round r + 1's ties from round r's (``ties``) and their winners by slot."""
    missing = [tie.slot for tie in ties if tie.slot not in winners]
    if missing:
        raise RoundUndecided(f"Ties {missing} of this round have no winner yet.")
    if len(ties) < 2:
        raise BracketError("The final has no round after it.")
    number = ties[0].round + 1
    return tuple(
        Tie(round=number, slot=j, top=winners[2 * j], bottom=winners[2 * j + 1])
        for j in range(len(ties) // 2)
    )


# ---------------------------------------------------------------- a best-of-N tie


class Side(enum.Enum):
    """A side of a tie, as drawn."""

    TOP = "top"
    BOTTOM = "bottom"


@dataclass(frozen=True)
class Game:
    """A finished game of a tie: its winner (None for a draw) and the spread from the top's
    side (top's score minus bottom's)."""

    winner: Side | None
    spread: int = 0


@dataclass(frozen=True)
class TieScore:
    """Where a tie stands: points each (a draw half each), spread from the top's side, games
    played, and the winner once decided (None while it goes on)."""

    best_of: int
    top_points: float
    bottom_points: float
    spread: int
    games: int
    winner: Side | None

    @property
    def decided(self) -> bool:
        return self.winner is not None

    @property
    def text(self) -> str:
        """``"2–1"``, halves as ``½``."""

        def show(points: float) -> str:
            whole, half = divmod(points, 1)
            return f"{int(whole) if whole or not half else ''}{'½' if half else ''}"

        return f"{show(self.top_points)}\u2013{show(self.bottom_points)}"


def check_best_of(best_of: int) -> None:
    if best_of < 1 or best_of % 2 == 0:
        raise NotBestOfOdd("A tie is best of an odd number of games: 1, 3, 5, ...")


def majority(best_of: int) -> float:
    """The points that win a best-of-``best_of`` tie."""
    check_best_of(best_of)
    return (best_of + 1) / 2


def score_tie(best_of: int, games: Iterable[Game], *, top_seed: int, bottom_seed: int) -> TieScore:
    """The tie after ``games`` (in order), by the module's rule 3. Refuses a game played
    after the tie was already won (:class:`TieDecided`)."""
    need = majority(best_of)
    top = bottom = 0.0
    spread = played = 0
    winner: Side | None = None
    for game in games:
        if winner is not None:
            raise TieDecided("This tie was already won.")
        played += 1
        spread += game.spread
        if game.winner is Side.TOP:
            top += 1
        elif game.winner is Side.BOTTOM:
            bottom += 1
        else:
            top += 0.5
            bottom += 0.5
        if top >= need:
            winner = Side.TOP
        elif bottom >= need:
            winner = Side.BOTTOM
        elif played == best_of:  # level after every game: spread, then the higher seed
            if spread:
                winner = Side.TOP if spread > 0 else Side.BOTTOM
            else:
                winner = Side.TOP if top_seed < bottom_seed else Side.BOTTOM
    return TieScore(best_of, top, bottom, spread, played, winner)


def higher_seed_first(game_number: int) -> bool:
    """Whether the higher seed moves first in the tie's game ``game_number`` (from 1)."""
    return game_number % 2 == 1


def round_name(number: int, rounds: int) -> str:
    """``"Final"``, ``"Semi-final"``, ``"Quarter-final"``, else ``"Round 2"``."""
    names = {0: "Final", 1: "Semi-final", 2: "Quarter-final"}
    return names.get(rounds - number, f"Round {number}")
