"""News of a match (typed events) and its publication to the channel layer; and the word
that a member's sessions ended, which closes their sockets.

Services build events from ``visibility`` output and hand them to :func:`publish_on_commit`,
which sends them only once the transaction has committed: a rolled-back change announces
nothing, and no row lock is ever held across a channel-layer send. A change that ends a
member's sessions or membership emits ``SessionsEnded``, which :func:`publish_sign_out` tells.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.db import transaction
from redis.exceptions import ConnectionError as RedisConnectionError

from matches.schemas import (
    EventKind,
    FairnessRecord,
    PrivateKind,
    RackNews,
    RematchNews,
    Shape,
    encode,
    event_frame,
    private_frame,
)

logger = logging.getLogger(__name__)


def match_group(match_id: int) -> str:
    """Every process with a socket on the match. Its news, racks included, travel here in
    one order; each process hands a rack only to its owner's sockets (matches/broadcast)."""
    return f"match.{match_id}"


@dataclass(frozen=True)
class PublicEvent:
    """News everyone watching the match may see (its data built by visibility)."""

    match_id: int
    kind: EventKind
    data: Shape


@dataclass(frozen=True)
class PrivateEvent:
    """News for one member only, about one match: their rack, their own record for the bag
    check, the rematch they may answer."""

    match_id: int
    member_id: int
    kind: PrivateKind
    data: RackNews | FairnessRecord | RematchNews


Event = PublicEvent | PrivateEvent


class PublicNews(TypedDict):
    """A public event as the channel layer carries it: the frame, encoded once for all."""

    type: Literal["match.public"]
    match_id: int
    kind: str
    text: str


class PrivateNews(TypedDict):
    """Private news (a rack...) as the channel layer carries it, for ``member_id``'s sockets
    only."""

    type: Literal["match.private"]
    match_id: int
    member_id: int
    text: str


News = PublicNews | PrivateNews


class NewsBatch(TypedDict):
    """What one change of a match sends through the channel layer: all its news in one
    message (a move's turn and the mover's rack; an ending move's result too), in order.
    One group send a commit, and one read a commit by each process watching the match."""

    type: Literal["match.news"]
    match_id: int
    items: list[News]


def _item(event: Event) -> News:
    """``event`` as the layer carries it: its frame encoded here, once, not once per socket."""
    if isinstance(event, PublicEvent):
        frame = encode(event_frame(event.kind, event.match_id, event.data))
        return PublicNews(type="match.public", match_id=event.match_id, kind=event.kind, text=frame)
    text = encode(private_frame(event.kind, event.match_id, event.data))
    return PrivateNews(
        type="match.private", match_id=event.match_id, member_id=event.member_id, text=text
    )


def layer_messages(events: list[Event]) -> list[tuple[str, NewsBatch]]:
    """The group and the message for each run of ``events`` about one match, in order."""
    messages: list[tuple[str, NewsBatch]] = []
    for event in events:
        if messages and messages[-1][1]["match_id"] == event.match_id:
            messages[-1][1]["items"].append(_item(event))
        else:
            batch = NewsBatch(type="match.news", match_id=event.match_id, items=[_item(event)])
            messages.append((match_group(event.match_id), batch))
    return messages


def news_items(message: dict[str, Any]) -> list[News]:
    """The items of news in a layer message read from a match's group, in order (none for
    any other message, such as a reader's stop)."""
    if message.get("type") != "match.news":
        return []
    return list(message["items"])


#: Attempts per message. A pooled Redis connection that outlived a Redis restart fails its
#: next command at once ("Connection closed by server"); the second attempt gets a fresh
#: connection. A timeout (a Redis that does not answer) is not tried again: it already
#: waited out the socket timeout, and the database stays the truth.
PUBLISH_ATTEMPTS = 2


#: Every web process with a signed-in socket listens here (one subscription per process,
#: :mod:`matches.live.broadcast`). Sign-outs are rare: each goes to every such process, which
#: hands it to that member's sockets.
SIGN_OUTS_GROUP = "members.sign-outs"


class SignedOut(TypedDict):
    """A member's sessions ended (signed out elsewhere, a new password, deleted) or their
    membership did (removed): each of their sockets stops relaying news at once and checks
    its session and membership again, closing if either has ended. With ``session`` (the
    :func:`session_digest` of one session signed out of), only that session's sockets
    close, without a check."""

    type: Literal["member.signed_out"]
    member_id: int
    session: NotRequired[str]


def session_digest(session_key: str) -> str:
    """How a sign-out names one session: not its key, which would sign anyone in."""
    return hashlib.sha256(session_key.encode()).hexdigest()


def sign_out_items(message: dict[str, Any]) -> list[SignedOut]:
    """The sign-out in a layer message read from :data:`SIGN_OUTS_GROUP` (none for any other
    message, such as a reader's stop)."""
    if message.get("type") != "member.signed_out":
        return []
    return [SignedOut(**message)]  # type: ignore[typeddict-item]


def publish_sign_out(*, member_id: int, session_key: str | None = None) -> None:
    """Close ``member_id``'s sockets whose session or membership has ended (called after
    the change committed: a ``SessionsEnded`` subscriber): every session's, after a check,
    or only ``session_key``'s."""
    message = SignedOut(type="member.signed_out", member_id=member_id)
    if session_key:
        message["session"] = session_digest(session_key)
    _publish([(SIGN_OUTS_GROUP, message)])


def _send(events: list[Event]) -> None:
    _publish(layer_messages(events))


def _publish(messages: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    """Publish ``messages`` from sync code (an after-commit hook, in whatever thread committed).

    The layer is asynchronous only (channels-redis's public ``group_send``). A Redis layer's
    send runs on the process's publishing loop (:class:`_PublishingLoop`), so a worker
    thread's commit never waits for the process's own event loop to be free, and a thread
    with no loop does not make (and connect) a new one per send. Another layer (the quick
    start's in-memory one, whose queues belong to the serving loop) is sent to through
    ``async_to_sync``, or, in a thread already running an event loop (a sync call made inside
    async code), through a short-lived thread, which ``async_to_sync`` needs.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    if isinstance(layer, RedisChannelLayer | RedisPubSubChannelLayer):
        _publishing_loop.run(_send_all(layer, messages))
        return
    try:
        asyncio.get_running_loop()
        in_a_loop = True
    except RuntimeError:
        in_a_loop = False
    if not in_a_loop:
        async_to_sync(_send_all)(layer, messages)
        return
    sender = threading.Thread(target=async_to_sync(_send_all), args=(layer, messages), daemon=True)
    sender.start()
    sender.join()


class _PublishingLoop:
    """An event loop of the process's own, in a thread of its own, that runs the sends of
    sync code: a Redis layer keeps a connection pool per loop, so this one's stays open
    between sends. Made on first use in each process (a forked worker makes its own)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid = 0

    def run(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run ``coroutine`` there and wait for it (its errors raised here)."""
        asyncio.run_coroutine_threadsafe(coroutine, self._running()).result()

    def _running(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                threading.Thread(
                    target=loop.run_forever, name="news-publisher", daemon=True
                ).start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop


_publishing_loop = _PublishingLoop()


async def _send_all(layer: Any, messages: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    for group, message in messages:
        for attempt in range(1, PUBLISH_ATTEMPTS + 1):
            try:
                await layer.group_send(group, message)
                break
            except Exception as error:  # noqa: BLE001 - logged by _try_again
                if not _try_again(error, attempt, message):
                    break


def _try_again(error: Exception, attempt: int, message: Mapping[str, Any]) -> bool:
    """Whether to send ``message`` again after ``error`` (a stale pooled connection, once);
    if not, the failure is logged and the news dropped: the database is the truth, and
    clients resync later (a socket whose session ended finds out at its next request or
    rack). Called while ``error`` is being handled, for its traceback."""
    if isinstance(error, RedisConnectionError) and attempt < PUBLISH_ATTEMPTS:
        return True
    if message.get("type") == "member.signed_out":
        logger.exception("could not publish the sign-out of member %s", message["member_id"])
        return False
    kinds = ", ".join(str(item.get("kind", "rack")) for item in message["items"])
    logger.exception("could not publish %s of match %s", kinds, message["match_id"])
    return False


def publish_on_commit(events: list[Event]) -> None:
    """Send ``events`` after the current transaction commits (at once outside one)."""
    if events:
        transaction.on_commit(lambda: _send(list(events)), robust=True)


def publish_to_groups_on_commit(messages: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    """Send ``messages`` (a group and its message each: the news of another kind of game,
    such as Word Skill rounds) after the current transaction commits, as
    :func:`publish_on_commit` sends a match's (at once outside a transaction)."""
    if messages:
        transaction.on_commit(lambda: _publish(list(messages)), robust=True)
