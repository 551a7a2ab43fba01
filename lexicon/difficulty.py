"""How hard a word is, 1 (commonest) to 100 (rarest), from how often English text uses it.

Word Skill's bot plays only words at or under a difficulty cap; this is that scale. The
frequencies are ``wordfreq``'s (its "best" English list, a blend of subtitles, Wikipedia,
books, news and the web), on its Zipf scale: log10 of uses per billion words, from about 1
(once in a hundred million words) to 7.7 ("the"). The scale is linear in Zipf: 7 and above
is 1, 1 is 100, and a word wordfreq has never seen is 100. So a cap of 50 keeps the words used
at least once in a hundred thousand (Zipf 4): about 6,400 of ENABLE's 168,548.

A table is built once per lexicon (about half a second for ENABLE: wordfreq's list is read,
each word looked up, the list dropped) and kept for the life of the process, holding only
the words under 100. Pure Python, no Django.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from functools import lru_cache
from typing import Final

import wordfreq

#: The scale's ends.
EASIEST: Final = 1
HARDEST: Final = 100
#: Zipf frequencies mapped to the ends of the scale (linear between them).
ZIPF_COMMONEST: Final = 7.0
ZIPF_RAREST: Final = 1.0


def difficulty_of_zipf(zipf: float) -> int:
    """A Zipf frequency on the 1-100 scale (0, "never seen", is 100)."""
    if zipf <= 0:
        return HARDEST
    share = (ZIPF_COMMONEST - zipf) / (ZIPF_COMMONEST - ZIPF_RAREST)
    return max(EASIEST, min(HARDEST, EASIEST + round((HARDEST - EASIEST) * share)))


def check_cap(cap: object) -> int:
    """A difficulty cap as given, if it is a whole number from 1 to 100 (else ValueError)."""
    if isinstance(cap, bool) or not isinstance(cap, int) or not EASIEST <= cap <= HARDEST:
        raise ValueError(f"A difficulty cap is a whole number from {EASIEST} to {HARDEST}.")
    return cap


class WordDifficulty:
    """The difficulty of every word of one lexicon (upper case), read-only once built."""

    __slots__ = ("build_seconds", "levels", "name", "word_count")

    def __init__(self, words: Collection[str], *, name: str) -> None:
        started = time.perf_counter()
        # wordfreq's list read afresh (its own cached readers would keep it for good): one
        # bucket of words per centibel of frequency, commonest first.
        buckets = wordfreq.read_cBpack(wordfreq.available_languages("best")["en"])
        #: Every word under 100; the rest are 100.
        self.levels: dict[str, int] = {}
        for index, bucket in enumerate(buckets):
            level = difficulty_of_zipf(wordfreq.cB_to_zipf(-index))
            if level == HARDEST:
                break
            for token in bucket:
                word = token.upper()
                if word in words and word not in self.levels:
                    self.levels[word] = level
        self.name = name
        self.word_count = len(words)
        self.build_seconds = time.perf_counter() - started

    def __getitem__(self, word: str) -> int:
        """The word's difficulty (100 for a word the table does not know)."""
        return self.levels.get(word.upper(), HARDEST)

    def at_most(self, cap: int) -> Vocabulary:
        """The words of difficulty ``cap`` or less, as a container."""
        return Vocabulary(self, check_cap(cap))

    def count_at_most(self, cap: int) -> int:
        """How many of the lexicon's words a cap leaves."""
        if check_cap(cap) == HARDEST:
            return self.word_count
        return sum(1 for level in self.levels.values() if level <= cap)


class Vocabulary:
    """The words a capped computer may play: those at or under ``cap`` (100: every word).

    Words are looked up as given, in capitals (as the engine spells them)."""

    __slots__ = ("_levels", "cap", "difficulty")

    def __init__(self, difficulty: WordDifficulty, cap: int) -> None:
        self.difficulty = difficulty
        self.cap = check_cap(cap)
        self._levels = difficulty.levels

    def __contains__(self, word: object) -> bool:
        if self.cap == HARDEST:
            return True
        return isinstance(word, str) and self._levels.get(word, HARDEST) <= self.cap

    def __repr__(self) -> str:
        return f"<Vocabulary {self.difficulty.name}: difficulty at most {self.cap}>"


@lru_cache(maxsize=4)
def word_difficulty(lexicon: Collection[str]) -> WordDifficulty:
    """The table of ``lexicon``, built on first use and kept (the few most recent lexicons).

    Keyed by the lexicon object itself (``get_lexicon`` keeps one per name for the life of
    the process); the cache holds it, so it cannot be replaced by another at the same id."""
    name = str(getattr(lexicon, "name", "") or type(lexicon).__name__)
    return WordDifficulty(lexicon, name=name)
