"""channels-redis's core layer, receiving what waits for the process in one Redis round trip.

The core layer keeps each received message in a backup sorted set until it has been handed
over (a script restores the backup before each blocking pop, and a cleaner task removes the
message after it), so that a ``receive`` cancelled in the middle loses nothing: four round
trips a message, one after another, on the receiving process's event loop, and for each
message a lock taken and two tasks made and cancelled. Under load that was what bounded the
news: each round trip waits for a turn of an event loop crowded with commits, and the news
fell seconds behind the acks (``bench/live.py``'s commit run, docs/PERFORMANCE.md).

So in this layer one reader task per event loop pops the process's messages (all its
channels share one Redis key): every message waiting, up to :data:`POP_AT_ONCE`, in one
``ZPOPMIN``, or, when none waits, the next with a blocking ``BZPOPMIN``; and it hands each to
its channel's queue in this process. A ``receive`` only waits on that queue, so cancelling one
loses nothing. If the reader fails (Redis gone), every channel's next ``receive`` raises its
error, and the receive after that starts a new reader.

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

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import Mapping
from typing import Any

import redis
from channels_redis.core import RedisChannelLayer
from redis import sentinel

logger = logging.getLogger(__name__)

#: The most messages one pop takes off the process's key.
POP_AT_ONCE = 100
#: How long one blocking pop waits. A reader is never cancelled while it waits (Redis may
#: have popped a message for it), so a receive cancelled meanwhile leaves it waiting for up
#: to this long before it sees that nobody is waiting any more and ends.
READER_WAIT_SECONDS = 1.0

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
        self._readers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _ProcessReader] = (
            weakref.WeakKeyDictionary()
        )

    async def receive(self, channel: str) -> dict[str, Any]:
        """The next message of ``channel``. A process channel's (``...!...``) comes from
        this loop's reader; any other's as the core layer receives it."""
        if "!" not in channel:
            return await super().receive(channel)
        if not self.require_valid_channel_name(channel):
            raise ValueError(f"invalid channel name {channel!r}")
        loop = asyncio.get_running_loop()
        reader = self._readers.get(loop)
        if reader is None:
            if any(other.running() for other in self._readers.values()):
                raise RuntimeError("Two event loops are trying to receive() on one layer at once!")
            reader = self._readers[loop] = _ProcessReader(self)
        return await reader.receive(channel)

    async def _brpop_with_clean(self, index: int, channel: str, timeout: float) -> Any:
        """(A channel that is not the process's, as the core layer reads it, without its
        backup copy.)"""
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
        """This loop's reader stopped; the core layer's pools, and the blocking clients'
        connections, closed."""
        reader = self._readers.pop(asyncio.get_running_loop(), None)
        if reader is not None:
            await reader.stop()
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


class _ReaderFailed:
    """Put in a channel's queue when the reader failed: its receive raises ``error``."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class _ProcessReader:
    """One event loop's reader of the process's key, and its channels' queues."""

    def __init__(self, layer: NewsChannelLayer) -> None:
        self.layer = layer
        self.loop = asyncio.get_running_loop()
        self.queues: dict[str, asyncio.Queue[Any]] = {}
        self.task: asyncio.Task[None] | None = None
        #: The receives waiting now: with none, the reader ends when it finds nothing more.
        self.waiting = 0

    def running(self) -> bool:
        return self.task is not None and not self.task.done() and not self.loop.is_closed()

    async def receive(self, channel: str) -> dict[str, Any]:
        queue = self.queues.get(channel)
        if queue is None:
            queue = self.queues[channel] = asyncio.Queue(self.layer.capacity)
        if queue.empty() and not self.running():
            self.task = self.loop.create_task(self._read(self.layer.non_local_name(channel)))
        self.waiting += 1
        try:
            item = await queue.get()
        finally:
            self.waiting -= 1
        if queue.empty():  # (as the core layer: a channel with nothing waiting keeps no queue)
            self.queues.pop(channel, None)
        if isinstance(item, _ReaderFailed):
            raise item.error
        return item

    async def stop(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def _read(self, process_channel: str) -> None:
        layer = self.layer
        key = layer.prefix + process_channel
        connection = layer.connection(layer.consistent_hash(process_channel))
        try:
            while True:
                popped = await connection.zpopmin(key, POP_AT_ONCE)
                if not popped:
                    if not self.waiting:
                        return  # nobody to wait for: the next receive starts a reader
                    waited = await connection.bzpopmin(key, timeout=READER_WAIT_SECONDS)
                    if waited is None:
                        continue
                    popped = [(waited[1], waited[2])]
                for content, _score in popped:
                    self._hand_over(layer.deserialize(content))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - Redis gone: each channel hears at its receive
            logger.warning("the news reader lost Redis: %s", error)
            for queue in self.queues.values():
                _put(queue, _ReaderFailed(error))

    def _hand_over(self, message: dict[str, Any]) -> None:
        """Into the queue of each channel of this process the message is for."""
        channels = message.pop("__asgi_channel__", None)
        for channel in channels if isinstance(channels, list) else [channels]:
            if channel is None:
                logger.warning("a message for the process with no channel: dropped")
                continue
            queue = self.queues.get(channel)
            if queue is None:
                queue = self.queues[channel] = asyncio.Queue(self.layer.capacity)
            _put(queue, message)


def _put(queue: asyncio.Queue[Any], item: Any) -> None:
    """Put ``item`` last; a queue at capacity (a channel nobody reads) drops its oldest, as
    the core layer's buffer does, so that it does not grow without end."""
    if queue.full():
        queue.get_nowait()
        logger.warning("a channel's queue is at capacity: its oldest message dropped")
    queue.put_nowait(item)


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
