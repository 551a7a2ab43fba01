"""channels-redis's core layer, receiving a message in one Redis round trip instead of four.

The core layer keeps each received message in a backup sorted set until it has been handed
over (a script restores the backup before each blocking pop, and a cleaner task removes the
message after it), so that a ``receive`` cancelled in the middle loses nothing: four round
trips a message, one after another, on the receiving process's event loop. The only reader
here is ``matches/broadcast``, which by design never cancels a receive in the middle (its
last watcher out stops it with a message instead). Under load those four round trips were
what bounded the news: each waits for a turn of an event loop crowded with commits, and the
news fell seconds behind the acks (``bench/live.py``'s commit run, docs/PERFORMANCE.md).
So this layer pops the message and is done. Sending, groups, expiry and capacity are the
core layer's own.
"""

from __future__ import annotations

from typing import Any

from channels_redis.core import RedisChannelLayer


class NewsChannelLayer(RedisChannelLayer):
    async def _brpop_with_clean(self, index: int, channel: str, timeout: float) -> Any:
        """The oldest message of ``channel``, waiting up to ``timeout``; None if none came.

        No backup copy: a pop cancelled before its reply was read loses that message (the
        broadcast's readers are not cancelled mid-receive; a client that misses a turn's
        news sees the gap at the next one and resyncs)."""
        result = await self.connection(index).bzpopmin(channel, timeout=timeout)
        return None if result is None else result[1]

    async def _clean_receive_backup(self, index: int, channel: str) -> None:
        """Nothing was backed up."""
