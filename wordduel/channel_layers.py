"""channels-redis's core layer, receiving a message in one Redis round trip instead of four.

The core layer keeps each received message in a backup sorted set until it has been handed
over (a script restores the backup before each blocking pop, and a cleaner task removes the
message after it), so that a ``receive`` cancelled in the middle loses nothing: four round
trips a message, one after another, on the receiving process's event loop. The only reader
here is ``matches/broadcast``, which by design never cancels a receive in the middle (its
last watcher out stops it with a message instead). Under load those four round trips were
what bounded the news: each waits for a turn of an event loop crowded with commits, and the
news fell seconds behind the acks (``bench/live.py``'s commit run, docs/PERFORMANCE.md).
So this layer pops the message and is done.

A group send is two round trips instead of four: the group's expired members dropped and
its channels read in one pipeline, then one script that, for each channel, drops its
expired messages and stores the new one unless the channel is at its capacity. The core
layer sent those as four commands one after another. It can also be made without an event
loop (:meth:`NewsChannelLayer.group_send_blocking`): a worker thread publishing its
commit's news then talks to Redis itself, instead of handing the send to the process's
event loop and waiting for it there (``async_to_sync``). Keys, message format, expiry and
capacity are the core layer's own, and a message dropped at capacity is logged as a
warning (the core layer logs it at INFO), since a socket that misses news resyncs only at
the next turn.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

import redis
from channels_redis.core import RedisChannelLayer
from redis import sentinel

logger = logging.getLogger(__name__)

#: KEYS: the channels' keys; ARGV: their messages, their capacities, then the time now, the
#: layer's expiry, and the cut-off before which a stored message has expired. Returns how
#: many channels were at capacity (their message not stored).
STORE_IN_CHANNELS = """
local count = #KEYS
local now, expiry, expired = ARGV[2 * count + 1], ARGV[2 * count + 2], ARGV[2 * count + 3]
local full = 0
for i = 1, count do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, expired)
    if redis.call('ZCARD', KEYS[i]) < tonumber(ARGV[count + i]) then
        redis.call('ZADD', KEYS[i], now, ARGV[i])
        redis.call('EXPIRE', KEYS[i], expiry)
    else
        full = full + 1
    end
end
return full
"""


class NewsChannelLayer(RedisChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._blocking_clients: dict[int, redis.Redis] = {}

    async def _brpop_with_clean(self, index: int, channel: str, timeout: float) -> Any:
        """The oldest message of ``channel``, waiting up to ``timeout``; None if none came.

        No backup copy: a pop cancelled before its reply was read loses that message (the
        broadcast's readers are not cancelled mid-receive; a client that misses a turn's
        news sees the gap at the next one and resyncs)."""
        result = await self.connection(index).bzpopmin(channel, timeout=timeout)
        return None if result is None else result[1]

    async def _clean_receive_backup(self, index: int, channel: str) -> None:
        """Nothing was backed up."""

    # -- sending to a group ---------------------------------------------------------------

    async def group_send(self, group: str, message: Mapping[str, Any]) -> None:
        """Send ``message`` to every channel of ``group``: two round trips to each host."""
        key = self._checked_group_key(group)
        now = time.time()
        pipe = self.connection(self.consistent_hash(group)).pipeline(transaction=False)
        pipe.zremrangebyscore(key, min=0, max=int(now) - self.group_expiry)
        pipe.zrange(key, 0, -1)
        _, members = await pipe.execute()
        for index, keys, args in self._stores(members, message, now):
            full = await self.connection(index).eval(STORE_IN_CHANNELS, len(keys), *keys, *args)
            self._warn_if_full(group, full)

    def group_send_blocking(self, group: str, message: Mapping[str, Any]) -> None:
        """:meth:`group_send` from a thread without an event loop, with a blocking client."""
        key = self._checked_group_key(group)
        now = time.time()
        pipe = self._blocking(self.consistent_hash(group)).pipeline(transaction=False)
        pipe.zremrangebyscore(key, min=0, max=int(now) - self.group_expiry)
        pipe.zrange(key, 0, -1)
        _, members = pipe.execute()
        for index, keys, args in self._stores(members, message, now):
            full = self._blocking(index).eval(STORE_IN_CHANNELS, len(keys), *keys, *args)
            self._warn_if_full(group, full)

    async def close_pools(self) -> None:
        """The core layer's pools, and the blocking clients' connections, closed."""
        await super().close_pools()
        for client in self._blocking_clients.values():
            client.connection_pool.disconnect()
        self._blocking_clients.clear()

    def _checked_group_key(self, group: str) -> bytes:
        if not self.require_valid_group_name(group):
            raise ValueError(f"invalid group name {group!r}")
        return self._group_key(group)

    def _stores(
        self, members: list[bytes], message: Mapping[str, Any], now: float
    ) -> list[tuple[int, list[bytes], list[Any]]]:
        """For each host holding some of the group's channels: its channel keys and the
        script's arguments (each key's message, as the core layer serialises it for it)."""
        channels = [member.decode("utf8") for member in members]
        by_host, messages, capacities = self._map_channel_keys_to_connection(channels, message)
        expired = int(now) - int(self.expiry)
        return [
            (
                index,
                keys,
                [
                    *(messages[k] for k in keys),
                    *(capacities[k] for k in keys),
                    now,
                    self.expiry,
                    expired,
                ],
            )
            for index, keys in by_host.items()
        ]

    def _warn_if_full(self, group: str, full: int) -> None:
        if full:
            logger.warning(
                "news of %s not stored for %s channel(s) at capacity (%s)",
                group,
                full,
                self.capacity,
            )

    def _blocking(self, index: int) -> redis.Redis:
        """The blocking client of host ``index``, made once and shared by every thread."""
        client = self._blocking_clients.get(index)
        if client is None:
            with _blocking_clients_made:
                client = self._blocking_clients.get(index)
                if client is None:
                    pool = _blocking_pool(self.hosts[index])
                    client = self._blocking_clients[index] = redis.Redis(connection_pool=pool)
        return client


_blocking_clients_made = threading.Lock()


def _blocking_pool(host: dict[str, Any]) -> redis.ConnectionPool:
    """A blocking connection pool for one of the layer's hosts, as channels-redis makes its
    own asynchronous ones (a URL, a Sentinel master, or connection arguments)."""
    host = dict(host)
    if "address" in host:
        return redis.ConnectionPool.from_url(host.pop("address"), **host)
    master_name = host.pop("master_name", None)
    if master_name is not None:
        sentinels = sentinel.Sentinel(
            host.pop("sentinels"), sentinel_kwargs=host.pop("sentinel_kwargs", None)
        )
        return sentinel.SentinelConnectionPool(master_name, sentinels, **host)
    return redis.ConnectionPool(**host)
