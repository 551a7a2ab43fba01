"""Flood control for one socket: a token bucket, counted as frames arrive.

Each socket may send ``burst`` frames at once and ``per_second`` a second after that; a frame
over the limit is answered ``rate_limited`` and not read; after ``close_after`` such answers,
unless the client has meanwhile paused long enough for its whole allowance to come back, the
socket is closed (4429). Frames are counted when they arrive, not when they are answered, so
a slow answer cannot hide a flood behind it; and the few frames the allowance lets through a
flood (one every tenth of a second) do not wipe its count.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from django.conf import settings


class Verdict(Enum):
    READ = "read"
    REFUSE = "refuse"
    CLOSE = "close"


@dataclass
class FloodGate:
    """Counts one socket's frames; says whether to read, refuse or close on each arrival."""

    burst: float
    per_second: float
    close_after: int
    clock: Callable[[], float] = time.monotonic
    tokens: float = field(init=False)
    stamp: float = field(init=False)
    #: Refusals since the client last let its allowance fill up again.
    refused: int = 0

    def __post_init__(self) -> None:
        self.tokens = self.burst
        self.stamp = self.clock()

    @classmethod
    def from_settings(cls) -> FloodGate:
        return cls(
            burst=settings.WS_RATE_BURST,
            per_second=settings.WS_RATE_PER_SECOND,
            close_after=settings.WS_FLOOD_CLOSE_AFTER,
        )

    def arrive(self) -> Verdict:
        """Count one frame that has just arrived."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.per_second)
        self.stamp = now
        if self.tokens >= self.burst:
            self.refused = 0  # it paused: a fresh start
        if self.tokens >= 1:
            self.tokens -= 1
            return Verdict.READ
        if self.refused >= self.close_after:
            return Verdict.CLOSE  # it ignored ``close_after`` refusals without pausing
        self.refused += 1
        return Verdict.REFUSE


class AddressQuota:
    """How many sockets each client address holds open in this process, capped.

    One visitor cannot hold thousands of sockets (each a task, buffers, a snapshot read):
    past ``WS_MAX_SOCKETS_PER_ADDRESS`` a new socket from that address is refused (4430).
    """

    def __init__(self) -> None:
        self.open: Counter[str] = Counter()

    def take(self, address: str, cap: int) -> bool:
        """Count one more socket from ``address``; False (nothing counted) past ``cap``."""
        if self.open[address] >= cap:
            return False
        self.open[address] += 1
        return True

    def give_back(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


#: This process's sockets by address (one event loop per web process).
SOCKETS_BY_ADDRESS = AddressQuota()
