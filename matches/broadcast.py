"""One subscription per process to each watched match's news, shared by its sockets.

If every socket joined the match's group itself, one move watched by 1,000 sockets would be
1,000 messages through the channel layer (one Redis entry, one pop and one reading task per
socket). Instead each process subscribes once per match: a channel of its own joins the
match's group, a single task reads each message once and hands it to every local socket in
turn (``docs/PERFORMANCE.md``, "Fan-out"). A member's private news still reaches their own
sockets through their ``member.<id>`` group.

A socket joins before it reads its snapshot and is *held* until the snapshot has been sent:
news that arrives meanwhile is kept and delivered right after it, in order, as it would have
been by the socket's own group membership. If the subscription fails (the channel layer is
gone), every socket that depended on it is closed so that its client reconnects and resyncs.

The layer forgets a group member after ``group_expiry`` (a day by default), so the process
joins the group again every quarter of that: a socket left open for days keeps its news.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from typing import Any, Protocol

from matches.events import match_group

logger = logging.getLogger(__name__)

#: The close code for a socket whose news subscription broke (as Daphne's for a crash).
CLOSE_NEWS_LOST = 1011


class Watcher(Protocol):
    """A socket watching one match (the consumer)."""

    async def match_public(self, message: dict[str, Any]) -> None:
        """Relay one public event of the match."""

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        """Close the socket."""


class _Subscription:
    """The process's subscription to one match: its channel, its reader, its watchers.

    ``watchers`` maps each watcher to ``None`` once it hears news live, or to the list of
    messages held for it until its snapshot has been sent.
    """

    def __init__(self, layer: Any, match_id: int, *, rejoin_every: float | None = None) -> None:
        self.layer = layer
        self.match_id = match_id
        self.channel: str | None = None
        self.watchers: dict[Watcher, list[dict[str, Any]] | None] = {}
        self.subscribed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.reader = asyncio.ensure_future(self._read())
        if rejoin_every is None:
            rejoin_every = getattr(layer, "group_expiry", 86400) / 4
        self.rejoiner = asyncio.ensure_future(self._rejoin(rejoin_every))

    async def _rejoin(self, every: float) -> None:
        """Join the group again before the layer's ``group_expiry`` drops this channel."""
        await asyncio.wait([self.subscribed])
        if self.subscribed.exception() is not None:
            return  # never subscribed: the reader has closed the sockets
        while True:
            await asyncio.sleep(every)
            try:
                await self.layer.group_add(match_group(self.match_id), self.channel)
            except Exception:  # the reader notices a layer that is gone; try again later
                logger.exception("could not renew the news of match %s", self.match_id)

    async def _read(self) -> None:
        try:
            # A process channel like its sockets' own (the default prefix): channels-redis
            # reads all of them with one blocking pop, so none waits behind another's.
            self.channel = await self.layer.new_channel()
            await self.layer.group_add(match_group(self.match_id), self.channel)
            self.subscribed.set_result(None)
            while True:
                await self._deliver(await self.layer.receive(self.channel))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the layer is gone: these sockets would hear nothing more
            logger.exception("news of match %s lost; closing its sockets", self.match_id)
            self.rejoiner.cancel()
            if not self.subscribed.done():
                self.subscribed.set_exception(error)
            for watcher in list(self.watchers):
                with contextlib.suppress(Exception):
                    await watcher.close(code=CLOSE_NEWS_LOST)

    async def end(self) -> None:
        """Leave the group, then stop reading, and wait until the reader has stopped.

        Waiting matters: channels-redis counts the receives in progress on the layer, and a
        receive that never finishes its cancellation keeps the layer's receive lock forever
        (in the tests, bound to an event loop that is gone).
        """
        self.rejoiner.cancel()
        if self.channel is not None:
            with contextlib.suppress(Exception):
                await self.layer.group_discard(match_group(self.match_id), self.channel)
        self.reader.cancel()
        await asyncio.gather(self.reader, self.rejoiner, return_exceptions=True)

    async def _deliver(self, message: dict[str, Any]) -> None:
        live = []
        for watcher, held in self.watchers.items():
            if held is None:
                live.append(watcher)
            else:
                held.append(message)
        if (message.get("event") or {}).get("kind") == "key_rotated":
            # Key holders re-check their access in the database: side by side, not in turn.
            await asyncio.gather(*(_relay(watcher, message) for watcher in live))
            return
        for watcher in live:  # a send does not wait: Daphne queues the frame and returns
            await _relay(watcher, message)


async def _relay(watcher: Watcher, message: dict[str, Any]) -> None:
    try:
        await watcher.match_public(message)
    except Exception:  # one socket's trouble is not the others'
        logger.exception("could not relay news to a watcher")


class MatchNews:
    """The subscriptions of one event loop (one per Daphne process, one per test's loop)."""

    def __init__(self, layer: Any, *, rejoin_every: float | None = None) -> None:
        self.layer = layer
        self.rejoin_every = rejoin_every  # None: a quarter of the layer's group_expiry
        self.subscriptions: dict[int, _Subscription] = {}

    async def join(self, match_id: int, watcher: Watcher) -> None:
        """Subscribe ``watcher`` to the match's news, held until :meth:`release`."""
        subscription = self.subscriptions.get(match_id)
        if subscription is None or subscription.reader.done():
            subscription = _Subscription(self.layer, match_id, rejoin_every=self.rejoin_every)
            self.subscriptions[match_id] = subscription
        subscription.watchers[watcher] = []
        try:
            await asyncio.shield(subscription.subscribed)
        except BaseException:
            self.abandon(match_id, watcher)
            raise

    async def release(self, match_id: int, watcher: Watcher) -> None:
        """Deliver what was held for ``watcher``, in order; from now on it hears news live."""
        subscription = self.subscriptions.get(match_id)
        if subscription is None or watcher not in subscription.watchers:
            return
        while held := subscription.watchers.get(watcher):
            await _relay(watcher, held.pop(0))
        if watcher in subscription.watchers:
            subscription.watchers[watcher] = None

    async def leave(self, match_id: int, watcher: Watcher) -> None:
        """Unsubscribe ``watcher``; the last one out ends the process's subscription."""
        subscription = self._forget(match_id, watcher)
        if subscription is not None:
            await subscription.end()

    def abandon(self, match_id: int, watcher: Watcher) -> None:
        """Unsubscribe ``watcher`` without waiting (a connection cancelled mid-way): the
        reader stops; its channel stays in the group until the layer expires it."""
        subscription = self._forget(match_id, watcher)
        if subscription is not None:
            subscription.rejoiner.cancel()
            subscription.reader.cancel()

    def _forget(self, match_id: int, watcher: Watcher) -> _Subscription | None:
        """Drop ``watcher``; the subscription to end if it was the last one, else None."""
        subscription = self.subscriptions.get(match_id)
        if subscription is None or watcher not in subscription.watchers:
            return None  # (or it belonged to a subscription that broke and was replaced)
        del subscription.watchers[watcher]
        if subscription.watchers:
            return None
        del self.subscriptions[match_id]
        return subscription

    def watching(self, match_id: int, watcher: Watcher) -> bool:
        subscription = self.subscriptions.get(match_id)
        return subscription is not None and watcher in subscription.watchers


_news: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, MatchNews] = weakref.WeakKeyDictionary()


def news_for(layer: Any) -> MatchNews:
    """The running loop's subscriptions (a layer and its connections belong to one loop)."""
    loop = asyncio.get_running_loop()
    news = _news.get(loop)
    if news is None or news.layer is not layer:
        news = _news[loop] = MatchNews(layer)
    return news
