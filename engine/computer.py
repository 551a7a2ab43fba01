"""The computer player: which move to make, from what its seat may see and nothing else.

Its input is a :class:`SeatPosition`: the board, its own rack, every seat's score and rack
count (a duel's two, or a table's 3-4), the bag's count and the run of scoreless turns.
Those are the facts a seat's view shows (the server builds the position from that view
alone), so the other racks and the bag's contents cannot reach it. The tiles it has not
seen (the full set less the board and its rack) are the one thing it works out, as a
player at the table can.

Easy picks among a wide group of good plays, Normal among a smaller, stronger group, Greedy
(the bench's reference) the highest-scoring, and Hard by score plus rack leave
(:mod:`engine.leave`), the way Quackle and Macondo choose: it weighs each play and
each swap by its points and what the tiles it keeps are worth to its next turn, and once
the bag is empty (the unseen tiles then being the other racks, as anyone at the table can
count) by going out and the tiles it would be left holding. A vocabulary (Word Skill's
cap on word difficulty, ``lexicon.difficulty``) narrows the words it may play, never the
words the board accepts. The other levels go out when the bag is empty and a play uses
their last tiles, and swap when their best play is poor and the bag allows it; every level
passes when that ends the game with a win it is sure of, or when it has nothing else.

Under a challenge rule, ``decide_challenge`` says whether it challenges the last play: Easy
never, Normal a phony short enough to be sure of, Hard any phony; none a good play.

The choice is a pure function of the position and the random source it is given: the same
position and the same seed give the same move.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Collection, Container, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Final, Literal

from .board import Board
from .leave import LeaveTable, leave_table
from .movegen import LegalMove, legal_plays, ranked
from .moves import BLANK, MAX_TAKES, Pass, Swap, SwapTake, TakePlay
from .rulesets import Ruleset, get_ruleset
from .takegen import take_plays
from .tiles import remove_tiles, sort_rack

#: Why the computer chose its move (for logs and tests).
Reason = Literal["play", "go_out", "swap", "pass_wins", "pass_nothing_else", "endgame"]

#: A best play worth less than this (with a swap allowed) means the rack is the problem.
SWAP_BELOW: Final = 8
#: The tiles worth keeping when swapping, best first: the letters that make the most words.
KEEPERS: Final = "SERATIN"
#: At most this many vowels are kept back from a swap.
MAX_KEPT_VOWELS: Final = 2
VOWELS: Final = frozenset("AEIOU")
#: Endgame: a tile kept that no play on this board can use costs this many times its value
#: more (it will likely be counted against its holder, and handed to the opponent).
STUCK_FACTOR: Final = 1.0
#: Reword: seconds a choice may spend looking for swaps and steals (docs/PERFORMANCE.md,
#: "Reword's computer", measured by bench/reword.py). Every one-take move of a position is
#: usually found well within it; the budget bounds Hard's two-take search.
TAKE_BUDGET: Final = 2.0


@dataclass(frozen=True, slots=True)
class Level:
    """How the computer picks among its plays: uniformly among the ``pool`` best, keeping only
    those worth at least ``floor`` times the best play's score; with ``leave``, by score plus
    rack leave instead (and endgame care once the bag is empty)."""

    name: str
    pool: int
    floor: float
    leave: bool = field(default=False, kw_only=True)
    #: The longest phony it is sure enough of to challenge (0: it never challenges).
    challenge_length: int = field(default=0, kw_only=True)
    #: Reword: the most swaps and steals it looks for in a turn (0: plain plays only).
    takes: int = field(default=1, kw_only=True)
    #: Reword: the chance that it looks for swaps and steals at all on a turn.
    take_chance: float = field(default=1.0, kw_only=True)

    def __post_init__(self) -> None:
        if self.pool < 1 or not 0.0 <= self.floor <= 1.0:
            raise ValueError(f"level {self.name}: pool >= 1 and 0 <= floor <= 1")
        if self.challenge_length < 0:
            raise ValueError(f"level {self.name}: challenge_length >= 0")
        if not 0 <= self.takes <= MAX_TAKES or not 0.0 <= self.take_chance <= 1.0:
            raise ValueError(f"level {self.name}: 0 <= takes <= 4 and 0 <= take_chance <= 1")


# The levels are set by what they reach, measured by bench/bots.py (docs/PERFORMANCE.md,
# "### The ladder"): each wins clearly more than 60 % of its games against the one below,
# head to head, in every ruleset. Normal sits between Easy and Hard: nearer Greedy (pool 5,
# floor 0.75) Hard beat it only 57 % of the time in outspell.
#: Normal challenges a phony of at most this many letters: the short words are the ones a
#: club player knows by heart, so it is sure of those; a longer one may be a word it has
#: not met, and it lets it stand.
NORMAL_SURE_LENGTH: Final = 4
#: Hard knows the lexicon: it challenges a phony of any length.
ANY_LENGTH: Final = 99
# Challenges (RULES.md section 18): Easy never; Normal a short phony; Hard any phony. None
# challenges a word the lexicon holds, so none loses a turn or gives points to a good play.
# Reword: Easy mostly plays plainly (it looks for one swap or steal one turn in five); Normal
# looks for one-take moves; Hard for one and two takes, the best it finds within the budget.
EASY: Final = Level("easy", pool=20, floor=0.4, take_chance=0.2)
NORMAL: Final = Level("normal", pool=8, floor=0.6, challenge_length=NORMAL_SURE_LENGTH)
GREEDY: Final = Level("greedy", pool=1, floor=1.0)
HARD: Final = Level("hard", pool=1, floor=1.0, leave=True, challenge_length=ANY_LENGTH, takes=2)
#: The levels a member may choose. Greedy is not one: it is the bench's reference.
LEVELS: Final[dict[str, Level]] = {level.name: level for level in (EASY, NORMAL, HARD)}


def get_level(name: str | Level) -> Level:
    """A level by name (``easy``, ``normal``, ``hard``); a Level passes through."""
    if isinstance(name, Level):
        return name
    try:
        return LEVELS[name]
    except (KeyError, TypeError):
        raise ValueError(f"No level is called {name!r}: easy, normal or hard.") from None


@dataclass(frozen=True, slots=True)
class SeatPosition:
    """What one seat knows when it is to move: nothing a seat's view does not show."""

    ruleset: Ruleset
    board: Board
    seat: int
    rack: tuple[str, ...]
    #: Every seat's score, in seat order (First's, then Second's, ...): two to four.
    scores: tuple[int, ...]
    bag_count: int
    #: The tiles on the other seats' racks together (at a duel, the opponent's rack).
    opponent_rack_count: int
    #: Scoreless turns (passes and swaps) in a row just before this one.
    scoreless_streak: int
    #: Every seat's rack count, in seat order (its own included).
    rack_counts: tuple[int, ...] = ()

    @classmethod
    def build(
        cls,
        *,
        ruleset: str | Ruleset,
        board_rows: Sequence[str],
        seat: int,
        rack: Iterable[str],
        scores: Sequence[int],
        bag_count: int,
        opponent_rack_count: int | None = None,
        rack_counts: Sequence[int] | None = None,
        scoreless_streak: int,
    ) -> SeatPosition:
        """A checked position: the board fits the ruleset, the table is one it seats, the
        rack holds tiles, and the tiles not seen add up to the bag and the other racks (or
        ValueError). At a duel ``opponent_rack_count`` may stand for ``rack_counts``."""
        rules = get_ruleset(ruleset)
        board = Board.from_rows(board_rows)
        if board.size != rules.board_size:
            raise ValueError(f"a {board.size} x {board.size} board under ruleset {rules.name}")
        players = len(scores)
        if players not in rules.seat_counts:
            raise ValueError(f"the {rules.name} ruleset does not seat {players} players")
        if not (isinstance(seat, int) and 0 <= seat < players):
            raise ValueError(f"seat {seat!r} is not one of the {players} seats")
        tiles = sort_rack(rack)
        if len(tiles) > rules.rack_size or any(
            tile != BLANK and tile not in rules.value_of for tile in tiles
        ):
            raise ValueError(f"not a rack: {''.join(tiles)!r}")
        if rack_counts is None:
            if opponent_rack_count is None or players != 2:
                raise ValueError("a table's position needs every seat's rack count")
            counts = [len(tiles)] * 2
            counts[1 - seat] = opponent_rack_count
            rack_counts = counts
        counts_seen = tuple(int(count) for count in rack_counts)
        if len(counts_seen) != players or counts_seen[seat] != len(tiles):
            raise ValueError("a rack count per seat (this seat's is its rack's)")
        others = sum(counts_seen) - len(tiles)
        if opponent_rack_count is not None and opponent_rack_count != others:
            raise ValueError("the other racks' count disagrees with the rack counts")
        if min(bag_count, scoreless_streak, *counts_seen) < 0:
            raise ValueError("counts cannot be negative")
        position = cls(
            rules,
            board,
            seat,
            tiles,
            tuple(scores),
            bag_count,
            others,
            scoreless_streak,
            counts_seen,
        )
        hidden = bag_count + others
        if len(position.unseen) != hidden:
            raise ValueError(
                f"{len(position.unseen)} tiles unseen, but the bag and other racks hold {hidden}"
            )
        return position

    @property
    def players(self) -> int:
        """How many seats the table has."""
        return len(self.scores)

    @property
    def unseen(self) -> tuple[str, ...]:
        """The tiles this seat has not seen: the full set less the board and its own rack.

        They are in the bag or on the other racks; once the bag is empty, they are the other
        racks exactly (any player at the table can count them)."""
        left = Counter(self.ruleset.full_bag)
        left.subtract(self.board.tiles())
        left.subtract(self.rack)
        if any(count < 0 for count in left.values()):
            raise ValueError("the board and the rack hold more of a tile than the set has")
        return tuple(sorted(left.elements()))

    @property
    def can_swap(self) -> bool:
        """Whether the bag holds enough tiles for this rack to swap."""
        return bool(self.rack) and self.bag_count >= self.ruleset.swap_bag_needed(len(self.rack))

    @property
    def scoreless_move_ends_game(self) -> bool:
        """Whether a pass or a swap now would be the last of the scoreless turns that end it
        (three rounds of the table)."""
        return self.scoreless_streak + 1 >= self.ruleset.scoreless_turns_at(self.players)

    def wins_if_game_ends_now(self) -> bool:
        """Whether, the game ending now on scoreless turns (each rack counted against its
        holder), this seat would surely finish ahead of every other: it assumes each other
        seat holds the cheapest of the unseen tiles."""
        rules = self.ruleset
        mine = self.scores[self.seat] - rules.rack_value(self.rack)
        cheapest = sorted(rules.tile_value(tile) for tile in self.unseen)
        return all(
            mine > self.scores[other] - sum(cheapest[: self.rack_counts[other]])
            for other in range(self.players)
            if other != self.seat
        )


@dataclass(frozen=True, slots=True)
class Choice:
    """The move the computer makes, why, and how many plays it picked among."""

    move: LegalMove
    reason: Reason
    pool: int = 1


def choose_move(
    position: SeatPosition,
    *,
    lexicon: Collection[str],
    level: Level | str,
    rng: random.Random,
    vocabulary: Container[str] | None = None,
    leaves: LeaveTable | None = None,
    take_budget: float = TAKE_BUDGET,
) -> Choice:
    """The computer's move in ``position``: always legal there under ``lexicon``.

    ``vocabulary`` holds the words it may play (every word a play forms must be in it);
    None allows every word of ``lexicon``. ``rng`` is its only source of chance. ``leaves``
    is the leave table a leave level weighs by; None takes the ruleset's shipped one.
    Under a ruleset with swaps and steals (reword) it also weighs the take-plays it finds
    within ``take_budget`` seconds (one take each for Easy and Normal, up to two for Hard).
    """
    chosen_level = get_level(level)
    plays = legal_plays(position.board, position.rack, ruleset=position.ruleset, lexicon=lexicon)
    if (
        position.ruleset.swap_and_steal
        and chosen_level.takes
        and rng.random() < chosen_level.take_chance
    ):
        plays += take_plays(
            position.board,
            position.rack,
            ruleset=position.ruleset,
            lexicon=lexicon,
            max_takes=chosen_level.takes,
            deadline=time.monotonic() + take_budget,
        )
    if vocabulary is not None:
        plays = tuple(play for play in plays if all(word.word in vocabulary for word in play.words))
    ends = position.scoreless_move_ends_game

    if ends and position.wins_if_game_ends_now():
        return Choice(LegalMove(Pass()), "pass_wins")
    # A leave level weighs every play and needs no ranking but among its ties: sorting
    # tens of thousands of plays (two blanks) costs more than weighing them.
    if chosen_level.leave and plays:
        if position.bag_count == 0:
            return _endgame_choice(position, plays)
        table = leaves if leaves is not None else leave_table(position.ruleset.name)
        return _leave_choice(position, plays, table)
    best_first = ranked(plays)
    if position.bag_count == 0:
        going_out = tuple(play for play in best_first if not kept_tiles(position.rack, play))
        if going_out:
            return _pick(going_out, chosen_level, rng, "go_out")
    best_score = best_first[0].score if best_first else None
    weak = best_score is None or best_score < SWAP_BELOW
    # A swap that ends the game changes nothing for the better: then play, or pass.
    if weak and position.can_swap and not ends:
        tiles = tiles_to_swap(position.rack, ruleset=position.ruleset)
        if tiles:
            return Choice(LegalMove(Swap(tiles)), "swap")
    if best_first:
        return _pick(best_first, chosen_level, rng, "play")
    return Choice(LegalMove(Pass()), "pass_nothing_else")


#: Why the computer challenges the last play or lets it stand.
ChallengeReason = Literal["phony", "no_phony", "never", "unsure"]


@dataclass(frozen=True, slots=True)
class ChallengeDecision:
    """Whether the computer challenges the last play, and why."""

    challenge: bool
    reason: ChallengeReason
    #: The phonies it is sure of (what it challenges for); empty when it lets the play stand.
    phonies: tuple[str, ...] = ()


def decide_challenge(
    words: Iterable[str], *, lexicon: Container[str], level: Level | str
) -> ChallengeDecision:
    """Whether the computer challenges the last play, which formed ``words`` (what a seat's
    view shows of it), judged on ``lexicon``.

    Easy (and Greedy) never challenge. Normal challenges only a phony it is sure of: one of
    at most ``NORMAL_SURE_LENGTH`` letters. Hard challenges a play with any word not in the
    lexicon. No level challenges a play whose every word is in the lexicon, whatever the
    rule's cost of a wrong challenge.
    """
    chosen = get_level(level)
    if chosen.challenge_length == 0:
        return ChallengeDecision(challenge=False, reason="never")
    phonies = tuple(dict.fromkeys(word for word in words if word not in lexicon))
    if not phonies:
        return ChallengeDecision(challenge=False, reason="no_phony")
    sure = tuple(word for word in phonies if len(word) <= chosen.challenge_length)
    if not sure:
        return ChallengeDecision(challenge=False, reason="unsure")
    return ChallengeDecision(challenge=True, reason="phony", phonies=sure)


def kept_tiles(rack: Sequence[str], move: LegalMove) -> tuple[str, ...]:
    """What ``rack`` holds after ``move``'s tiles leave it (a blank played leaves a ``?``)."""
    if isinstance(move.move, Swap):
        gone: Iterable[str] = move.move.tiles
    elif isinstance(move.move, TakePlay):
        # The rack gives the tiles swapped down, and the play's tiles that were not taken.
        played = Counter(BLANK if tile.blank else tile.letter for tile in move.tiles)
        swapped = [t.placed.rack_tile for t in move.move.takes if isinstance(t, SwapTake)]
        gone = [*swapped, *(played - Counter(move.taken)).elements()]
    else:
        gone = (BLANK if tile.blank else tile.letter for tile in move.tiles)
    kept = remove_tiles(tuple(rack), gone)
    if kept is None:
        raise ValueError("the move uses tiles the rack does not hold")
    return sort_rack(kept)


def _leave_choice(position: SeatPosition, plays: Sequence[LegalMove], leaves: LeaveTable) -> Choice:
    """The play or swap with the most points plus leave value (ties: the ranked order, a
    play before a swap)."""
    rack = position.rack
    # Many plays use the same tiles (a blank's letters, the same word placed elsewhere):
    # each distinct set of tiles played is valued once.
    worth: dict[tuple[str, ...], float] = {}
    equities = []
    for play in plays:
        used = _tiles_used(play)
        if play.taken:  # a take-play keeps what its takes left: not a function of ``used``
            used = (*used, "|", *kept_tiles(rack, play))
        leave = worth.get(used)
        if leave is None:
            leave = worth[used] = leaves.value(kept_tiles(rack, play))
        equities.append(play.score + leave)
    top = max(equities)
    best: tuple[float, LegalMove, Reason] = (top, _first_ranked(plays, equities, top), "play")
    if position.can_swap and not position.scoreless_move_ends_game:
        for swap in _swaps(position):
            equity = leaves.value(kept_tiles(rack, swap))
            if equity > best[0]:
                best = (equity, swap, "swap")
    return Choice(best[1], best[2])


def _first_ranked(plays: Sequence[LegalMove], equities: Sequence[float], top: float) -> LegalMove:
    """Of the plays whose equity is ``top``, the first in the ranked order."""
    return min(
        (play for play, equity in zip(plays, equities, strict=True) if equity == top),
        key=lambda play: play.sort_key,
    )


def _tiles_used(play: LegalMove) -> tuple[str, ...]:
    """The rack tiles a play uses, as a sorted key (a blank played is a ``?``)."""
    return tuple(sorted(BLANK if tile.blank else tile.letter for tile in play.tiles))


def _swaps(position: SeatPosition) -> tuple[LegalMove, ...]:
    """Every distinct swap the ruleset allows for this rack (the whole rack, or any part)."""
    rack = position.rack
    if position.ruleset.swap_whole_rack:
        return (LegalMove(Swap(rack)),)
    subsets = {combo for size in range(1, len(rack) + 1) for combo in combinations(rack, size)}
    return tuple(LegalMove(Swap(combo)) for combo in sorted(subsets, key=lambda c: (len(c), c)))


def _endgame_choice(position: SeatPosition, plays: Sequence[LegalMove]) -> Choice:
    """With the bag empty the unseen tiles are the opponent's rack: a play that goes out
    earns that rack's value (twice, where the ruleset gives it to whoever goes out); one that
    does not is charged twice the tiles it keeps (the opponent may go out next), and again
    for a kept tile no play on this board can use."""
    rules = position.ruleset
    rack = position.rack
    theirs = rules.rack_value(position.unseen)
    out_bonus = theirs * (2 if rules.out_gains_opponent_rack else 1)
    usable = {BLANK if tile.blank else tile.letter for play in plays for tile in play.tiles}
    equities = []
    for play in plays:
        kept = kept_tiles(rack, play)
        if not kept:
            equity = float(play.score + out_bonus)
        else:
            stuck = sum(rules.tile_value(tile) for tile in kept if tile not in usable)
            equity = play.score - 2.0 * rules.rack_value(kept) - STUCK_FACTOR * stuck
        equities.append(equity)
    move = _first_ranked(plays, equities, max(equities))
    return Choice(move, "endgame" if kept_tiles(rack, move) else "go_out")


def _pick(
    best_first: Sequence[LegalMove], level: Level, rng: random.Random, reason: Reason
) -> Choice:
    """One of the level's group of the best plays, uniformly (the plays are ranked)."""
    least = best_first[0].score * level.floor
    group = [play for play in best_first[: level.pool] if play.score >= least]
    return Choice(group[rng.randrange(len(group))], reason, len(group))


def tiles_to_swap(rack: Sequence[str], *, ruleset: Ruleset | str) -> tuple[str, ...]:
    """The tiles to return: the whole rack where the ruleset says so; otherwise all but the
    blanks and one each of ``KEEPERS`` (at most ``MAX_KEPT_VOWELS`` vowels). Empty when
    nothing is worth returning (a rack of blanks)."""
    rules = get_ruleset(ruleset)
    tiles = sort_rack(rack)
    if rules.swap_whole_rack:
        return tiles
    kept = [tile for tile in tiles if tile == BLANK]
    vowels = 0
    for letter in KEEPERS:
        if letter in tiles and (letter not in VOWELS or vowels < MAX_KEPT_VOWELS):
            kept.append(letter)
            vowels += letter in VOWELS
    returned = remove_tiles(tiles, kept) or ()
    if not returned:  # every tile a keeper: a fresh start for all but the blanks
        returned = tuple(tile for tile in tiles if tile != BLANK)
    return sort_rack(returned)
