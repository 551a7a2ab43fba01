"""Live play over a websocket: one connection per viewer per match (``docs/PROTOCOL.md``).

The consumer authenticates, joins, calls one service, and relays. What a viewer sees comes
from :mod:`matches.visibility` (``access_match`` decides who may watch and reads the match
as one moment); every change goes through :mod:`matches.services`, run in a worker thread so
the event loop never waits on the database and no row lock is ever held across a send. News
(a rack included) arrives through the process's one subscription per match
(:mod:`matches.live.broadcast`); the socket has no channel-layer channel of its own.

Frames are counted as they arrive (:mod:`matches.live.floodgate`) and answered in order, one at a
time, by the connection's own worker task. A client address (an IPv6 client's /64) holds a
slot per open socket, counted across every web process, and its new sockets and ``sync``
frames a minute are counted there too.

A browser's guest (``accounts.guests``) is admitted by its cookie to the match it sits in,
and stands while it is a guest seated there (``matches.live.guests``).

A signed-in socket stands only while the session it connected with does, and, if it was a
club member's, while they still are one: checked in the worker thread of every request,
before a rack is relayed, and at once when the member's sign-out arrives (the process's one
subscription to them, :mod:`matches.live.broadcast`), which holds the socket's news until the
check is done. Once either has ended, the socket says why (``signed_out`` or
``membership_ended``) and closes (4401).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected as SocketClosed
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.contrib.auth.models import AnonymousUser
from django.db import close_old_connections

from accounts import ratelimit
from accounts.sessions import SignedInCheck
from matches import services, visibility
from matches.live.broadcast import CLOSE_NEWS_LOST, news_for
from matches.live.floodgate import (
    Admission,
    FloodGate,
    SyncAllowance,
    Verdict,
    admit_socket,
    slot_keeper,
    socket_slots,
    sync_allowed,
)
from matches.live.guests import GuestSeatCheck, guest_from_scope, seated_guest
from matches.live.protocol import CommitRequest, ProtocolError, Request, move_of, parse_frame
from matches.news import PrivateNews, PublicNews, SignedOut, session_digest
from matches.schemas import (
    AcceptedAck,
    ChallengedAck,
    ChallengeRequest,
    ErrorFrame,
    MatchView,
    RefusedAck,
    ResignedAck,
    ResignRequest,
    SeatedAck,
    Shape,
    SnapshotFrame,
    SyncRequest,
    TakeSeatRequest,
    encode,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Close codes (4000-4999 are the application's own).
CLOSE_SIGNED_OUT = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429
CLOSE_TOO_MANY_SOCKETS = 4430
CLOSE_TOO_MANY_NEW_SOCKETS = 4431

SIGNED_OUT = ("signed_out", "Your session has ended. Sign in again.")
MEMBERSHIP_ENDED = ("membership_ended", "You are no longer a member of the club.")
SYNC_LIMITED = ("sync_limited", "Too many sync requests. Wait a minute; the news keeps coming.")
SIGN_IN_TO_PLAY = ("sign_in_required", "Only signed-in members can play. Sign in first.")
SIGN_IN_TO_SIT = ("sign_in_required", "Only signed-in members can take a seat. Sign in first.")
RATE_LIMITED = ("rate_limited", "Too many messages. Slow down; this one was not read.")
SERVER_ERROR = ("server_error", "Something went wrong on the server. Send sync to redraw.")
KEY_REVOKED = ("key_revoked", "This viewing link has been replaced. Ask for the new one.")
NO_SUCH_MATCH = ("not_found", "This match no longer exists.")


async def off_loop(func: Callable[..., T], /, **kwargs: Any) -> T:
    """Run database work in a worker thread of its own, and give its connection back to the
    pool when it is done.

    Not thread-sensitive: each call is a complete transaction, so it needs no particular
    thread, and two connections' commits really run side by side and meet at the match row
    lock instead of queueing behind one process-wide thread.
    """
    return await sync_to_async(_then_close, thread_sensitive=False)(func, kwargs)


def _then_close(func: Callable[..., T], kwargs: dict[str, Any]) -> T:
    """``func(**kwargs)``, then the connection it used back to the pool. Closed here, in the
    call itself: asgiref runs the call in a context of its own, whose connection a cleanup
    around the call (channels' ``database_sync_to_async``) no longer sees."""
    try:
        return func(**kwargs)
    finally:
        close_old_connections()


class SignInEnded(Exception):
    """The socket's session, or its member's club membership, has ended: ``reason`` is the
    error it is told before it closes."""

    def __init__(self, reason: tuple[str, str]) -> None:
        super().__init__(reason[1])
        self.reason = reason


def standing_member(*, signed_in: SignedInCheck, club_member: bool) -> Any:
    """The socket's member, freshly read, while the session it connected with stands and (if
    it was a club member's) they still are one; else :class:`SignInEnded`."""
    member = signed_in.member()
    if member is None:
        raise SignInEnded(SIGNED_OUT)
    if club_member and not visibility.is_club_member(member):
        raise SignInEnded(MEMBERSHIP_ENDED)
    return member


def as_member(
    *, service: Callable[..., T], signed_in: SignedInCheck, club_member: bool, **kwargs: Any
) -> T:
    """The standing check and the service call in one worker-thread call (one hop, one
    connection check): :class:`SignInEnded`, changing nothing, if the socket no longer
    stands."""
    member = standing_member(signed_in=signed_in, club_member=club_member)
    return service(member=member, **kwargs)


def admitted_access(
    *, user: Any, match_id: int, key: str | None, signed_in: SignedInCheck | None
) -> tuple[Any, visibility.MatchAccess]:
    """A connecting socket's first read: its member still standing (read after the socket
    listens for sign-outs, so none falls between) and the match as they may reach it."""
    if signed_in is not None:
        user = standing_member(signed_in=signed_in, club_member=visibility.is_club_member(user))
    return user, services.look_at_match(user=user, match_id=match_id, key=key)


def access_for_sync(
    *,
    address: str,
    user: Any,
    match_id: int,
    key: str | None,
    signed_in: SignedInCheck | None,
    club_member: bool,
) -> tuple[Any, visibility.MatchAccess | None]:
    """A ``sync``'s read, in one worker-thread call: the member still standing (else
    :class:`SignInEnded`), then the match as they may see it, if the address's minute of
    syncs is not spent (None)."""
    if signed_in is not None:
        user = standing_member(signed_in=signed_in, club_member=club_member)
    if not sync_allowed(address):
        return user, None
    return user, services.look_at_match(user=user, match_id=match_id, key=key)


def _key_from_query(query_string: bytes) -> str | None:
    """The ``key`` query parameter, if any."""
    values = parse_qs(query_string.decode("latin-1")).get("key")
    return visibility.viewing_key(values[0]) if values else None


class MatchConsumer(AsyncWebsocketConsumer):
    """``/ws/matches/<id>/[?key=...]``: a snapshot on connect, then requests and live news."""

    #: No layer alias: channels then opens no channel and runs no receive for the socket.
    channel_layer_alias = "no channel per socket"

    match_id: int
    key: str | None
    user: Any
    member_id: int | None
    #: The session or the membership has ended: told, closing, relaying nothing more.
    ended = False
    #: Closed (or closing): nothing more is sent on the socket.
    closing = False
    #: Listening for the member's sign-outs (:meth:`MatchNews.join_sign_outs`).
    hears_sign_outs = False
    #: The address's slot this socket holds (its scope, its id), until given back.
    slot: tuple[str, str] | None = None

    # -- the connection -----------------------------------------------------------------------

    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.key = _key_from_query(self.scope.get("query_string", b""))
        self.user = self.scope.get("user") or AnonymousUser()
        self.member_id = self.user.pk if self.user.is_authenticated else None
        session = self.scope.get("session")
        session_key = session.session_key if session is not None else None
        self.signed_in = SignedInCheck(session_key=session_key, member_id=self.member_id or 0)
        self.session = session_digest(session_key) if session_key else None
        #: Whether the socket connected as a club member: then it stands only while one.
        self.club_member = visibility.is_club_member(self.user)
        #: Standing checks in flight that hold the news, the news held meanwhile, and
        #: whether it is being let through (in order) now.
        self.checks = 0
        self.held: list[dict[str, Any]] = []
        self.flushing = False
        self.rechecks: set[asyncio.Task[None]] = set()
        self.flood = FloodGate.from_settings()
        self.syncs = SyncAllowance.from_settings()
        self.inbox: asyncio.Queue[tuple[Verdict, dict[str, Any]]] = asyncio.Queue()
        self.flood_closed = False
        self.answering = False
        self.close_when_answered: int | None = None
        client = self.scope.get("client") or ("unknown", 0)
        self.address = str(client[0])
        socket_id = uuid.uuid4().hex
        # Named before it is taken: a connection cancelled meanwhile still gives it back.
        self.slot = (ratelimit.address_scope(self.address), socket_id)
        admission = await off_loop(admit_socket, address=self.address, socket_id=socket_id)
        if admission is not Admission.ADMITTED:
            self.slot = None
            code = (
                CLOSE_TOO_MANY_NEW_SOCKETS
                if admission is Admission.TOO_MANY_NEW
                else CLOSE_TOO_MANY_SOCKETS
            )
            await self._lose_access(code)
            return
        slot_keeper().keep(self, *self.slot)
        self.news = news_for(get_channel_layer())
        guest_id = guest_from_scope(self.scope) if self.member_id is None else None
        if guest_id is not None:
            # A browser's guest, on its own game only: it stands while it sits there.
            guest = await off_loop(seated_guest, match_id=self.match_id, guest_id=guest_id)
            if guest is not None:
                self.user, self.member_id = guest, guest.pk
                self.signed_in = GuestSeatCheck(guest_id=guest.pk, match_id=self.match_id)
        if self.member_id is not None:
            # Before its session is read again: a sign-out committed after that read is heard.
            await self.news.join_sign_outs(self)
            self.hears_sign_outs = True
        # Refused at once when the match is missing or hidden; the snapshot comes after the
        # subscription, so no news falls between them (what arrives meanwhile is held).
        if await self._refused() or self.ended:
            return
        await self.news.join(self.match_id, self)
        view = await self._view()
        if view is None or self.ended:
            await self.news.leave(self.match_id, self)
            return
        await self._send(SnapshotFrame(reason="connect", snapshot=view))
        await self.news.release(self.match_id, self)
        self.worker = asyncio.ensure_future(self._answer_in_order())

    async def _refused(self) -> bool:
        """Close (accepted first, so the client sees the code) if it may not watch, or if the
        session it connected with has ended since the handshake read it."""
        admitted = await self._reach(
            admitted_access,
            user=self.user,
            match_id=self.match_id,
            key=self.key,
            signed_in=self.signed_in if self.member_id is not None else None,
        )
        if admitted is None:
            return True
        self.user, _ = admitted
        return False

    async def _reach(
        self, read: Callable[..., T], /, *, answer_to: str | None = None, **kwargs: Any
    ) -> T | None:
        """``read(**kwargs)`` in a worker thread: the one path by which the socket learns it
        may no longer watch. None, the client told why and the socket closed, when the
        session or membership has ended (4401), the match is hidden from this viewer (its
        viewing key replaced: 4403) or gone (4404); ``answer_to`` names the request told."""
        try:
            return await off_loop(read, **kwargs)
        except SignInEnded as ended:
            await self._end(ended.reason, client_id=answer_to)
        except visibility.MatchHidden:
            await self._lose_access(CLOSE_FORBIDDEN, KEY_REVOKED, answer_to)
        except visibility.MatchNotFound:
            await self._lose_access(CLOSE_NOT_FOUND, NO_SUCH_MATCH, answer_to)
        return None

    async def _lose_access(
        self, code: int, reason: tuple[str, str] | None = None, client_id: str | None = None
    ) -> None:
        """Close with ``code``: at the handshake, accepted first so the client sees the
        code; once open, after an error frame saying why (``reason``)."""
        if not self.accepted:
            await self.accept()
        elif reason is not None:
            await self._error(*reason, client_id=client_id)
        await self.close(code=code)

    async def _view(self) -> MatchView | None:
        """The match as this viewer may see it now; None (and the socket closed) when they
        may no longer watch it or it is gone."""
        access = await self._reach(
            visibility.access_match, user=self.user, match_id=self.match_id, key=self.key
        )
        if access is None:
            return None
        if not self.accepted:
            await self.accept()
        return visibility.match_view(access)

    @property
    def accepted(self) -> bool:
        return getattr(self, "_accepted", False)

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        self._accepted = True
        await super().accept(subprotocol=subprotocol, headers=headers)

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        """Close once; nothing is sent on the socket after that."""
        if self.closing:
            return
        self.closing = True
        await super().close(code=code, reason=reason)

    async def disconnect(self, code: int) -> None:
        await self._stop()

    async def dispatch(self, message: dict[str, Any]) -> None:
        """channels' dispatch, without the hop to its one synchronous thread that it makes
        before every message to close stale database connections: this consumer never uses
        a connection on the event loop's thread (each call in :func:`off_loop` gives its
        own back when it ends), and under load that hop, made for every frame of every
        socket, queued behind the others on that single thread."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Run the connection; however it ends (even cancelled), stop its work and news."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self._stop()

    async def _stop(self) -> None:
        self.ended = True  # relay nothing more
        slot = self.slot
        if slot is not None:
            self.slot = None
            slot_keeper().drop(self)
            try:
                await off_loop(socket_slots().give_back, scope=slot[0], socket_id=slot[1])
            except Exception:
                logger.warning("could not give back a socket's slot", exc_info=True)
        for task in [getattr(self, "worker", None), *getattr(self, "rechecks", ())]:
            if task is not None and not task.done() and task is not asyncio.current_task():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if hasattr(self, "news"):
            await self.news.leave(self.match_id, self)
            if getattr(self, "hears_sign_outs", False):
                self.hears_sign_outs = False
                await self.news.leave_sign_outs(self)

    # -- frames from the client ---------------------------------------------------------------

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        """Count the frame as it arrives; the worker answers it in turn, and closes the socket
        (after the answers already due) once the client has ignored enough refusals."""
        if not hasattr(self, "worker") or self.flood_closed or self.ended:
            return  # a socket being refused, or one already told to go
        verdict = self.flood.arrive()
        if verdict is Verdict.CLOSE:
            self.flood_closed = True
        self.inbox.put_nowait((verdict, message))

    async def _answer_in_order(self) -> None:
        while not self.ended:
            verdict, message = await self.inbox.get()
            if self.ended:
                return
            if verdict is Verdict.CLOSE:
                await self.close(code=CLOSE_TOO_MANY)
                return
            self.answering = True
            try:
                if verdict is Verdict.REFUSE:
                    await self._send(ErrorFrame(code=RATE_LIMITED[0], message=RATE_LIMITED[1]))
                else:
                    await self._answer(message.get("text"), message.get("bytes"))
            finally:
                self.answering = False
            if self.close_when_answered is not None:
                await self.close(code=self.close_when_answered)
                return

    async def _answer(self, text: str | None, data: bytes | None) -> None:
        """Answer one frame exactly once, to its sender only; never close for bad input."""
        request: Request | None = None
        try:
            request = parse_frame(text, data)
        except ProtocolError as problem:
            if not await self._still_standing(problem.client_id):
                return
            await self._error(problem.code, problem.message, client_id=problem.client_id)
            return
        client_id = request.id
        try:  # (each request checks the session in its own worker-thread call)
            if isinstance(request, SyncRequest):
                await self._resync(request)
            elif isinstance(request, TakeSeatRequest):
                await self._take_seat(request)
            elif isinstance(request, ResignRequest):
                await self._resign(request)
            elif isinstance(request, ChallengeRequest):
                await self._challenge(request)
            else:
                await self._commit(request)
        except Exception:  # a bug of ours: answer it, keep the socket, let the client resync
            logger.exception("websocket request failed on match %s", self.match_id)
            await self._error(*SERVER_ERROR, client_id=client_id)

    async def _resync(self, request: SyncRequest) -> None:
        if not self.syncs.take():
            if await self._still_standing(request.id):  # (the session's answer comes first)
                await self._error(*SYNC_LIMITED, client_id=request.id)
            return
        reached = await self._reach(
            access_for_sync,
            answer_to=request.id,
            address=self.address,
            user=self.user,
            match_id=self.match_id,
            key=self.key,
            signed_in=self.signed_in if self.member_id is not None else None,
            club_member=self.club_member,
        )
        if reached is None:
            return
        self.user, access = reached
        self.club_member = self.club_member or visibility.is_club_member(self.user)
        if access is None:
            await self._error(*SYNC_LIMITED, client_id=request.id)
            return
        view = visibility.match_view(access)
        await self._send(SnapshotFrame(reason="sync", snapshot=view, id=request.id))

    async def _commit(self, request: CommitRequest) -> None:
        committed = await self._change(
            request,
            services.match_commit,
            move=move_of(request),
            against_turn=request.turn,
            after=request.after,
        )
        if committed is not None:
            await self._send(
                AcceptedAck(id=request.id, replayed=committed.replayed, **dict(committed.answer))
            )

    async def _resign(self, request: ResignRequest) -> None:
        """One call of ``services.match_resign``; the ``ended`` news reaches every watcher."""
        resigned = await self._change(request, services.match_resign)
        if resigned is not None:
            await self._send(ResignedAck(id=request.id, replayed=resigned.replayed))

    async def _challenge(self, request: ChallengeRequest) -> None:
        """One call of ``services.match_challenge``; the ``challenge_result`` news reaches
        every watcher, the challenger's own answer comes here."""
        decided = await self._change(request, services.match_challenge, expected_turn=request.turn)
        if decided is not None:
            await self._send(
                ChallengedAck(id=request.id, replayed=decided.replayed, **dict(decided.answer))
            )

    async def _take_seat(self, request: TakeSeatRequest) -> None:
        taken = await self._change(
            request, services.match_take_seat, sign_in=SIGN_IN_TO_SIT, position=request.position
        )
        if taken is None:
            return
        view = await self._view()
        if view is None:
            return
        await self._send(
            SeatedAck(
                id=request.id,
                position=taken.seat.position,
                replayed=taken.replayed,
                snapshot=view,
            )
        )

    async def _change(
        self,
        request: Request,
        service: Callable[..., T],
        /,
        *,
        sign_in: tuple[str, str] = SIGN_IN_TO_PLAY,
        **kwargs: Any,
    ) -> T | None:
        """The one path of a request that changes the match: ``service`` called as this
        socket's member, with the request's id, in one worker-thread call with the standing
        check. None when the request is answered already: not signed in (``sign_in``), the
        session or membership ended (told, and closed), or refused (a ``RefusedAck``, with a
        fresh snapshot when the client's picture of the match was out of date)."""
        if self.member_id is None:
            await self._error(*sign_in, client_id=request.id)
            return None
        try:
            return await self._reach(
                as_member,
                answer_to=request.id,
                service=service,
                signed_in=self.signed_in,
                club_member=self.club_member,
                match_id=self.match_id,
                client_id=request.id,
                **kwargs,
            )
        except services.ServiceError as refusal:
            stale = isinstance(refusal, services.MoveRefused) and refusal.needs_resync
            await self._send(
                RefusedAck(
                    id=request.id,
                    code=refusal.code,
                    message=refusal.message,
                    replayed=refusal.replayed,
                    snapshot=await self._view() if stale else None,
                )
            )
            return None

    # -- sessions -----------------------------------------------------------------------------

    async def _still_standing(self, client_id: str | None = None, *, hold: bool = False) -> bool:
        """Re-read the session this connection opened with, and its member's membership:
        if either has ended, say so and close.

        A websocket keeps the cookie it connected with, so a lapsed session stays lapsed on
        this connection: its client must sign in again and open a new socket. With ``hold``,
        the socket's news waits meanwhile (the caller lets it through afterwards).
        """
        if self.member_id is None:
            return not self.ended
        if self.ended:
            return False
        if hold:
            self.checks += 1
        try:
            member = await self._reach(
                standing_member,
                answer_to=client_id,
                signed_in=self.signed_in,
                club_member=self.club_member,
            )
        finally:
            if hold:
                self.checks -= 1
        if member is None:
            return False
        self.user = member
        self.club_member = self.club_member or visibility.is_club_member(member)
        return not self.ended

    async def _end(self, reason: tuple[str, str], *, client_id: str | None = None) -> None:
        """The session or the membership has ended: say which, then close (4401), relaying
        nothing more."""
        if self.ended:
            return
        self.ended = True
        self.held.clear()
        if not self.accepted:
            await self.accept()
        await self._error(*reason, client_id=client_id)
        await self.close(code=CLOSE_SIGNED_OUT)

    def signed_out(self, message: SignedOut) -> None:
        """A sign-out of this socket's member (from :mod:`matches.live.broadcast`, which calls
        every one of the member's sockets in one step): hold the news from now on, and check
        the session and membership in a task of its own; a sign-out of this very session
        (``session``) closes at once."""
        if self.ended or message["member_id"] != self.member_id:
            return
        named = message.get("session")
        if named is not None and named != self.session:
            return  # another session of the member signed out: not this one
        self.checks += 1  # nothing is relayed from here until the check is done
        task = asyncio.ensure_future(self._check_after_sign_out(ended=named is not None))
        self.rechecks.add(task)
        task.add_done_callback(self.rechecks.discard)

    async def _check_after_sign_out(self, *, ended: bool) -> None:
        try:
            if ended:
                await self._end(SIGNED_OUT)
                return
            standing = await self._still_standing(hold=True)
        finally:
            self.checks -= 1
        if standing:
            await self._let_news_through()

    # -- news from the services ---------------------------------------------------------------

    def _holding_news(self) -> bool:
        return bool(self.checks or self.flushing or self.held)

    async def match_public(self, message: PublicNews) -> None:
        """A public event of this match (from :mod:`matches.live.broadcast`): relay its frame."""
        if message["match_id"] != self.match_id or self.ended:
            return
        if self._holding_news():
            self.held.append(dict(message))
            return
        await self._relay_public(message)

    async def _relay_public(self, message: PublicNews | dict[str, Any]) -> None:
        if message["kind"] == "key_rotated" and self._watching_by_key():
            reached = await self._reach(
                visibility.access_match, user=self.user, match_id=self.match_id, key=self.key
            )
            if reached is None:
                return
        await self._relay(message["text"])

    async def match_private(self, message: PrivateNews) -> None:
        """A member's own rack, handed only to their sockets; relayed only once this socket's
        session and membership are read again and still stand (a sign-out committed before
        the rack's news cannot be outrun by it)."""
        if (
            message["match_id"] != self.match_id
            or self.member_id is None
            or message["member_id"] != self.member_id
            or self.ended
        ):
            return
        if self._holding_news():
            self.held.append(dict(message))
            return
        if await self._still_standing(hold=True):
            await self._relay(message["text"])
        await self._let_news_through()

    async def _let_news_through(self) -> None:
        """Relay the news held during standing checks, in order (each rack after a check of
        its own), unless another check holds it again."""
        if self.flushing:
            return
        self.flushing = True
        try:
            while self.held and not self.checks and not self.ended:
                message = self.held.pop(0)
                if message["type"] == "match.private":
                    if not await self._still_standing(hold=True):
                        return
                    await self._relay(message["text"])
                else:
                    await self._relay_public(message)
        finally:
            self.flushing = False

    async def news_lost(self) -> None:
        """The process lost this match's news: close so the client reconnects and resyncs,
        but only once the frame being answered has its answer (a commit's ack is its
        sender's only word that the move stands)."""
        if self.answering:
            self.close_when_answered = CLOSE_NEWS_LOST
        else:
            await self.close(code=CLOSE_NEWS_LOST)

    # -- helpers ------------------------------------------------------------------------------

    async def _relay(self, text: str) -> None:
        """Send a frame already encoded (news, encoded once for every watcher; an answer)
        straight to the server, without channels' two layers of ``send``: at a thousand
        spectators this runs a thousand times a move, one after another on the event loop.

        Nothing is sent once the socket is closing. A client that hung up meanwhile is not
        our error: Daphne refuses a send on a socket whose client has just closed it, before
        the disconnect reaches us; there is nobody left to answer, and the disconnect
        follows."""
        if self.closing:
            return
        try:
            await self.base_send({"type": "websocket.send", "text": text})
        except (SocketClosed, OSError):
            logger.debug("match %s: the client left before its frame was sent", self.match_id)

    async def _send(self, frame: Shape) -> None:
        await self._relay(encode(frame))

    async def _error(self, code: str, message: str, *, client_id: str | None = None) -> None:
        await self._send(ErrorFrame(code=code, message=message, id=client_id))

    def _watching_by_key(self) -> bool:
        """True when this connection may be watching only because of its viewing key."""
        return not visibility.is_club_member(self.user) and self.key is not None
