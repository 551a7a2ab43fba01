"""How hard the suite pushes: ``full`` in ``make test`` (and CI), ``quick`` in ``make check``.

The quick loop runs the same tests with the same assertions, only fewer repetitions of the
randomised ones (races, property-based games, fuzzed frames), so that a developer gets an
answer in about a minute; ``make test`` runs them all in full before anything lands.
"""

from __future__ import annotations

import os

QUICK = os.environ.get("WORDDUEL_TEST_DEPTH", "full") == "quick"


def repetitions(*, full: int, quick: int) -> int:
    """How many times a randomised test repeats its case at this depth."""
    return quick if QUICK else full
