"""The word checker: is each word one the board would accept? Pure Python, no Django.

The board's policy (``Game.apply`` via ``services.play``): a word is accepted when its capitals
are in the match's word list, loaded with the ruleset's longest word (``lexicon_max_len``:
15 on the 15 x 15 boards, 11 on outspell's); word lists hold only words of 2 letters or more.
The checker asks the same list the same way, so its answer is the board's.

What it is given is checked first, and refused whole with a :class:`BadWords` naming the
problem: no words, too many, a word that is not letters A-Z, one too long for any board.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from engine import DEFAULT_RULESET, RULESETS, VARIANTS, get_ruleset
from lexicon.lexicon import ENABLE, UnknownLexicon, available_lexicons, get_lexicon

#: Every ruleset a match may be played under, variants included (a Reword match's page asks
#: with ``reword``): each board's longest word is its own.
CHECKABLE_RULESETS: Final = (*RULESETS, *VARIANTS)
#: Words checked at once, at most.
MAX_WORDS: Final = 20
#: The longest word any board holds (15 x 15).
MAX_WORD_LENGTH: Final = max(get_ruleset(name).lexicon_max_len for name in CHECKABLE_RULESETS)
#: The whole query, at most (20 words of 15 letters and their separators fit).
MAX_QUERY_LENGTH: Final = 400
#: Words are separated by spaces, tabs, line breaks or commas.
SEPARATORS: Final = r" \t\r\n,"  # (as a regular expression's character class)
_SEPARATORS = re.compile(f"[{SEPARATORS}]+")
_LETTERS = re.compile(r"[A-Za-z]+")
#: What a valid query looks like, as the API's schema states it (the checks below, in one).
QUERY_PATTERN: Final = (
    f"^[{SEPARATORS}]*(?:[A-Za-z]{{1,{MAX_WORD_LENGTH}}}[{SEPARATORS}]+){{0,{MAX_WORDS - 1}}}"
    f"[A-Za-z]{{1,{MAX_WORD_LENGTH}}}[{SEPARATORS}]*$"
)


class BadWords(ValueError):
    """The words given cannot be checked; ``code`` for programs, the message for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Verdict:
    """One word (in capitals) and whether the board would accept it."""

    word: str
    accepted: bool


@dataclass(frozen=True, slots=True)
class WordCheck:
    """The verdicts, in the order given (each word once), and the list and rules used."""

    lexicon: str
    ruleset: str
    max_length: int
    verdicts: tuple[Verdict, ...]


def parse_words(query: str) -> tuple[str, ...]:
    """The words of ``query`` in capitals, each once, in order (or BadWords).

    ``query`` is accepted exactly when it matches ``QUERY_PATTERN`` and is at most
    ``MAX_QUERY_LENGTH`` characters long; a word given twice counts twice."""
    if len(query) > MAX_QUERY_LENGTH:
        raise BadWords("too_long", f"Ask about at most {MAX_QUERY_LENGTH} characters at once.")
    tokens = [token for token in _SEPARATORS.split(query) if token]
    if len(tokens) > MAX_WORDS:
        raise BadWords("too_many", f"Check at most {MAX_WORDS} words at once.")
    words: list[str] = []
    for token in tokens:
        if not _LETTERS.fullmatch(token):
            raise BadWords(
                "not_letters", f"{token[: MAX_WORD_LENGTH + 5]!r} is not a word: use letters A-Z."
            )
        if len(token) > MAX_WORD_LENGTH:
            raise BadWords(
                "too_long",
                f"{token[:MAX_WORD_LENGTH]}… is too long: no board holds a word of more "
                f"than {MAX_WORD_LENGTH} letters.",
            )
        word = token.upper()
        if word not in words:
            words.append(word)
    if not words:
        raise BadWords("no_words", "Give one or more words, separated by spaces or commas.")
    return tuple(words)


def check_words(
    words: Sequence[str], *, lexicon: str = ENABLE, ruleset: str = DEFAULT_RULESET
) -> WordCheck:
    """Whether the board of a ``ruleset`` match using ``lexicon`` accepts each word."""
    if ruleset not in CHECKABLE_RULESETS:
        raise BadWords(
            "unknown_ruleset", f"ruleset must be one of {', '.join(CHECKABLE_RULESETS)}."
        )
    if lexicon not in available_lexicons():
        raise BadWords(
            "unknown_lexicon", f"lexicon must be one of {', '.join(available_lexicons())}."
        )
    rules = get_ruleset(ruleset)
    try:
        words_list = get_lexicon(lexicon, max_len=rules.lexicon_max_len)
    except UnknownLexicon:
        raise BadWords("unknown_lexicon", f"There is no word list called {lexicon!r}.") from None
    return WordCheck(
        lexicon=lexicon,
        ruleset=rules.name,
        max_length=rules.lexicon_max_len,
        verdicts=tuple(Verdict(word, word.upper() in words_list) for word in words),
    )
