"""Flood control: what one socket, and one client address across every web process, may ask.

**Frames, per socket**: a token bucket, counted as frames arrive. Each socket may send
``burst`` frames at once and ``per_second`` a second after that; a frame over the limit is
answered ``rate_limited`` and not read; after ``close_after`` such answers, unless the client
has meanwhile paused long enough for its whole allowance to come back, the socket is closed
(4429). Frames are counted when they arrive, not when they are answered, so a slow answer
cannot hide a flood behind it; and the few frames the allowance lets through a flood (one
every tenth of a second) do not wipe its count.

**Per address, across processes** (kept in the cache's Redis, so every web process counts
the same sockets; an address is its :func:`accounts.ratelimit.address_scope`, an IPv6
client's whole /64): the sockets it holds open at once (:class:`SocketSlots`), the new
sockets it opens a minute, and the ``sync`` frames it sends a minute (a snapshot each, read
from the database). ``sync`` is also limited per socket (:class:`SyncAllowance`). A slot is
given back when its socket closes; each process renews its sockets' slots while they are
open, so the slots of a process that died expire on their own after
``WS_SOCKET_SLOT_SECONDS``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

import redis
from django.conf import settings

from accounts import ratelimit

logger = logging.getLogger(__name__)


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


class SyncAllowance:
    """One socket's ``sync`` frames: at most ``per_minute`` in any minute (a sliding window)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self.times: deque[float] = deque()

    @classmethod
    def from_settings(cls) -> SyncAllowance:
        return cls(settings.WS_SYNCS_PER_MINUTE_PER_SOCKET)

    def take(self) -> bool:
        """Count one ``sync``; False (nothing counted) when the minute's allowance is spent."""
        now = self.clock()
        while self.times and self.times[0] <= now - 60:
            self.times.popleft()
        if len(self.times) >= self.per_minute:
            return False
        self.times.append(now)
        return True


def new_sockets_per_address() -> ratelimit.Limit:
    return ratelimit.Limit(
        "ws-new-sockets",
        settings.WS_NEW_SOCKETS_PER_MINUTE,
        60,
        "Too many new connections from this address. Wait a minute.",
    )


def syncs_per_address() -> ratelimit.Limit:
    return ratelimit.Limit(
        "ws-syncs",
        settings.WS_SYNCS_PER_MINUTE_PER_ADDRESS,
        60,
        "Too many sync requests from this address. Wait a minute.",
    )


class Admission(Enum):
    """What a new socket from an address is told."""

    ADMITTED = "admitted"
    TOO_MANY_OPEN = "too_many_open"
    TOO_MANY_NEW = "too_many_new"


def admit_socket(address: str, socket_id: str) -> Admission:
    """Count a new socket from ``address`` (this minute's new sockets, then a slot among the
    ones it holds open). Blocking: call it from a worker thread."""
    if not ratelimit.allow(new_sockets_per_address(), address):
        return Admission.TOO_MANY_NEW
    if not socket_slots().take(
        ratelimit.address_scope(address), socket_id, settings.WS_MAX_SOCKETS_PER_ADDRESS
    ):
        return Admission.TOO_MANY_OPEN
    return Admission.ADMITTED


def sync_allowed(address: str) -> bool:
    """Count one ``sync`` from ``address``; False once its minute's allowance is spent.
    Blocking: call it from a worker thread."""
    return ratelimit.allow(syncs_per_address(), address)


class SocketSlots(Protocol):
    """The sockets each address (scope) holds open, across every web process."""

    def take(self, scope: str, socket_id: str, cap: int) -> bool:
        """A slot for ``socket_id``; False (nothing taken) when ``scope`` holds ``cap``."""

    def give_back(self, scope: str, socket_id: str) -> None: ...

    def renew(self, slots: list[tuple[str, str]]) -> None:
        """Keep these ``(scope, socket id)`` slots, still open, from expiring."""


#: KEYS[1]: the scope's slots (socket ids scored by when each expires). ARGV: the socket's id,
#: the cap, how long a slot lives unrenewed. Expired slots (a dead process's) go first; the
#: time is Redis's own, the same for every web process. 1 if the slot was taken.
TAKE_SLOT = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local lifetime = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
    return 0
end
redis.call('ZADD', KEYS[1], now + lifetime, ARGV[1])
redis.call('EXPIRE', KEYS[1], math.ceil(lifetime) + 1)
return 1
"""

#: KEYS: the slots' keys; ARGV: their socket ids, then how long a slot lives unrenewed. Only
#: slots still there are renewed (one given back meanwhile stays given back).
RENEW_SLOTS = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local lifetime = tonumber(ARGV[#KEYS + 1])
for i = 1, #KEYS do
    redis.call('ZADD', KEYS[i], 'XX', now + lifetime, ARGV[i])
    redis.call('EXPIRE', KEYS[i], math.ceil(lifetime) + 1)
end
return #KEYS
"""


class RedisSocketSlots:
    """Slots in Redis (the cache's server and key prefix): one sorted set per scope, its
    members the sockets' ids, scored by the moment each slot expires unless renewed."""

    def __init__(self, url: str, prefix: str) -> None:
        self.client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        self.prefix = prefix
        self.take_slot = self.client.register_script(TAKE_SLOT)
        self.renew_slots = self.client.register_script(RENEW_SLOTS)

    def _key(self, scope: str) -> str:
        return f"{self.prefix}:ws-slots:{scope}"

    def take(self, scope: str, socket_id: str, cap: int) -> bool:
        lifetime = settings.WS_SOCKET_SLOT_SECONDS
        return bool(self.take_slot(keys=[self._key(scope)], args=[socket_id, cap, lifetime]))

    def give_back(self, scope: str, socket_id: str) -> None:
        self.client.zrem(self._key(scope), socket_id)

    def renew(self, slots: list[tuple[str, str]]) -> None:
        if slots:
            keys = [self._key(scope) for scope, _ in slots]
            ids = [socket_id for _, socket_id in slots]
            self.renew_slots(keys=keys, args=[*ids, settings.WS_SOCKET_SLOT_SECONDS])


class LocalSocketSlots:
    """Slots in this process's memory: the one-process quick start, which has no Redis."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open: dict[str, set[str]] = {}

    def take(self, scope: str, socket_id: str, cap: int) -> bool:
        with self.lock:
            held = self.open.setdefault(scope, set())
            if len(held) >= cap:
                return False
            held.add(socket_id)
            return True

    def give_back(self, scope: str, socket_id: str) -> None:
        with self.lock:
            held = self.open.get(scope, set())
            held.discard(socket_id)
            if not held:
                self.open.pop(scope, None)

    def renew(self, slots: list[tuple[str, str]]) -> None:
        """Nothing expires: the process that holds the slots is the only one."""


_slots: SocketSlots | None = None
_slots_made = threading.Lock()


def socket_slots() -> SocketSlots:
    """The process's slots: in the cache's Redis when the cache is Redis, else in memory."""
    global _slots  # noqa: PLW0603 - one per process, made on first use
    if _slots is None:
        with _slots_made:
            if _slots is None:
                cache = settings.CACHES["default"]
                if cache["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
                    _slots = RedisSocketSlots(
                        str(cache["LOCATION"]), str(cache.get("KEY_PREFIX", ""))
                    )
                else:
                    _slots = LocalSocketSlots()
    return _slots


class SlotKeeper:
    """Renews the slots of one event loop's open sockets (one loop per web process), every
    third of a slot's lifetime, in one Redis call; stops when the last socket has left."""

    def __init__(self) -> None:
        self.open: dict[Any, tuple[str, str]] = {}
        self.task: asyncio.Task[None] | None = None

    def keep(self, owner: Any, scope: str, socket_id: str) -> None:
        self.open[owner] = (scope, socket_id)
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._renew_while_open())

    def drop(self, owner: Any) -> None:
        self.open.pop(owner, None)
        if not self.open and self.task is not None:
            self.task.cancel()
            self.task = None

    async def _renew_while_open(self) -> None:
        every = settings.WS_SOCKET_SLOT_SECONDS / 3
        while self.open:
            await asyncio.sleep(every)
            try:
                await asyncio.to_thread(socket_slots().renew, list(self.open.values()))
            except Exception:
                logger.warning("could not renew the sockets' slots", exc_info=True)


_keepers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SlotKeeper] = (
    weakref.WeakKeyDictionary()
)


def slot_keeper() -> SlotKeeper:
    """The running loop's keeper."""
    loop = asyncio.get_running_loop()
    keeper = _keepers.get(loop)
    if keeper is None:
        keeper = _keepers[loop] = SlotKeeper()
    return keeper
