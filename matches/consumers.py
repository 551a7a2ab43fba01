"""Live play over a websocket: one connection per viewer per match.

The consumer only authenticates, parses, calls one service and relays (DESIGN.md). What a
viewer sees is built by :mod:`matches.visibility`; every change goes through
:mod:`matches.services`, run in a worker thread so the event loop never waits on the
database and no row lock is ever held across a channel-layer send (services publish with
``transaction.on_commit``). The messages are described in ``docs/PROTOCOL.md``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from types import SimpleNamespace
from typing import Any, TypeVar
from urllib.parse import parse_qs

from autobahn.exception import Disconnected as SocketClosed
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser
from django.db import connection, transaction
from django.db.models import prefetch_related_objects

from matches import services, visibility
from matches.broadcast import CLOSE_NEWS_LOST, news_for
from matches.models import Match
from matches.protocol import (
    RESYNC_CODES,
    CommitRequest,
    PassRequest,
    PlayRequest,
    ProtocolError,
    Request,
    SwapRequest,
    SyncRequest,
    TakeSeatRequest,
    ack_frame,
    encode,
    error_frame,
    event_frame,
    parse_frame,
    rack_frame,
    snapshot_frame,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Close codes (4000-4999 are the application's own).
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429

SIGNED_OUT = ("signed_out", "Your session has expired. Sign in again.")
SIGN_IN_TO_PLAY = ("sign_in_required", "Only signed-in members can play. Sign in first.")
SIGN_IN_TO_SIT = ("sign_in_required", "Only signed-in members can take a seat. Sign in first.")
RATE_LIMITED = ("rate_limited", "Too many messages. Slow down; this one was not read.")
SERVER_ERROR = ("server_error", "Something went wrong on the server. Send sync to redraw.")
KEY_REVOKED = ("key_revoked", "This viewing link has been replaced. Ask for the new one.")
NO_SUCH_MATCH = ("not_found", "This match no longer exists.")


class MatchGoneError(Exception):
    """The match was deleted while the connection was open."""


async def off_loop(func: Callable[..., T], /, **kwargs: Any) -> T:
    """Run database work in a worker thread of its own.

    Not thread-sensitive: each call is a complete transaction, so it needs no particular
    thread, and two connections' commits really run side by side and meet at the match row
    lock instead of queueing behind one process-wide thread.
    """
    return await database_sync_to_async(func, thread_sensitive=False)(**kwargs)


# ---------------------------------------------------------------- database work (sync)


def _read_match(match_id: int, *, lock: bool) -> Match:
    """The match with its seats and their members, for building what a viewer sees."""
    queryset = Match.objects.select_for_update() if lock else Match.objects.all()
    try:
        match = queryset.get(pk=match_id)
    except Match.DoesNotExist:
        raise MatchGoneError from None
    prefetch_related_objects([match], "seats__member")
    return match


def _apply_deadlines(match_id: int) -> Match:
    """Time is data: whatever deadline has passed happens before the viewer looks."""
    try:
        return services.match_apply_deadlines(match_id=match_id)
    except Match.DoesNotExist:
        raise MatchGoneError from None


def _may_watch(match_id: int, user: Any, key: str | None) -> bool:
    """Apply passed deadlines, then say whether ``user`` holding ``key`` may watch."""
    match = _apply_deadlines(match_id)  # as it stands after them: no need to read it again
    prefetch_related_objects([match], "seats")  # who sits where is all the answer needs
    return visibility.can_watch(match, visibility.viewer_for(match, user, key))


def _session_user(session_key: str) -> Any:
    """Who is signed in to this session now: Django's own check (user, backend, auth hash).

    Run through :func:`off_loop` like the rest of the consumer's database work. (channels'
    ``get_user`` is thread-sensitive: every connection's check in the process would queue
    behind one thread, which under load capped the commits of the whole process.)
    """
    engine = import_module(settings.SESSION_ENGINE)
    return auth.get_user(SimpleNamespace(session=engine.SessionStore(session_key)))


def commit_as_member(
    *, session_key: str | None, member_id: int, **commit: Any
) -> tuple[Any, services.CommitOutcome] | None:
    """The session check and the commit in one worker-thread call (one hop, one connection
    check): None, changing nothing, if ``member_id`` is no longer signed in to the session."""
    user = _session_user(session_key) if session_key else AnonymousUser()
    if not user.is_authenticated or user.pk != member_id:
        return None
    return user, services.match_commit(member=user, **commit)


def _snapshot(match_id: int, user: Any, key: str | None) -> dict[str, Any] | None:
    """The match as this viewer may see it, or None if they may no longer watch.

    Read in one transaction that sees a single snapshot of the database (on PostgreSQL:
    REPEATABLE READ, READ ONLY), so the move list, board and counters belong to the same
    moment without the match row lock: a connecting viewer neither waits for a commit nor
    makes one wait, and writes nothing (a row lock costs a WAL flush at commit).
    """
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        match = _read_match(match_id, lock=False)
        viewer = visibility.viewer_for(match, user, key)
        if not visibility.can_watch(match, viewer):
            return None
        return visibility.snapshot_for(match, viewer)


# ---------------------------------------------------------------- flood control


@dataclass
class TokenBucket:
    """Allows ``burst`` frames at once and ``per_second`` frames a second after that."""

    burst: float
    per_second: float
    tokens: float = field(init=False)
    stamp: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.tokens = self.burst

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.per_second)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


# ---------------------------------------------------------------- the consumer


class MatchConsumer(AsyncWebsocketConsumer):
    """``/ws/matches/<id>/[?key=...]``: a snapshot on connect, then requests and live news.

    The socket has no channel-layer channel of its own: all the match's news, a rack
    included, reaches it through the process's one subscription (:mod:`matches.broadcast`),
    so no receive of the layer is ever cancelled when a socket closes.
    """

    #: No layer alias: channels then opens no channel and runs no receive for the socket.
    channel_layer_alias = "no channel per socket"

    match_id: int
    key: str | None
    user: Any
    member_id: int | None

    async def connect(self) -> None:
        self.answering = False
        self.close_when_answered: int | None = None
        self.signed_out = False
        self.refused_in_a_row = 0
        self.bucket = TokenBucket(
            burst=getattr(settings, "WS_RATE_BURST", 30),
            per_second=getattr(settings, "WS_RATE_PER_SECOND", 10),
        )
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.key = _key_from_query(self.scope.get("query_string", b""))
        self.user = self.scope.get("user") or AnonymousUser()
        self.member_id = self.user.pk if self.user.is_authenticated else None
        session = self.scope.get("session")
        self.session_key = session.session_key if session is not None else None
        try:
            allowed = await off_loop(
                _may_watch, match_id=self.match_id, user=self.user, key=self.key
            )
        except MatchGoneError:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        if not allowed:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        # Subscribe before reading, so no news falls between the snapshot and the
        # subscription; what arrives meanwhile is held and follows the snapshot.
        self.news = news_for(get_channel_layer())
        await self.news.join(self.match_id, self)
        try:
            snapshot = await off_loop(
                _snapshot, match_id=self.match_id, user=self.user, key=self.key
            )
        except MatchGoneError:
            snapshot = None
        if snapshot is None:
            await self._stop_news()
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self.accept()
        await self._send(snapshot_frame(snapshot, reason="connect"))
        await self.news.release(self.match_id, self)

    async def disconnect(self, code: int) -> None:
        await self._stop_news()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Run the connection; however it ends (even cancelled), stop hearing its news."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            if hasattr(self, "news"):  # (after a disconnect it has left already)
                await self.news.leave(self.match_id, self)

    async def _stop_news(self) -> None:
        if hasattr(self, "news"):
            await self.news.leave(self.match_id, self)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Hand a message to its handler, without channels' per-message thread hop.

        channels' own ``dispatch`` first closes stale database connections in its single
        thread-sensitive worker: one hop through one thread per message per socket, so one
        move watched by 1,000 sockets queued 1,000 hops. This consumer touches the database
        only through :func:`off_loop`, whose worker threads close their own stale
        connections before and after each call, so that hop does nothing for it.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    # -- frames from the client -------------------------------------------------------------

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        """Answer one frame; a close asked for meanwhile (:meth:`news_lost`) waits for it."""
        self.answering = True
        try:
            await super().websocket_receive(message)
        finally:
            self.answering = False
            if self.close_when_answered is not None:
                code, self.close_when_answered = self.close_when_answered, None
                await self.close(code=code)

    async def news_lost(self) -> None:
        """The process lost this match's news: close so the client reconnects and resyncs,
        but only once the frame being answered has its answer (a commit's ack is its
        sender's only word that the move stands)."""
        if self.answering:
            self.close_when_answered = CLOSE_NEWS_LOST
        else:
            await self.close(code=CLOSE_NEWS_LOST)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Answer every frame exactly once, to its sender only; never close for bad input."""
        if not self.bucket.take():
            await self._refuse_flood()
            return
        self.refused_in_a_row = 0
        request: Request | None = None
        problem: ProtocolError | None = None
        try:
            request = parse_frame(text_data, bytes_data)
        except ProtocolError as error:
            problem = error
        client_id = request.client_id if request is not None else problem.client_id  # type: ignore[union-attr]
        try:
            # A commit checks the session in the same worker-thread call (``_commit``).
            checked_later = isinstance(request, PlayRequest | SwapRequest | PassRequest)
            if (
                self.member_id is not None
                and not checked_later
                and not await self._still_signed_in()
            ):
                await self._send(error_frame(*SIGNED_OUT, client_id=client_id))
                return
            if problem is not None:
                await self._send(error_frame(problem.code, problem.message, client_id=client_id))
                return
            assert request is not None
            await self._dispatch(request)
        except (MatchGoneError, Match.DoesNotExist):
            await self._send(error_frame(*NO_SUCH_MATCH, client_id=client_id))
            await self.close(code=CLOSE_NOT_FOUND)
        except Exception:  # a bug of ours: answer it, keep the socket, let the client resync
            logger.exception("websocket request failed on match %s", self.match_id)
            await self._send(error_frame(*SERVER_ERROR, client_id=client_id))

    async def _dispatch(self, request: Request) -> None:
        if isinstance(request, SyncRequest):
            await self._send_fresh_snapshot(request)
        elif isinstance(request, TakeSeatRequest):
            await self._take_seat(request)
        elif isinstance(request, PlayRequest | SwapRequest | PassRequest):
            await self._commit(request)

    async def _send_fresh_snapshot(self, request: SyncRequest) -> None:
        await off_loop(_apply_deadlines, match_id=self.match_id)
        snapshot = await self._fresh_snapshot()
        if snapshot is None:  # the viewing key was replaced since this connection opened
            await self._send(error_frame(*KEY_REVOKED, client_id=request.client_id))
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self._send(snapshot_frame(snapshot, reason="sync", client_id=request.client_id))

    async def _commit(self, request: CommitRequest) -> None:
        if self.member_id is None:
            await self._send(error_frame(*SIGN_IN_TO_PLAY, client_id=request.client_id))
            return
        signed_in = None
        if not self.signed_out:
            signed_in = await off_loop(
                commit_as_member,
                session_key=self.session_key,
                member_id=self.member_id,
                match_id=self.match_id,
                move=request.move(),
                against_turn=request.turn,
                client_id=request.client_id,
            )
        if signed_in is None:
            if not self.signed_out:
                await self._become_anonymous()
            await self._send(error_frame(*SIGNED_OUT, client_id=request.client_id))
            return
        self.user, outcome = signed_in
        snapshot = None
        if not outcome.accepted and outcome.code in RESYNC_CODES:
            snapshot = await self._fresh_snapshot()
        await self._send(
            ack_frame(
                request.client_id,
                accepted=outcome.accepted,
                replayed=outcome.replayed,
                answer=outcome.ack,
                snapshot=snapshot,
            )
        )

    async def _take_seat(self, request: TakeSeatRequest) -> None:
        if self.member_id is None:
            await self._send(error_frame(*SIGN_IN_TO_SIT, client_id=request.client_id))
            return
        try:
            seat = await off_loop(
                services.match_take_seat,
                match_id=self.match_id,
                member=self.user,
                position=request.position,
            )
        except Match.DoesNotExist:
            raise MatchGoneError from None
        except services.ServiceError as error:
            code = {
                services.SeatUnavailable: "seat_unavailable",
                services.NotAllowed: "not_allowed",
            }.get(type(error), "refused")
            answer = {"code": code, "message": str(error)}
            await self._send(
                ack_frame(request.client_id, accepted=False, replayed=False, answer=answer)
            )
            return
        snapshot = await self._fresh_snapshot()
        answer = {"code": "seated", "position": seat.position}
        await self._send(
            ack_frame(
                request.client_id, accepted=True, replayed=False, answer=answer, snapshot=snapshot
            )
        )

    # -- news from the services -------------------------------------------------------------

    async def match_public(self, message: dict[str, Any]) -> None:
        """A public event of this match (from :mod:`matches.broadcast`): relay it as it is."""
        event = message["event"]
        if event.get("match_id") != self.match_id:
            return
        if event.get("kind") == "key_rotated" and self._watching_by_key():
            allowed = await off_loop(
                _may_watch, match_id=self.match_id, user=self.user, key=self.key
            )
            if not allowed:
                await self._send(error_frame(*KEY_REVOKED))
                await self.close(code=CLOSE_FORBIDDEN)
                return
        text = message.get("text")  # encoded once by the publisher for every watcher
        if text is None:
            text = encode(event_frame(event["kind"], self.match_id, event.get("data") or {}))
        await self.send(text_data=text)

    async def match_private(self, message: dict[str, Any]) -> None:
        """A member's own rack, handed only to their sockets; checked here once more."""
        event = message["event"]
        if (
            event.get("match_id") != self.match_id
            or event.get("member_id") != self.member_id
            or self.member_id is None
            or self.signed_out
        ):
            return
        await self._send(rack_frame(self.match_id, event.get("data") or {}))

    # -- helpers ----------------------------------------------------------------------------

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        """Send a frame; a client that hung up while we were answering is not our error.

        Daphne refuses a send on a socket whose client has just closed it, before the
        disconnect reaches us; there is nobody left to answer, and the disconnect follows.
        """
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except (SocketClosed, OSError):
            logger.debug("match %s: the client left before its answer was sent", self.match_id)

    async def _send(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=encode(frame))

    async def _fresh_snapshot(self) -> dict[str, Any] | None:
        return await off_loop(_snapshot, match_id=self.match_id, user=self.user, key=self.key)

    def _watching_by_key(self) -> bool:
        """True when this connection may be watching only because of its viewing key."""
        return not self.user.is_authenticated and self.key is not None

    async def _still_signed_in(self) -> bool:
        """Re-read the session this connection opened with: expired or signed out, say so.

        A websocket keeps the cookie it connected with, so a lapsed session stays lapsed on
        this connection: from then on it is an anonymous viewer that must reconnect to play.
        """
        if self.signed_out:
            return False
        user = AnonymousUser()
        if self.session_key:
            user = await off_loop(_session_user, session_key=self.session_key)
        if user.is_authenticated and user.pk == self.member_id:
            self.user = user  # fresh from the database for the service call
            return True
        await self._become_anonymous()
        return False

    async def _become_anonymous(self) -> None:
        self.signed_out = True
        self.user = AnonymousUser()  # match_private hands it no rack from now on
        try:
            allowed = await off_loop(
                _may_watch, match_id=self.match_id, user=self.user, key=self.key
            )
        except MatchGoneError:
            allowed = False
        if not allowed:  # a members-only match without the key: no more news either
            await self.news.leave(self.match_id, self)

    async def _refuse_flood(self) -> None:
        self.refused_in_a_row += 1
        if self.refused_in_a_row >= getattr(settings, "WS_FLOOD_CLOSE_AFTER", 100):
            await self.close(code=CLOSE_TOO_MANY)
            return
        await self._send(error_frame(*RATE_LIMITED))


def _key_from_query(query_string: bytes) -> str | None:
    """The ``key`` query parameter, if any (a viewing key is URL-safe base64)."""
    values = parse_qs(query_string.decode("latin-1")).get("key")
    return values[0][:128] if values else None
