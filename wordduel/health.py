"""``/healthz``: is the database reachable, and does the channel layer round-trip?"""

import asyncio
import uuid

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse


def _database_ok() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - any failure means "unreachable"
        return False, type(exc).__name__
    return True, connection.vendor


async def _layer_round_trip() -> None:
    layer = get_channel_layer()
    channel = await layer.new_channel()
    token = uuid.uuid4().hex
    await layer.send(channel, {"type": "health.ping", "token": token})
    message = await asyncio.wait_for(layer.receive(channel), timeout=2)
    if message.get("token") != token:
        raise RuntimeError("channel layer returned another message")


def _channel_layer_ok() -> tuple[bool, str]:
    try:
        async_to_sync(_layer_round_trip)()
    except Exception as exc:  # noqa: BLE001 - any failure means "unreachable"
        return False, type(exc).__name__
    return True, type(get_channel_layer()).__name__


def healthz(request: HttpRequest) -> JsonResponse:
    """Report each dependency; 200 when all answer, 503 otherwise."""
    db_ok, db_detail = _database_ok()
    layer_ok, layer_detail = _channel_layer_ok()
    body = {
        "status": "ok" if db_ok and layer_ok else "degraded",
        "database": {"ok": db_ok, "detail": db_detail},
        "channel_layer": {"ok": layer_ok, "detail": layer_detail},
    }
    return JsonResponse(body, status=200 if db_ok and layer_ok else 503)
