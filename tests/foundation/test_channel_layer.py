"""The news layer (wordduel/channel_layers.py): channels-redis's core layer whose receive is
one pop, against the real Redis: messages arrive whole and in order, nothing is left behind
in a backup set, and groups, expiry and capacity are the core layer's own."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import pytest
import redis
from channels.layers import get_channel_layer
from django.conf import settings
from redis import asyncio as aioredis

from wordduel.channel_layers import POP_AT_ONCE, NewsChannelLayer


def _prefix(suffix: str) -> str:
    """This run's own key prefix (the test settings give each run one), plus ``suffix``."""
    return f"{settings.CHANNEL_LAYERS['default']['CONFIG']['prefix']}-{suffix}"


class _Monitor:
    """The commands Redis runs that name a key of one prefix, as MONITOR shows them."""

    def __init__(self, prefix: str, client: aioredis.Redis) -> None:
        self.prefix = prefix
        self.client = client
        self.commands: list[str] = []
        #: Each marker key run, and whether MONITOR has shown it yet.
        self.markers: dict[str, asyncio.Event] = {}

    async def caught_up(self) -> None:
        """Wait until every command Redis ran before now has been seen: Redis feeds MONITOR
        in the order it runs commands, so once a marker run now is seen, all earlier are."""
        marker = f"{self.prefix}-marker-{len(self.markers)}"
        seen = self.markers[marker] = asyncio.Event()
        await self.client.exists(marker)
        await asyncio.wait_for(seen.wait(), 5)

    def heard(self, command: str, *, scripted: bool) -> None:
        if f"{self.prefix}-marker-" in command:
            self.markers[command.rsplit(maxsplit=1)[-1].strip('"')].set()
        elif self.prefix in command and scripted:
            self.commands.append(command)


@contextlib.asynccontextmanager
async def _commands_about(prefix: str, *, _scripted: bool = True) -> AsyncIterator[_Monitor]:
    """The commands Redis runs, from any client, that name a key of ``prefix`` (MONITOR);
    with ``_scripted=False``, only those sent by clients, not run by a script."""
    client = aioredis.Redis.from_url(settings.REDIS_URL)
    monitor = _Monitor(prefix, client)
    scripts = _scripted

    ready = asyncio.Event()

    async def watch() -> None:
        async with client.monitor() as watching:
            ready.set()
            while True:
                heard = await watching.next_command()
                monitor.heard(heard["command"], scripted=scripts or heard["client_type"] != "lua")

    watcher = asyncio.ensure_future(watch())
    try:
        await asyncio.wait_for(ready.wait(), 5)
        await monitor.caught_up()  # MONITOR is on: it saw a command run after it began
        yield monitor
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await client.aclose()


async def _reader_ended(layer: NewsChannelLayer) -> None:
    """Wait until this event loop's news reader has ended: it ends once it has found nothing
    more to pop with no receive waiting (else it would go on to a blocking pop)."""
    reader = layer._readers.get(asyncio.get_running_loop())
    if reader is not None and reader.task is not None:
        done, _ = await asyncio.wait({reader.task}, timeout=5)
        assert done, "the reader went on reading with no receive waiting"


async def _nothing_more(layer: NewsChannelLayer, channel: str) -> None:
    """Fail if ``channel`` holds anything more: a message sent now is the next it receives
    (anything left, or anything twice, was stored earlier and would come first)."""
    await layer.send(channel, {"type": "match.news", "end": True})
    assert await asyncio.wait_for(layer.receive(channel), 5) == {"type": "match.news", "end": True}


def test_the_core_layer_is_the_news_layer() -> None:
    assert settings.CHANNEL_LAYER_CLASSES["core"] == "wordduel.channel_layers.NewsChannelLayer"
    if settings.CHANNEL_LAYER_BACKEND == "core":
        assert isinstance(get_channel_layer(), NewsChannelLayer)


async def test_a_groups_messages_arrive_in_order_and_leave_no_backup_behind() -> None:
    layer = NewsChannelLayer(hosts=[settings.REDIS_URL], prefix=_prefix("order"))
    try:
        first, second = await layer.new_channel(), await layer.new_channel()
        await layer.group_add("match.1", first)
        await layer.group_add("match.1", second)
        await layer.group_add("match.2", second)
        for number in range(5):
            await layer.group_send("match.1", {"type": "match.news", "number": number})
        await layer.group_send("match.2", {"type": "match.news", "number": 99})
        async with _commands_about(layer.prefix) as monitor:
            heard_first = [(await layer.receive(first))["number"] for _ in range(5)]
            heard_second = [(await layer.receive(second))["number"] for _ in range(6)]
            await _reader_ended(layer)
            await monitor.caught_up()
        commands = monitor.commands
        assert heard_first == [0, 1, 2, 3, 4]
        assert heard_second == [0, 1, 2, 3, 4, 99]
        # What Redis was asked while they were received: the six messages waiting (a
        # process's channels share one key, so a group message for both of them is stored
        # and popped once) in one pop, then one more look that found none, and with nobody
        # left waiting, no blocking wait; no backup set written, restored or cleaned (the
        # core layer's EVAL, ZADD and ZPOPMIN of "$inflight").
        assert [c.split()[0].upper() for c in commands] == ["ZPOPMIN", "ZPOPMIN"]
        assert commands[0].split()[-1].strip('"') == str(POP_AT_ONCE)
        await _nothing_more(layer, first)  # nothing more, and nothing twice
        await _nothing_more(layer, second)
    finally:
        await layer.flush()
        await layer.close_pools()


async def _group_send(layer: NewsChannelLayer, how: str, group: str, message: dict) -> None:
    """Send as an event loop does, or as a worker thread with no loop does."""
    if how == "async":
        await layer.group_send(group, message)
    else:
        await asyncio.to_thread(layer.group_send_blocking, group, message)


SENDS = ["async", "blocking"]


@pytest.mark.parametrize("how", SENDS)
async def test_capacity_and_expiry_are_the_core_layers(how: str, caplog) -> None:
    layer = NewsChannelLayer(
        hosts=[settings.REDIS_URL],
        prefix=_prefix(f"capacity-{how}"),
        capacity=2,
        expiry=60,
    )
    try:
        channel = await layer.new_channel()
        await layer.group_add("match.3", channel)
        for number in range(4):  # the third and fourth find the channel full: dropped
            await _group_send(layer, how, "match.3", {"type": "match.news", "number": number})
        assert [(await layer.receive(channel))["number"] for _ in range(2)] == [0, 1]
        await _nothing_more(layer, channel)
        # ...and said so, where an operator looks (the core layer logs it at INFO)
        dropped = [r for r in caplog.records if r.name == "wordduel.channel_layers"]
        assert [r.levelname for r in dropped] == ["WARNING", "WARNING"]
        assert "match.3" in dropped[0].getMessage()
    finally:
        await layer.flush()
        await layer.close_pools()


@pytest.mark.parametrize("how", SENDS)
async def test_a_group_send_reaches_every_process_in_two_round_trips(how: str) -> None:
    # Two layers with one prefix are two processes: each its own key for its channels.
    prefix = _prefix(f"send-{how}")
    first_process = NewsChannelLayer(hosts=[settings.REDIS_URL], prefix=prefix)
    second_process = NewsChannelLayer(hosts=[settings.REDIS_URL], prefix=prefix)
    try:
        first, second = await first_process.new_channel(), await second_process.new_channel()
        elsewhere = await second_process.new_channel()
        await first_process.group_add("match.4", first)
        await second_process.group_add("match.4", second)
        await second_process.group_add("match.5", elsewhere)
        async with _commands_about(prefix, _scripted=False) as monitor:
            await _group_send(first_process, how, "match.4", {"type": "match.news", "n": 1})
            await _group_send(first_process, how, "match.4", {"type": "match.news", "n": 2})
            await monitor.caught_up()
        commands = monitor.commands
        assert [(await first_process.receive(first))["n"] for _ in range(2)] == [1, 2]
        assert [(await second_process.receive(second))["n"] for _ in range(2)] == [1, 2]
        # Each send: the group read in one pipeline, then one script storing the message in
        # both processes' keys (the core layer sent a further ZREMRANGEBYSCORE and its EVAL
        # one after another: four round trips).
        sent = [command.split()[0].strip('"').upper() for command in commands]
        assert sent == ["ZREMRANGEBYSCORE", "ZRANGE", "EVAL"] * 2
        await _nothing_more(second_process, elsewhere)  # nothing for it, in another group
    finally:
        await first_process.flush()
        await first_process.close_pools()
        await second_process.close_pools()


@pytest.mark.parametrize("how", SENDS)
async def test_expired_members_and_messages_are_dropped_as_the_core_layer_drops_them(
    how: str,
) -> None:
    layer = NewsChannelLayer(
        hosts=[settings.REDIS_URL], prefix=_prefix(f"expiry-{how}"), group_expiry=60, expiry=5
    )
    try:
        current, gone = await layer.new_channel(), await layer.new_channel("other.")
        await layer.group_add("match.6", current)
        # A member that joined longer ago than group_expiry, and a message older than expiry
        # already waiting in the current channel's key: neither may be sent to or read.
        redis = aioredis.Redis.from_url(settings.REDIS_URL)
        try:
            await redis.zadd(layer._group_key("match.6"), {gone: time.time() - 120})
            stale = layer.serialize({"type": "match.news", "n": 0, "__asgi_channel__": [current]})
            key = layer.prefix + layer.non_local_name(current)
            await redis.zadd(key, {stale: time.time() - 60})
            await _group_send(layer, how, "match.6", {"type": "match.news", "n": 1})
            assert await redis.zrange(layer._group_key("match.6"), 0, -1) == [current.encode()]
            assert await redis.exists(layer.prefix + layer.non_local_name(gone)) == 0
        finally:
            await redis.aclose()
        assert (await layer.receive(current))["n"] == 1
        await _nothing_more(layer, current)
    finally:
        await layer.flush()
        await layer.close_pools()


async def test_a_receive_cancelled_loses_nothing() -> None:
    layer = NewsChannelLayer(hosts=[settings.REDIS_URL], prefix=_prefix("cancel"))
    try:
        channel = await layer.new_channel()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(layer.receive(channel), 0.2)  # cancelled while it waits
        await layer.send(channel, {"type": "match.news", "number": 1})
        await layer.send(channel, {"type": "match.news", "number": 2})
        assert (await asyncio.wait_for(layer.receive(channel), 5))["number"] == 1
        assert (await asyncio.wait_for(layer.receive(channel), 5))["number"] == 2
    finally:
        await layer.flush()
        await layer.close_pools()


async def test_a_reader_that_loses_redis_tells_the_receive_and_the_next_one_reads_again() -> None:
    """Redis drops the reader's connection while it waits: the waiting receive raises (so
    the broadcast closes its sockets for a resync), and the next receive reads again."""
    name = f"news-reader-{time.monotonic_ns()}"
    layer = NewsChannelLayer(
        hosts=[{"address": settings.REDIS_URL, "client_name": name}], prefix=_prefix("lost")
    )
    admin = aioredis.Redis.from_url(settings.REDIS_URL)
    try:
        channel = await layer.new_channel()
        waiting = asyncio.ensure_future(layer.receive(channel))
        for _ in range(50):  # until the reader is blocked in its pop
            clients = await admin.client_list()
            blocked = [c for c in clients if c["name"] == name and c["cmd"] == "bzpopmin"]
            if blocked:
                break
            await asyncio.sleep(0.1)
        assert blocked, "the reader never waited on Redis"
        await admin.client_kill_filter(_id=blocked[0]["id"])
        with pytest.raises(redis.exceptions.ConnectionError):
            await asyncio.wait_for(waiting, 5)
        await layer.send(channel, {"type": "match.news", "number": 7})
        assert (await asyncio.wait_for(layer.receive(channel), 5))["number"] == 7
    finally:
        await admin.aclose()
        await layer.flush()
        await layer.close_pools()
