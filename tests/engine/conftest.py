"""Engine fixtures: the real ENABLE lexicon and an anagram index over it, loaded once."""

from __future__ import annotations

import pytest

from engine.randomplay import AnagramIndex
from lexicon.lexicon import Lexicon, get_lexicon


@pytest.fixture(scope="session")
def enable() -> Lexicon:
    """ENABLE, 2-15 letters."""
    return get_lexicon("enable", max_len=15)


@pytest.fixture(scope="session")
def anagrams(enable: Lexicon) -> AnagramIndex:
    """What the random player looks words up in."""
    return AnagramIndex(enable)
