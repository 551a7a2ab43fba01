"""Every way a move can be refused, one exception type per rule.

The message of each rule error is exactly the text of docs/RULES.md, so whatever layer catches
it (a service, a consumer, a view) can show ``str(error)`` to the player unchanged. ``code`` is
a stable machine name for clients that want to react to a particular refusal. Both are in
docs/RULES.md and docs/PROTOCOL.md word for word (tests/foundation/test_rules_document.py).
"""

from __future__ import annotations

from typing import ClassVar


class EngineError(Exception):
    """Base of everything the engine raises on purpose."""


class MoveError(EngineError):
    """A move was refused; nothing changed."""

    code: ClassVar[str] = "move_error"
    default_message: ClassVar[str] = "That move is not allowed."

    def __init__(self, message: str | None = None) -> None:
        self.message = message if message is not None else self.default_message
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class MalformedMove(MoveError):
    """The move is not a well-formed play, swap or pass (wrong shape, type or range)."""

    code = "malformed_move"
    default_message = "That move is not well formed."


class NotKickedOff(MoveError):
    """Rule 1: the fixture's kick-off time has not come (decided by the server)."""

    code = "not_kicked_off"
    default_message = "This match has not kicked off yet."


class MatchOver(MoveError):
    """Rule 1: the game has ended."""

    code = "match_over"
    default_message = "This match is over."


class NotYourTurn(MoveError):
    """Rule 2: the mover is not the player to move (or not seated)."""

    code = "not_your_turn"
    default_message = "It is not your turn."


class StaleTurn(MoveError):
    """Rule 3: the move was made against an older board (decided by the server)."""

    code = "stale_turn"
    default_message = "Your opponent moved. Board updated."


class TilesNotOnRack(MoveError):
    """Rule 4: the move uses tiles the player does not hold."""

    code = "tiles_not_on_rack"
    default_message = "You do not have those tiles."


class SquareTaken(MoveError):
    """Rule 4: a tile was placed on an occupied square."""

    code = "square_taken"
    default_message = "That square is already taken."


class BlankNeedsLetter(MalformedMove):
    """Rule 4: a blank was placed without naming a letter A–Z."""

    code = "blank_needs_letter"
    default_message = "Choose a letter for the blank."


class NotInLine(MoveError):
    """Rule 5: the new tiles are not in one row or column, or leave a gap."""

    code = "not_in_line"
    default_message = "Tiles must go in one row or one column, with no gaps."


class MissesStar(MoveError):
    """Rule 6: the first play does not cover the centre square."""

    code = "misses_star"
    default_message = "The first word has to cover the star."


class FirstWordTooShort(MoveError):
    """Rule 7: the first play places a single tile."""

    code = "first_word_too_short"
    default_message = "The first word must be at least two tiles long."


class NotConnected(MoveError):
    """Rule 8: a later play touches nothing already on the board."""

    code = "not_connected"
    default_message = "A word has to touch what is already on the board."


class NotAWord(MoveError):
    """Rule 9: a word the play forms is not in the lexicon."""

    code = "not_a_word"

    def __init__(self, word: str) -> None:
        self.word = word.upper()
        super().__init__(f"{self.word} is not in the dictionary.")


class BagTooSmall(MoveError):
    """Swap: the bag holds fewer tiles than the ruleset requires for a swap."""

    code = "bag_too_small"
    default_message = "There are not enough tiles left in the bag to swap."


class WholeRackSwap(MoveError):
    """Swap: the ruleset only allows swapping the whole rack (outspell)."""

    code = "whole_rack_swap"
    default_message = "You can only swap your whole rack."


class ChallengeRefused(MoveError):
    """A challenge was refused; nothing changed (each reason is a subclass)."""

    code = "challenge_refused"
    default_message = "That play cannot be challenged."


class ChallengesOff(ChallengeRefused):
    """The game's challenge rule is void: every word was checked as it was played."""

    code = "challenges_off"
    default_message = "This game has no challenges: every word is checked as it is played."


class NoPlayToChallenge(ChallengeRefused):
    """No play is open to a challenge: none yet, or the last turn was no play, or a move
    has been made since."""

    code = "no_play_to_challenge"
    default_message = "There is no play to challenge."


class OwnPlay(ChallengeRefused):
    """The challenger made the play."""

    code = "own_play"
    default_message = "You cannot challenge your own play."


class AlreadyChallenged(ChallengeRefused):
    """The play has been challenged once; its result stands."""

    code = "already_challenged"
    default_message = "That play has already been challenged."


class ChallengeAfterEnd(ChallengeRefused):
    """The game is over and its last play is no longer open to a challenge."""

    code = "challenge_after_end"
    default_message = "This game is over: its plays can no longer be challenged."


class SwapInRound(MoveError):
    """Word Skill: a round takes a play or a pass; there is no swap."""

    code = "swap_in_round"
    default_message = "There is no swap in a round: play a word or pass."


class NotSeated(MoveError):
    """Word Skill: the player is not one of the game's players."""

    code = "not_seated"
    default_message = "You are not playing in this game."


class RoundNotStarted(MoveError):
    """Word Skill: a play or a pass before the player started the round (their tray and
    their timer start together)."""

    code = "round_not_started"
    default_message = "Start the round first."


class RoundAlreadyStarted(MoveError):
    """Word Skill: the player has already started this round."""

    code = "round_already_started"
    default_message = "You have already started this round."


class AlreadySubmitted(MoveError):
    """Word Skill: the player has already played or passed this round."""

    code = "already_submitted"
    default_message = "You have already played this round."


class RoundTimeUp(MoveError):
    """Word Skill: the player's own timer for the round ran out before they submitted."""

    code = "round_time_up"
    default_message = "Your time for this round is up."


class TakesOff(MoveError):
    """Reword: the ruleset has no swaps or steals from the board (every ruleset but reword)."""

    code = "takes_off"
    default_message = "This game has no swaps or steals from the board."


class TooManyTakes(MoveError):
    """Reword: a turn swaps or steals at most four tiles, in any mix."""

    code = "too_many_takes"
    default_message = "You can swap or steal at most 4 tiles in a turn."


class NoTileToTake(MoveError):
    """Reword: a swap or a steal names a square that holds no tile."""

    code = "no_tile_to_take"
    default_message = "There is no tile on that square to swap or steal."


class TakenTwice(MoveError):
    """Reword: a square already swapped or stolen from this turn is named again (the tile a
    swap put down is not taken back the same turn)."""

    code = "taken_twice"
    default_message = "You have already swapped or stolen on that square this turn."


class StealFromShortWord(MoveError):
    """Reword: a steal from a two-letter word (it would erase the word: no one-letter words)."""

    code = "steal_from_short_word"
    default_message = "You can only steal from a word of three letters or more."


class NotAnEndLetter(MoveError):
    """Reword: a steal of a tile that is not the first or last letter of every word it is in."""

    code = "not_an_end_letter"
    default_message = "You can only steal the first or last letter of a word."


class TakeBreaksWord(MoveError):
    """Reword: a swap or a steal would leave a word on the board that is not in the lexicon."""

    code = "take_breaks_word"
    default_message = "A swap or a steal must leave only words on the board."

    def __init__(self, word: str) -> None:
        self.word = word.upper()
        super().__init__(f"That would leave {self.word} on the board, which is not a word.")


class SquareBlocked(MoveError):
    """Reword: the play puts a tile on a square stolen from this turn."""

    code = "square_blocked"
    default_message = "You cannot play on a square you stole from this turn."

    def __init__(self, *, square: str | None = None) -> None:
        self.square = square
        super().__init__(
            None if square is None else f"{square} is blocked: you stole from it this turn."
        )


class TakenTileNotPlayed(MoveError):
    """Reword: a tile swapped or stolen this turn is left on the rack by the play."""

    code = "taken_tile_not_played"
    default_message = "Every tile you swap or steal must be played this turn."

    def __init__(self, *, tile: str | None = None) -> None:
        self.tile = tile
        name = "a blank" if tile == "?" else tile
        super().__init__(
            None if tile is None else f"You took {name} from the board: play it this turn."
        )


class TableNotAllowed(EngineError, ValueError):
    """The ruleset does not allow that many seats (word-duel: 2; classic: 2 to 4)."""


class ChallengeRuleNotAllowed(EngineError, ValueError):
    """The ruleset checks every word as it is played (reword: a take-play is not withdrawn)."""


class UnknownChallengeRule(EngineError, ValueError):
    """No challenge rule has that name (void, single, double, five_point, ten_point)."""


class LexiconNotIterable(EngineError, TypeError):
    """The move generator was given a lexicon it cannot list: a word graph is built from the
    words, so the lexicon must be iterable (a set, a frozenset, a ``Lexicon``), not merely
    answer ``in``."""


class UnknownRuleset(LookupError):
    """No ruleset has that name."""


class LevelNotMeasured(EngineError, LookupError):
    """The ladder bench has measured no rating for that level (and ruleset)."""

    code: ClassVar[str] = "level_not_measured"


class GcgError(ValueError):
    """A GCG record could not be parsed; carries the 1-based line number."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        self.line = line
        self.reason = message
        super().__init__(f"line {line}: {message}" if line is not None else message)
