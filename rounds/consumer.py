"""Word Skill rounds over a websocket: ``/ws/rounds/<id>/`` (docs/PROTOCOL.md, "Word Skill
rounds").

As ``matches.live.consumer``: authenticate, join the match's group, call one service per
request in a worker thread (nothing touches the database on the event loop), relay. What a
viewer sees comes from ``matches.visibility.rounds`` (``rounds.selectors``); every change goes
through ``rounds.services``. The same flood limits: a slot per open socket per client address
and new sockets a minute (``admit_socket``), a token bucket per socket (``FloodGate``: read,
refuse with ``rate_limited``, or close 4429), ``sync`` frames a minute (``SyncAllowance``).
A private item of news (a player's own tray) is relayed only to that member's sockets, after
their session is read again and still stands.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from channels.generic.websocket import AsyncWebsocketConsumer
from django.contrib.auth.models import AnonymousUser
from pydantic import ValidationError

from accounts import ratelimit
from accounts.sessions import SignedInCheck
from engine import Pass, Play
from matches import visibility
from matches.live.consumer import (
    CLOSE_NOT_FOUND,
    CLOSE_SIGNED_OUT,
    CLOSE_TOO_MANY,
    CLOSE_TOO_MANY_NEW_SOCKETS,
    CLOSE_TOO_MANY_SOCKETS,
    NO_SUCH_MATCH,
    RATE_LIMITED,
    SERVER_ERROR,
    SIGN_IN_TO_PLAY,
    SYNC_LIMITED,
    SignInEnded,
    as_member,
    off_loop,
    standing_member,
)
from matches.live.floodgate import (
    Admission,
    FloodGate,
    SyncAllowance,
    Verdict,
    admit_socket,
    socket_slots,
)
from matches.live.protocol import frame_too_large
from matches.schemas import MAX_FRAME_BYTES, ErrorFrame, Shape
from rounds import selectors, services
from rounds.news import rounds_group
from rounds.payloads import own_round_view, submission_view
from rounds.schemas import (
    ROUNDS_REQUESTS,
    RoundPassRequest,
    RoundPlayRequest,
    RoundsRefusedAck,
    RoundsSnapshotFrame,
    RoundsSyncRequest,
    RoundsView,
    StartedAck,
    StartRoundRequest,
    SubmittedAck,
    encode,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")

BAD_FRAME = ("bad_frame", "That message is not a rounds request (see docs/PROTOCOL.md).")
TOO_LARGE = ("too_large", f"A message may be at most {MAX_FRAME_BYTES // 1024} KiB.")
BINARY = ("binary_frame", "Send messages as JSON text, not binary.")


def look(*, user: Any, match_id: int) -> RoundsView:
    """A close come due applied, then the match as ``user`` may see it (worker thread)."""
    services.rounds_apply_due(match_id=match_id)
    return selectors.rounds_state(user=user, match_id=match_id)


def parse(text: str | None, data: bytes | None) -> Any:
    """One client frame as a request model, or ValueError with (code, message, id)."""
    if text is None:
        raise ValueError(BINARY, None)
    if frame_too_large(text):
        raise ValueError(TOO_LARGE, None)
    try:
        return ROUNDS_REQUESTS.validate_json(text)
    except ValidationError:
        client_id = None
        try:
            raw = json.loads(text)
            if isinstance(raw, dict) and isinstance(raw.get("id"), str) and len(raw["id"]) <= 64:
                client_id = raw["id"]
        except ValueError:
            pass
        raise ValueError(BAD_FRAME, client_id) from None


class RoundsConsumer(AsyncWebsocketConsumer):
    """``/ws/rounds/<id>/``: a snapshot on connect, then requests and live news."""

    match_id: int
    member_id: int | None
    slot: tuple[str, str] | None = None
    joined = False
    closing = False

    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.user = self.scope.get("user") or AnonymousUser()
        self.member_id = self.user.pk if self.user.is_authenticated else None
        session = self.scope.get("session")
        self.signed_in = SignedInCheck(
            session_key=session.session_key if session is not None else None,
            member_id=self.member_id or 0,
        )
        self.club_member = visibility.is_club_member(self.user)
        self.flood = FloodGate.from_settings()
        self.syncs = SyncAllowance.from_settings()
        self.lock = asyncio.Lock()
        client = self.scope.get("client") or ("unknown", 0)
        address = str(client[0])
        socket_id = uuid.uuid4().hex
        self.slot = (ratelimit.address_scope(address), socket_id)
        admission = await off_loop(admit_socket, address=address, socket_id=socket_id)
        if admission is not Admission.ADMITTED:
            self.slot = None
            await self.accept()
            await self.close(
                code=CLOSE_TOO_MANY_NEW_SOCKETS
                if admission is Admission.TOO_MANY_NEW
                else CLOSE_TOO_MANY_SOCKETS
            )
            return
        # Joined before the snapshot is read: no news falls between them.
        await self.channel_layer.group_add(rounds_group(self.match_id), self.channel_name)
        self.joined = True
        await self.accept()
        try:
            view = await off_loop(look, user=self.user, match_id=self.match_id)
        except services.RoundsMatchMissing:
            await self._send(ErrorFrame(code=NO_SUCH_MATCH[0], message=NO_SUCH_MATCH[1]))
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self._send(RoundsSnapshotFrame(reason="connect", snapshot=view))

    async def disconnect(self, code: int) -> None:
        if self.joined:
            self.joined = False
            await self.channel_layer.group_discard(rounds_group(self.match_id), self.channel_name)
        slot, self.slot = self.slot, None
        if slot is not None:
            try:
                await off_loop(socket_slots().give_back, scope=slot[0], socket_id=slot[1])
            except Exception:
                logger.warning("could not give back a socket's slot", exc_info=True)

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        if self.closing:
            return
        self.closing = True
        await super().close(code=code, reason=reason)

    # -- frames from the client ---------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closing:
            return
        verdict = self.flood.arrive()
        if verdict is Verdict.CLOSE:
            await self.close(code=CLOSE_TOO_MANY)
            return
        if verdict is Verdict.REFUSE:
            await self._error(RATE_LIMITED)
            return
        async with self.lock:  # answered in order, one at a time
            await self._answer(text_data, bytes_data)

    async def _answer(self, text: str | None, data: bytes | None) -> None:
        try:
            request = parse(text, data)
        except ValueError as problem:
            reason, client_id = problem.args
            await self._error(reason, client_id)
            return
        try:
            if isinstance(request, RoundsSyncRequest):
                await self._resync(request)
            elif isinstance(request, StartRoundRequest):
                await self._start_round(request)
            else:
                await self._submit(request)
        except Exception:
            logger.exception("rounds socket request failed on match %s", self.match_id)
            await self._error(SERVER_ERROR, request.id)

    async def _resync(self, request: RoundsSyncRequest) -> None:
        if not self.syncs.take():
            await self._error(SYNC_LIMITED, request.id)
            return
        try:
            view = await off_loop(look, user=self.user, match_id=self.match_id)
        except services.RoundsMatchMissing:
            await self._error(NO_SUCH_MATCH, request.id)
            return
        await self._send(RoundsSnapshotFrame(reason="sync", snapshot=view, id=request.id))

    async def _start_round(self, request: StartRoundRequest) -> None:
        started = await self._change(
            request, services.rounds_start_round, round_number=request.round, client_id=request.id
        )
        if started is not None:
            own = own_round_view(started.own, turn_time=started.match.turn_time)
            await self._send(StartedAck(id=request.id, round=own))

    async def _submit(self, request: RoundPlayRequest | RoundPassRequest) -> None:
        move = (
            Play(tuple(tile.placed() for tile in request.tiles))
            if isinstance(request, RoundPlayRequest)
            else Pass()
        )
        submitted = await self._change(
            request,
            services.rounds_submit,
            round_number=request.round,
            move=move,
            client_id=request.id,
        )
        if submitted is not None:
            await self._send(
                SubmittedAck(id=request.id, submission=submission_view(submitted.submission))
            )

    async def _change(self, request: Any, service: Callable[..., T], **kwargs: Any) -> T | None:
        """``service`` called as this socket's member (its session read again first), in a
        worker thread; None when the request is answered already (refused, signed out)."""
        if self.member_id is None:
            await self._error(SIGN_IN_TO_PLAY, request.id)
            return None
        try:
            return await off_loop(
                as_member,
                service=service,
                signed_in=self.signed_in,
                club_member=self.club_member,
                match_id=self.match_id,
                **kwargs,
            )
        except SignInEnded as ended:
            await self._error(ended.reason, request.id)
            await self.close(code=CLOSE_SIGNED_OUT)
        except services.ServiceError as refusal:
            await self._send(
                RoundsRefusedAck(id=request.id, code=refusal.code, message=refusal.message)
            )
        return None

    # -- news ---------------------------------------------------------------------------

    async def rounds_news(self, message: dict[str, Any]) -> None:
        """One commit's news of the match: the public items to everyone, a private one only
        to its member's sockets while their session stands."""
        if message.get("match_id") != self.match_id or self.closing:
            return
        for item in message["items"]:
            member_id = item.get("member_id")
            if member_id is None or (member_id == self.member_id and await self._still_standing()):
                await self._relay(item["text"])

    async def _still_standing(self) -> bool:
        try:
            await off_loop(standing_member, signed_in=self.signed_in, club_member=self.club_member)
        except SignInEnded as ended:
            await self._error(ended.reason)
            await self.close(code=CLOSE_SIGNED_OUT)
            return False
        return True

    # -- helpers ------------------------------------------------------------------------

    async def _relay(self, text: str) -> None:
        if not self.closing:
            await self.send(text_data=text)

    async def _send(self, frame: Shape) -> None:
        await self._relay(encode(frame))

    async def _error(self, reason: tuple[str, str], client_id: str | None = None) -> None:
        await self._send(ErrorFrame(code=reason[0], message=reason[1], id=client_id))
