"""The channel layer is channels-redis's own, as shipped (wordduel/settings.py), against the
real Redis: a group's messages arrive whole and in order in every process, a worker thread
publishes through the public ``group_send``, and capacity, group expiry and a cancelled
receive behave as the news (matches/live/broadcast.py) relies on."""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings
from redis import asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from matches.news import SIGN_OUTS_GROUP, publish_sign_out


def _prefix(suffix: str) -> str:
    """This run's own key prefix (the test settings give each run one), plus ``suffix``."""
    return f"{settings.CHANNEL_LAYERS['default']['CONFIG']['prefix']}-{suffix}"


async def _nothing_more(layer: RedisChannelLayer, channel: str) -> None:
    """Fail if ``channel`` holds anything more: a message sent now is the next it receives
    (anything left, or anything twice, was stored earlier and would come first)."""
    await layer.send(channel, {"type": "match.news", "end": True})
    assert await asyncio.wait_for(layer.receive(channel), 5) == {"type": "match.news", "end": True}


def test_the_layers_are_channels_redis_own() -> None:
    assert settings.CHANNEL_LAYER_CLASSES == {
        "core": "channels_redis.core.RedisChannelLayer",
        "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
    }
    expected = {"core": RedisChannelLayer, "pubsub": RedisPubSubChannelLayer}
    assert type(get_channel_layer()) is expected[settings.CHANNEL_LAYER_BACKEND]


async def test_a_groups_messages_arrive_in_order_each_once() -> None:
    layer = RedisChannelLayer(hosts=[settings.REDIS_URL], prefix=_prefix("order"))
    try:
        first, second = await layer.new_channel(), await layer.new_channel()
        await layer.group_add("match.1", first)
        await layer.group_add("match.1", second)
        await layer.group_add("match.2", second)
        for number in range(5):
            await layer.group_send("match.1", {"type": "match.news", "number": number})
        await layer.group_send("match.2", {"type": "match.news", "number": 99})
        heard_first = [(await layer.receive(first))["number"] for _ in range(5)]
        heard_second = [(await layer.receive(second))["number"] for _ in range(6)]
        assert heard_first == [0, 1, 2, 3, 4]
        assert heard_second == [0, 1, 2, 3, 4, 99]
        await _nothing_more(layer, first)  # nothing more, and nothing twice
        await _nothing_more(layer, second)
    finally:
        await layer.flush()
        await layer.close_pools()


def _send_from_a_worker_thread(layer: RedisChannelLayer, group: str, message: dict) -> None:
    """What a worker thread that committed does: the public ``group_send``, made synchronous
    by ``async_to_sync`` in a thread with no event loop of its own."""
    failures: list[BaseException] = []

    def send() -> None:
        try:
            async_to_sync(layer.group_send)(group, message)
        except BaseException as error:  # noqa: BLE001 - reported by the test
            failures.append(error)

    thread = threading.Thread(target=send)
    thread.start()
    thread.join(10)
    assert not thread.is_alive()
    assert not failures


async def _group_send(layer: RedisChannelLayer, how: str, group: str, message: dict) -> None:
    """Send as an event loop does, or as a worker thread with no loop does."""
    if how == "async":
        await layer.group_send(group, message)
    else:
        await asyncio.to_thread(_send_from_a_worker_thread, layer, group, message)


SENDS = ["async", "worker-thread"]


@pytest.mark.parametrize("how", SENDS)
async def test_a_channel_at_capacity_keeps_what_it_holds_and_drops_the_rest(how: str) -> None:
    layer = RedisChannelLayer(
        hosts=[settings.REDIS_URL], prefix=_prefix(f"capacity-{how}"), capacity=2, expiry=60
    )
    try:
        channel = await layer.new_channel()
        await layer.group_add("match.3", channel)
        for number in range(4):  # the third and fourth find the channel full: dropped
            await _group_send(layer, how, "match.3", {"type": "match.news", "number": number})
        assert [(await layer.receive(channel))["number"] for _ in range(2)] == [0, 1]
        await _nothing_more(layer, channel)
    finally:
        await layer.flush()
        await layer.close_pools()


@pytest.mark.parametrize("how", SENDS)
async def test_a_group_send_reaches_every_process(how: str) -> None:
    # Two layers with one prefix are two processes: each its own key for its channels.
    prefix = _prefix(f"send-{how}")
    first_process = RedisChannelLayer(hosts=[settings.REDIS_URL], prefix=prefix)
    second_process = RedisChannelLayer(hosts=[settings.REDIS_URL], prefix=prefix)
    try:
        first, second = await first_process.new_channel(), await second_process.new_channel()
        elsewhere = await second_process.new_channel()
        await first_process.group_add("match.4", first)
        await second_process.group_add("match.4", second)
        await second_process.group_add("match.5", elsewhere)
        await _group_send(first_process, how, "match.4", {"type": "match.news", "n": 1})
        await _group_send(first_process, how, "match.4", {"type": "match.news", "n": 2})
        assert [(await first_process.receive(first))["n"] for _ in range(2)] == [1, 2]
        assert [(await second_process.receive(second))["n"] for _ in range(2)] == [1, 2]
        await _nothing_more(second_process, elsewhere)  # nothing for it, in another group
    finally:
        await first_process.flush()
        await first_process.close_pools()
        await second_process.close_pools()


async def test_a_member_older_than_the_group_expiry_is_sent_nothing() -> None:
    prefix = _prefix("expiry")
    layer = RedisChannelLayer(hosts=[settings.REDIS_URL], prefix=prefix, group_expiry=1)
    other_process = RedisChannelLayer(hosts=[settings.REDIS_URL], prefix=prefix, group_expiry=1)
    try:
        gone = await other_process.new_channel()
        await other_process.group_add("match.6", gone)
        await asyncio.sleep(2.5)  # longer than group_expiry: the layer forgets the member
        current = await layer.new_channel()
        await layer.group_add("match.6", current)
        await layer.group_send("match.6", {"type": "match.news", "n": 1})
        assert (await asyncio.wait_for(layer.receive(current), 5))["n"] == 1
        await _nothing_more(layer, current)
        await _nothing_more(other_process, gone)  # the forgotten member heard nothing
    finally:
        await layer.flush()
        await layer.close_pools()
        await other_process.close_pools()


async def test_a_receive_cancelled_loses_nothing() -> None:
    layer = RedisChannelLayer(hosts=[settings.REDIS_URL], prefix=_prefix("cancel"))
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


@pytest.mark.django_db(transaction=True)
async def test_a_sign_out_published_from_a_worker_thread_reaches_a_listener() -> None:
    """The sign-out's publication (matches/news.py) from a thread with no event loop, as
    an after-commit hook in a worker thread makes it, through the settings' layer."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(SIGN_OUTS_GROUP, channel)
    try:
        await asyncio.to_thread(publish_sign_out, member_id=41, session_key="k")
        message = await asyncio.wait_for(layer.receive(channel), 5)
        assert message["type"] == "member.signed_out"
        assert message["member_id"] == 41
        assert "k" not in message.values()  # the session is named by its digest, not its key
    finally:
        await layer.group_discard(SIGN_OUTS_GROUP, channel)


async def test_a_receive_whose_connection_redis_dropped_raises() -> None:
    """Redis drops the connection a receive waits on: the receive raises (so the broadcast
    closes its sockets for a resync), and the next receive reads again."""
    name = f"news-reader-{id(object())}"
    layer = RedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL, "client_name": name}], prefix=_prefix("lost")
    )
    admin = aioredis.Redis.from_url(settings.REDIS_URL)
    try:
        channel = await layer.new_channel()
        waiting = asyncio.ensure_future(layer.receive(channel))
        for _ in range(50):  # until the receive is blocked in its pop
            clients = await admin.client_list()
            blocked = [c for c in clients if c["name"] == name and c["cmd"] == "bzpopmin"]
            if blocked:
                break
            await asyncio.sleep(0.1)
        assert blocked, "the receive never waited on Redis"
        await admin.client_kill_filter(_id=blocked[0]["id"])
        with pytest.raises(RedisConnectionError):
            await asyncio.wait_for(waiting, 5)
        await layer.send(channel, {"type": "match.news", "number": 7})
        assert (await asyncio.wait_for(layer.receive(channel), 5))["number"] == 7
    finally:
        await admin.aclose()
        await layer.flush()
        await layer.close_pools()
