"""One subscription per process to each watched match's news, shared by its sockets.

If every socket joined the match's group itself, one move watched by 1,000 sockets would be
1,000 messages through the channel layer (one Redis entry, one pop and one reading task per
socket). Instead each process subscribes once per match: a channel of its own joins the
match's group, a single task reads each message once and hands it to every local socket in
turn (``docs/PERFORMANCE.md``, "Fan-out"). A seat's rack travels the same way, in the same
message as the rest of its change's news (``matches.news.NewsBatch``), and is handed only to
that member's own sockets.

A socket joins before it reads its snapshot and is *held* until the snapshot has been sent:
news that arrives meanwhile is kept and delivered right after it, in order. If the
subscription fails (the channel layer is gone), every socket that depended on it is closed
so that its client reconnects and resyncs.

A reader is never cancelled in the middle of a receive while the layer works. channels-redis
pops the messages of *all* the process's channels with one blocking read; a receive cancelled
between Redis popping a message and the client reading the reply loses that message, which
may belong to another match. So the last watcher out stops the reader by sending it a stop
message on its own channel, after leaving the group, and waits for it to read up to there.
(The news layer, ``wordduel/channel_layers``, pops in a reader task of its own, so there a
cancelled receive loses nothing; the stop keeps any other core-layer setup safe too.)

The layer forgets a group member after ``group_expiry`` (a day by default), so the process
joins the group again every quarter of that: a socket left open for days keeps its news.

Sign-outs travel the same way: a process with a signed-in socket subscribes once to
``SIGN_OUTS_GROUP`` and hands each sign-out, synchronously, to that member's sockets
(:meth:`Watcher.signed_out`), so that each stops relaying news before this process's reader
hands it anything more.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from matches.news import SIGN_OUTS_GROUP, match_group, news_items, sign_out_items

logger = logging.getLogger(__name__)

#: The close code for a socket whose news subscription broke: reconnect and resync. (An
#: application may close only with 1000 or 3000-4999; 4503 reads as "unavailable, retry".)
CLOSE_NEWS_LOST = 4503
#: The message a subscription sends itself to stop its reader between two receives.
STOP = "news.stop"
#: How long the last watcher out waits for the reader to reach the stop message before it
#: cancels it anyway (a layer that accepted the stop but delivers nothing is broken).
STOP_WAIT_SECONDS = 10.0


class Watcher(Protocol):
    """A socket watching one match (the consumer)."""

    #: The signed-in member behind the socket, or None: who a rack may be handed to.
    member_id: int | None

    async def match_public(self, message: dict[str, Any]) -> None:
        """Relay one public event of the match."""

    async def match_private(self, message: dict[str, Any]) -> None:
        """Relay one seat's rack to its own member's socket."""

    def signed_out(self, message: dict[str, Any]) -> None:
        """Some session of the watcher's member ended, or their membership did: stop relaying
        news at once (this call does not wait) and check whether this socket's still stand."""

    async def news_lost(self) -> None:
        """The subscription broke: close the socket (code :data:`CLOSE_NEWS_LOST`) so that
        its client reconnects and resyncs."""


class _Subscription:
    """The process's subscription to one group (a match's news, or the sign-outs): its
    channel, its reader, its watchers.

    ``watchers`` maps each watcher to ``None`` once it hears news live, or to the list of
    messages held for it until its snapshot has been sent.
    """

    def __init__(
        self,
        layer: Any,
        group: str,
        *,
        items: Callable[[dict[str, Any]], Sequence[Any]] = news_items,
        rejoin_every: float | None = None,
    ) -> None:
        self.layer = layer
        self.group = group
        self.items = items
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
                await self.layer.group_add(self.group, self.channel)
            except Exception:  # the reader notices a layer that is gone; try again later
                logger.exception("could not renew the subscription to %s", self.group)

    async def _read(self) -> None:
        try:
            # A process channel like its sockets' own (the default prefix): channels-redis
            # reads all of them with one blocking pop, so none waits behind another's.
            self.channel = await self.layer.new_channel()
            await self.layer.group_add(self.group, self.channel)
            self.subscribed.set_result(None)
            while True:
                message = await self.layer.receive(self.channel)
                if message.get("type") == STOP:
                    return
                for item in self.items(message):  # a change's news, in order
                    await self._deliver(dict(item))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the layer is gone: these sockets would hear nothing more
            logger.exception("%s lost; closing its sockets", self.group)
            self.rejoiner.cancel()
            if not self.subscribed.done():
                self.subscribed.set_exception(error)
            for watcher in list(self.watchers):
                try:
                    await watcher.news_lost()
                except Exception:
                    logger.exception("could not close a socket of %s", self.group)

    async def end(self) -> None:
        """Leave the group, stop the reader between two receives, and wait until it has.

        Only a layer that fails (or a loop that is shutting down) gets the reader cancelled.
        """
        self.rejoiner.cancel()
        await asyncio.gather(self.rejoiner, return_exceptions=True)
        subscribed = self.subscribed.done() and self.subscribed.exception() is None
        try:
            # A reader still joining the group is not receiving: cancelling it loses nothing.
            if subscribed and not self.reader.done():
                await self.layer.group_discard(self.group, self.channel)
                await self.layer.send(self.channel, {"type": STOP})
                await asyncio.wait_for(asyncio.shield(self.reader), STOP_WAIT_SECONDS)
        except asyncio.CancelledError:
            self.reader.cancel()
            raise
        except Exception:  # noqa: BLE001 - a layer gone, or a stop never delivered: cancel
            logger.warning("%s: reader stopped by cancelling it", self.group)
        finally:
            if not self.reader.done():
                self.reader.cancel()
            await asyncio.gather(self.reader, return_exceptions=True)

    async def _deliver(self, message: dict[str, Any]) -> None:
        """Hand one item of news to its watchers (held for those still awaiting a snapshot)."""
        if message.get("type") == "member.signed_out":
            _tell_signed_out(list(self.watchers), message)
            return
        recipients = []
        for watcher, held in self.watchers.items():
            if not _addressed_to(message, watcher):
                continue
            if held is None:
                recipients.append(watcher)
            else:
                held.append(message)
        if message.get("kind") == "key_rotated":
            # Key holders re-check their access in the database: side by side, not in turn.
            await asyncio.gather(*(_relay(watcher, message) for watcher in recipients))
            return
        for watcher in recipients:  # a send does not wait: Daphne queues the frame and returns
            await _relay(watcher, message)


def _addressed_to(message: dict[str, Any], watcher: Watcher) -> bool:
    """Public news is for every watcher; a rack only for its own member's sockets."""
    if message.get("type") != "match.private":
        return True
    member_id = message.get("member_id")
    return member_id is not None and member_id == watcher.member_id


def _tell_signed_out(watchers: list[Watcher], message: dict[str, Any]) -> None:
    """Each of the member's sockets, in this one step of the loop: none relays anything more
    before it has checked its session."""
    for watcher in watchers:
        if watcher.member_id is not None and watcher.member_id == message.get("member_id"):
            try:
                watcher.signed_out(message)
            except Exception:  # one socket's trouble is not the others'
                logger.exception("could not tell a socket of a sign-out")


async def _relay(watcher: Watcher, message: dict[str, Any]) -> None:
    try:
        if message.get("type") == "match.private":
            await watcher.match_private(message)
        else:
            await watcher.match_public(message)
    except Exception:  # one socket's trouble is not the others'
        logger.exception("could not relay news to a watcher")


class MatchNews:
    """The subscriptions of one event loop (one per Daphne process, one per test's loop)."""

    def __init__(self, layer: Any, *, rejoin_every: float | None = None) -> None:
        self.layer = layer
        self.rejoin_every = rejoin_every  # None: a quarter of the layer's group_expiry
        self.subscriptions: dict[int, _Subscription] = {}
        #: The subscription to the members' sign-outs, while a signed-in socket is open.
        self.sign_outs: _Subscription | None = None
        #: Subscriptions being ended in the background (by :meth:`abandon`).
        self.ending: set[asyncio.Task[None]] = set()

    async def join(self, match_id: int, watcher: Watcher) -> None:
        """Subscribe ``watcher`` to the match's news, held until :meth:`release`."""
        subscription = self.subscriptions.get(match_id)
        if subscription is None or subscription.reader.done():
            subscription = _Subscription(
                self.layer, match_group(match_id), rejoin_every=self.rejoin_every
            )
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
        """Unsubscribe ``watcher`` without waiting (a connection cancelled mid-way): if it
        was the last, the subscription ends in the background, as :meth:`leave` ends it."""
        subscription = self._forget(match_id, watcher)
        if subscription is not None:
            self._end_in_background(subscription)

    async def join_sign_outs(self, watcher: Watcher) -> None:
        """Tell ``watcher`` of its member's sign-outs from now on (once this returns, none
        published later is missed)."""
        subscription = self.sign_outs
        if subscription is None or subscription.reader.done():
            subscription = self.sign_outs = _Subscription(
                self.layer, SIGN_OUTS_GROUP, items=sign_out_items, rejoin_every=self.rejoin_every
            )
        subscription.watchers[watcher] = None
        try:
            await asyncio.shield(subscription.subscribed)
        except BaseException:
            self.abandon_sign_outs(watcher)
            raise

    async def leave_sign_outs(self, watcher: Watcher) -> None:
        """No more sign-outs for ``watcher``; the last one out ends the subscription."""
        subscription = self._forget_sign_outs(watcher)
        if subscription is not None:
            await subscription.end()

    def abandon_sign_outs(self, watcher: Watcher) -> None:
        """:meth:`leave_sign_outs` without waiting (a connection cancelled mid-way)."""
        subscription = self._forget_sign_outs(watcher)
        if subscription is not None:
            self._end_in_background(subscription)

    def _forget_sign_outs(self, watcher: Watcher) -> _Subscription | None:
        subscription = self.sign_outs
        if subscription is None or watcher not in subscription.watchers:
            return None
        del subscription.watchers[watcher]
        if subscription.watchers:
            return None
        self.sign_outs = None
        return subscription

    def _end_in_background(self, subscription: _Subscription) -> None:
        task = asyncio.ensure_future(subscription.end())
        self.ending.add(task)
        task.add_done_callback(self.ending.discard)

    async def close(self) -> None:
        """End every subscription of this loop and wait for all of them (loop shutdown)."""
        subscriptions = list(self.subscriptions.values())
        self.subscriptions.clear()
        if self.sign_outs is not None:
            subscriptions.append(self.sign_outs)
            self.sign_outs = None
        await asyncio.gather(
            *(subscription.end() for subscription in subscriptions),
            *list(self.ending),
            return_exceptions=True,
        )

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


async def close_news() -> None:
    """End the running loop's subscriptions, if it has any, and wait until they have ended."""
    news = _news.pop(asyncio.get_running_loop(), None)
    if news is not None:
        await news.close()
