"""Sockets on ``/ws/rounds/<id>/`` through the real application (origin check, session
auth, router) on the channels-redis layer and PostgreSQL: nothing mocked. No tests here."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from pydantic import TypeAdapter

from accounts.models import Member
from rounds.schemas import RoundsServerFrame
from tests.matches.test_ws_helpers import ARRIVAL_TIMEOUT, Socket, headers_for, session_cookie
from wordduel.asgi import application

SERVER_FRAMES = TypeAdapter(RoundsServerFrame)


def rounds_path(match_id: int) -> str:
    return f"/ws/rounds/{match_id}/"


async def open_rounds_socket(
    match_id: int, *, member: Member | None = None, name: str = ""
) -> tuple[Socket, dict[str, Any]]:
    """Connect as ``member`` (or anonymously); the socket and its snapshot."""
    cookie = await database_sync_to_async(session_cookie)(member) if member else None
    communicator = WebsocketCommunicator(
        application, rounds_path(match_id), headers=headers_for(cookie)
    )
    connected, code = await communicator.connect(timeout=ARRIVAL_TIMEOUT)
    assert connected, f"{name or member} was refused with {code}"
    socket = Socket(name or str(member or "anonymous"), communicator)
    first = await socket.next()
    assert first["type"] == "snapshot", first
    assert first["reason"] == "connect"
    return socket, first["snapshot"]


RoundsOpener = Callable[..., Awaitable[tuple[Socket, dict[str, Any]]]]


@contextlib.asynccontextmanager
async def rounds_sockets() -> AsyncIterator[RoundsOpener]:
    """Open sockets that are all closed at the end, with their database sessions."""
    opened: list[Socket] = []

    async def open_(match_id: int, **kwargs: Any) -> tuple[Socket, dict[str, Any]]:
        socket, snapshot = await open_rounds_socket(match_id, **kwargs)
        opened.append(socket)
        return socket, snapshot

    try:
        yield open_
    finally:
        for socket in reversed(opened):
            await socket.close()
        await database_sync_to_async(connections.close_all)()
        await asyncio.get_running_loop().shutdown_default_executor()
        gc.collect()


def check_frames(socket: Socket) -> None:
    """Every frame the socket received is one the schemas define, exactly."""
    for frame in socket.frames:
        SERVER_FRAMES.validate_python(frame)
