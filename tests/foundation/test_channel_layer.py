"""The news layer (wordduel/channel_layers.py): channels-redis's core layer whose receive is
one pop, against the real Redis: messages arrive whole and in order, nothing is left behind
in a backup set, and groups, expiry and capacity are the core layer's own."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
from channels.layers import get_channel_layer
from django.conf import settings
from redis import asyncio as aioredis

from wordduel.channel_layers import NewsChannelLayer


def _prefix(suffix: str) -> str:
    """This run's own key prefix (the test settings give each run one), plus ``suffix``."""
    return f"{settings.CHANNEL_LAYERS['default']['CONFIG']['prefix']}-{suffix}"


@contextlib.asynccontextmanager
async def _commands_about(prefix: str) -> AsyncIterator[list[str]]:
    """The commands Redis runs, from any client, that name a key of ``prefix`` (MONITOR)."""
    seen: list[str] = []
    client = aioredis.Redis.from_url(settings.REDIS_URL)
    ready = asyncio.Event()

    async def watch() -> None:
        async with client.monitor() as monitor:
            ready.set()
            while True:
                command = (await monitor.next_command())["command"]
                if prefix in command:
                    seen.append(command)

    watcher = asyncio.ensure_future(watch())
    await asyncio.wait_for(ready.wait(), 5)
    await asyncio.sleep(0.1)
    try:
        yield seen
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await client.aclose()


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
        async with _commands_about(layer.prefix) as commands:
            heard_first = [(await layer.receive(first))["number"] for _ in range(5)]
            heard_second = [(await layer.receive(second))["number"] for _ in range(6)]
            await asyncio.sleep(0.2)  # (the core layer's cleaner tasks, now empty, have run)
        assert heard_first == [0, 1, 2, 3, 4]
        assert heard_second == [0, 1, 2, 3, 4, 99]
        # What Redis was asked while they were received: one pop a message, no backup set
        # written, restored or cleaned (the core layer's EVAL, ZADD and ZPOPMIN of "$inflight").
        # Six messages: a process's channels share one key, so a group message for both of
        # them is stored (and popped) once.
        assert [c.split()[0].upper() for c in commands] == ["BZPOPMIN"] * 6
        with pytest.raises(TimeoutError):  # nothing more, and nothing twice
            await asyncio.wait_for(layer.receive(first), 0.5)
    finally:
        await layer.flush()
        await layer.close_pools()


async def test_capacity_and_expiry_are_the_core_layers() -> None:
    layer = NewsChannelLayer(
        hosts=[settings.REDIS_URL],
        prefix=_prefix("capacity"),
        capacity=2,
        expiry=60,
    )
    try:
        channel = await layer.new_channel()
        await layer.group_add("match.3", channel)
        for number in range(4):  # the third and fourth find the channel full: dropped
            await layer.group_send("match.3", {"type": "match.news", "number": number})
        assert [(await layer.receive(channel))["number"] for _ in range(2)] == [0, 1]
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(layer.receive(channel), 0.5)
    finally:
        await layer.flush()
        await layer.close_pools()
