"""Flood control for one socket: a token bucket, counted as frames arrive.

Each socket may send ``burst`` frames at once and ``per_second`` a second after that; a frame
over the limit is answered ``rate_limited`` and not read; after ``close_after`` such answers
in a row the socket is closed (4429). Frames are counted when they arrive, not when they are
answered, so a slow answer cannot hide a flood behind it.
"""

from __future__ import annotations

import time
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
    tokens: float = field(init=False)
    stamp: float = field(default_factory=time.monotonic)
    refused_in_a_row: int = 0

    def __post_init__(self) -> None:
        self.tokens = self.burst

    @classmethod
    def from_settings(cls) -> FloodGate:
        return cls(
            burst=settings.WS_RATE_BURST,
            per_second=settings.WS_RATE_PER_SECOND,
            close_after=settings.WS_FLOOD_CLOSE_AFTER,
        )

    def arrive(self) -> Verdict:
        """Count one frame that has just arrived."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.per_second)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            self.refused_in_a_row = 0
            return Verdict.READ
        if self.refused_in_a_row >= self.close_after:
            return Verdict.CLOSE  # it ignored ``close_after`` refusals in a row
        self.refused_in_a_row += 1
        return Verdict.REFUSE
