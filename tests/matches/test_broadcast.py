"""One subscription per process per match: many sockets, one group member, news for all.

Against the real channels-redis layer: the group's membership is read back from Redis.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.layers import get_channel_layer

from matches.live.broadcast import MatchNews, news_for
from matches.news import PrivateEvent, PublicEvent, layer_messages, match_group
from matches.schemas import RackNews, SeatsNews, SeatView
from tests.matches.test_ws_helpers import Opener, socket_opener

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    async with socket_opener() as open_:
        yield open_


async def group_size(group: str) -> int:
    """How many channels Redis holds in ``group`` (channels-redis keeps a sorted set)."""
    layer = get_channel_layer()
    key = layer._group_key(group)  # the layer's own bookkeeping, read back
    async with layer.connection(layer.consistent_hash(group)) as connection:
        return await connection.zcard(key)


async def publish(match_id: int, turn_number: int) -> None:
    """News of the match (a bare seat_taken frame, numbered by ``turn_number``'s seat score)."""
    seats = [SeatView(position=0, label="First", member_id=None, name=None, score=turn_number,
                      rack_count=0)]  # fmt: skip
    [(group, message)] = layer_messages(
        [PublicEvent(match_id, "seat_taken", SeatsNews(seats=seats))]
    )
    await get_channel_layer().group_send(group, message)


def number_of(message: dict[str, Any]) -> int:
    return json.loads(message["text"])["data"]["seats"][0]["score"]


async def test_many_sockets_of_a_match_are_one_member_of_its_group(live_match, connect) -> None:
    sockets = [(await connect(live_match.id, name=f"viewer {i}"))[0] for i in range(5)]
    assert await group_size(match_group(live_match.id)) == 1

    await publish(live_match.id, 99)
    for socket in sockets:
        frame = await socket.next()
        assert (frame["type"], frame["data"]["seats"][0]["score"]) == ("seat_taken", 99)

    for socket in sockets[:-1]:
        await socket.close()
    assert await group_size(match_group(live_match.id)) == 1  # one socket still watches
    await sockets[-1].close()
    assert await group_size(match_group(live_match.id)) == 0  # the last one out left it


class Recorder:
    """A watcher that writes down what it is given."""

    def __init__(self, member_id: int | None = None) -> None:
        self.member_id = member_id
        self.heard: list[int] = []
        self.racks: list[tuple[int, str]] = []
        self.order: list[str] = []
        self.closed: list[Any] = []

    async def match_public(self, message: dict[str, Any]) -> None:
        self.heard.append(number_of(message))
        self.order.append(f"turn {self.heard[-1]}")

    async def match_private(self, message: dict[str, Any]) -> None:
        rack = json.loads(message["text"])["data"]["rack"]
        self.racks.append((message["member_id"], "".join(rack)))
        self.order.append(f"rack {self.racks[-1][1]}")

    async def news_lost(self) -> None:
        self.closed.append("news lost")


async def until(predicate, what: str) -> None:
    for _ in range(200):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"gave up waiting for {what}")


async def test_news_is_held_until_the_snapshot_is_sent_then_delivered_in_order(
    live_match,
) -> None:
    news = news_for(get_channel_layer())
    early, live = Recorder(), Recorder()
    await news.join(live_match.id, live)
    await news.release(live_match.id, live)
    await news.join(live_match.id, early)  # joined, its snapshot not yet sent

    for number in (1, 2, 3):
        await publish(live_match.id, number)
    await until(lambda: live.heard == [1, 2, 3], "the live watcher's news")
    assert early.heard == []  # held back while its snapshot is on the way

    await news.release(live_match.id, early)
    assert early.heard == [1, 2, 3]
    await publish(live_match.id, 4)
    await until(lambda: early.heard == [1, 2, 3, 4], "news after the release")

    await news.leave(live_match.id, early)
    await publish(live_match.id, 5)
    await until(lambda: live.heard[-1:] == [5], "the remaining watcher's news")
    assert early.heard == [1, 2, 3, 4]  # nothing after it left
    await news.leave(live_match.id, live)
    assert await group_size(match_group(live_match.id)) == 0
    assert early.closed == live.closed == []


async def joined_at(group: str) -> list[float]:
    """When each channel of ``group`` last joined it (the sorted set's scores)."""
    layer = get_channel_layer()
    key = layer._group_key(group)  # the layer's own bookkeeping, read back
    async with layer.connection(layer.consistent_hash(group)) as connection:
        return [score for _, score in await connection.zrange(key, 0, -1, withscores=True)]


async def test_the_process_joins_again_before_the_layer_forgets_it(live_match) -> None:
    """channels-redis drops a member after ``group_expiry`` (a day): a tab open for days
    would stop hearing news. The subscription renews its membership meanwhile."""
    news = MatchNews(get_channel_layer(), rejoin_every=1.2)
    watcher = Recorder()
    await news.join(live_match.id, watcher)
    await news.release(live_match.id, watcher)
    group = match_group(live_match.id)
    [first] = await joined_at(group)
    await asyncio.sleep(2.5)
    [renewed] = await joined_at(group)
    assert renewed > first  # the timestamps are whole seconds: 2.5 s later, at least +1
    await publish(live_match.id, 7)
    await until(lambda: watcher.heard == [7], "news after the renewal")
    await news.leave(live_match.id, watcher)
    assert await joined_at(group) == []


async def publish_rack(match_id: int, member_id: int, rack: str) -> None:
    event = PrivateEvent(
        match_id, member_id, "rack", RackNews(position=0, rack=list(rack), turn_number=1)
    )
    [(group, message)] = layer_messages([event])
    await get_channel_layer().group_send(group, message)


async def test_a_rack_reaches_only_its_owners_watchers_in_order_with_the_other_news(
    live_match, alice, bob
) -> None:
    news = news_for(get_channel_layer())
    alice_tab, alice_other_tab = Recorder(alice.pk), Recorder(alice.pk)
    bob_tab, spectator = Recorder(bob.pk), Recorder()
    for watcher in (alice_tab, alice_other_tab, bob_tab, spectator):
        await news.join(live_match.id, watcher)
        await news.release(live_match.id, watcher)

    await publish(live_match.id, 1)
    await publish_rack(live_match.id, alice.pk, "AEINRST")
    await publish(live_match.id, 2)
    await until(lambda: len(spectator.heard) == 2 and len(alice_tab.order) == 3, "the news")
    await until(lambda: len(alice_other_tab.order) == 3 and len(bob_tab.heard) == 2, "the tabs")

    assert alice_tab.order == alice_other_tab.order == ["turn 1", "rack AEINRST", "turn 2"]
    assert bob_tab.order == spectator.order == ["turn 1", "turn 2"]  # no rack, not even a gap
    assert bob_tab.racks == spectator.racks == []
    for watcher in (alice_tab, alice_other_tab, bob_tab, spectator):
        await news.leave(live_match.id, watcher)


async def test_the_last_watcher_out_stops_the_reader_without_cancelling_a_receive(
    live_match,
) -> None:
    """channels-redis reads every channel of the process with one blocking pop; a receive
    cancelled mid-way can lose another channel's message. The reader is stopped by a message."""
    news = news_for(get_channel_layer())
    watcher = Recorder()
    await news.join(live_match.id, watcher)
    await news.release(live_match.id, watcher)
    subscription = news.subscriptions[live_match.id]
    await publish(live_match.id, 1)
    await until(lambda: watcher.heard == [1], "the news")
    await news.leave(live_match.id, watcher)
    assert subscription.reader.done()
    assert not subscription.reader.cancelled()  # it returned on the stop message
    assert subscription.reader.exception() is None
    assert await group_size(match_group(live_match.id)) == 0


async def test_a_move_sends_its_turn_and_the_movers_rack_as_one_layer_message(
    live_match, alice
) -> None:
    """One group send a commit: the public turn first, then the mover's rack, for them only."""
    from asgiref.sync import sync_to_async

    from tests.matches.helpers import commit_move, opening_play, rack_of

    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(match_group(live_match.id), channel)
    rack = await sync_to_async(rack_of)(live_match, 0)
    outcome = await sync_to_async(commit_move, thread_sensitive=False)(
        match_id=live_match.id,
        member=alice,
        move=opening_play(rack),
        against_turn=0,
        client_id="one-message",
    )
    assert outcome.accepted
    message = await asyncio.wait_for(layer.receive(channel), 10)
    assert (message["type"], message["match_id"]) == ("match.news", live_match.id)
    turn, own_rack = message["items"]
    assert (turn["type"], turn["kind"]) == ("match.public", "turn")
    assert json.loads(turn["text"])["data"]["turn_number"] == 1
    assert (own_rack["type"], own_rack["member_id"]) == ("match.private", alice.pk)
    assert json.loads(own_rack["text"])["type"] == "rack"
    with pytest.raises(TimeoutError):  # nothing else: the change was one message
        await asyncio.wait_for(layer.receive(channel), 1)
    await layer.group_discard(match_group(live_match.id), channel)


async def test_a_commit_publishes_its_news_from_its_own_thread_while_the_loop_is_busy(
    live_match, alice
) -> None:
    """The worker thread talks to Redis itself: its news is stored even while the process's
    event loop is held, where handing the send to that loop would wait for it."""
    import time

    import redis
    from asgiref.sync import sync_to_async
    from django.conf import settings

    from tests.matches.helpers import commit_move, opening_play, rack_of

    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(match_group(live_match.id), channel)
    rack = await asyncio.to_thread(rack_of, live_match, 0)
    # As Daphne's consumer calls it: a thread of sync_to_async's, whose async_to_sync would
    # hand a send back to this loop.
    committing = asyncio.ensure_future(
        sync_to_async(commit_move, thread_sensitive=False)(
            match_id=live_match.id,
            member=alice,
            move=opening_play(rack),
            against_turn=0,
            client_id="from-the-thread",
        )
    )
    for _ in range(3):  # the call is handed to its thread; from here the loop is held
        await asyncio.sleep(0)
    stored = False
    with redis.Redis.from_url(settings.REDIS_URL) as client:
        key = layer.prefix + layer.non_local_name(channel)
        deadline = time.monotonic() + 10
        while not stored and time.monotonic() < deadline:  # the loop is held all along
            stored = client.zcard(key) == 1
            time.sleep(0.01)
    assert stored, "the news waited for the event loop"
    assert (await committing).accepted
    message = await asyncio.wait_for(layer.receive(channel), 10)
    assert [item["kind"] for item in message["items"] if item["type"] == "match.public"] == ["turn"]
    await layer.group_discard(match_group(live_match.id), channel)


async def test_a_commits_news_goes_out_through_the_pubsub_layer_too(settings) -> None:
    """``CHANNEL_LAYER_BACKEND=pubsub`` publishes through the event loop (it has no blocking
    send): news published from a worker thread after a commit still arrives."""
    from asgiref.sync import sync_to_async

    from matches.news import publish_on_commit

    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [settings.REDIS_URL], "prefix": f"{config['prefix']}-pubsub"},
        }
    }
    layer = get_channel_layer()
    try:
        channel = await layer.new_channel()
        await layer.group_add(match_group(9), channel)
        seats = [SeatView(position=0, label="First", member_id=None, name=None, score=3,
                          rack_count=0)]  # fmt: skip
        event = PublicEvent(9, "seat_taken", SeatsNews(seats=seats))
        await sync_to_async(publish_on_commit, thread_sensitive=False)([event])
        message = await asyncio.wait_for(layer.receive(channel), 10)
        assert [item["kind"] for item in message["items"]] == ["seat_taken"]
        await layer.group_discard(match_group(9), channel)
    finally:
        await layer.flush()
