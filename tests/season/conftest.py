"""The season's servers keep their rate limits, queues and layer in a Redis of the season's
own (tests/season/world.py), so the suite-wide reset of the shared Redis's rate limits has
nothing to do here: it is replaced, and the season never waits on the machine's Redis."""

import pytest


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """The season's Redis starts empty with the world."""
    return
