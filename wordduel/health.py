"""Health: is every part of the service there and answering?

* ``/healthz/web`` — what this web process needs to serve: the database answers a query and
  the channel layer (Redis) round-trips a message. The proxy and the web container's
  healthcheck ask this one: a web process is healthy when it can serve, whatever the rest.
* ``/healthz`` — every part: the web process (which one answered), the database, Redis,
  a Celery worker answering a ping, and beat's last tick (recorded by
  ``wordduel.celery.TickRecordingScheduler``) recent. 200 when all are well, 503 otherwise.
  In the quick start (the clock sweeping in the web process) there is no worker or beat to
  ask, and the report says so.

Both tell the public whether each part is well, never which host or process answered: the
web process's ``process`` (host and PID) and the worker's ``node`` (its name holds the host)
are in the answer only to a request carrying the operator's token (``Authorization: Bearer
$HEALTH_TOKEN``; none set: to nobody).

``python -m wordduel.health web [URL] | worker [NODE] | beat`` is the compose file's
healthcheck of a web process, a worker and beat: exit 0 when that part is well.
docs/OPERATIONS.md says what each part means.
"""

from __future__ import annotations

import asyncio
import hmac
import http.client
import json
import os
import socket
import sys
import time
import uuid
from typing import Any
from urllib.parse import urlsplit

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse

Part = dict[str, Any]


def _database() -> Part:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - any failure means "unreachable"
        return {"ok": False, "detail": type(exc).__name__}
    return {"ok": True, "detail": connection.vendor}


async def _layer_round_trip() -> None:
    layer = get_channel_layer()
    channel = await layer.new_channel()
    token = uuid.uuid4().hex
    await layer.send(channel, {"type": "health.ping", "token": token})
    message = await asyncio.wait_for(layer.receive(channel), timeout=2)
    if message.get("token") != token:
        raise RuntimeError("channel layer returned another message")


def _channel_layer() -> Part:
    try:
        async_to_sync(_layer_round_trip)()
    except Exception as exc:  # noqa: BLE001 - any failure means "unreachable"
        return {"ok": False, "detail": type(exc).__name__}
    return {"ok": True, "detail": type(get_channel_layer()).__name__}


def _web() -> Part:
    return {"ok": True, "detail": "answered", "process": f"{socket.gethostname()}:{os.getpid()}"}


IN_PROCESS = "the clock sweeps in the web process (no Celery)"


def worker_part(timeout: float | None = None, node: str | None = None) -> Part:
    """Whether a Celery worker (any, or the one named ``node``) answers a ping on the
    broker within ``timeout`` seconds."""
    if settings.CLOCK_IN_PROCESS:
        return {"ok": True, "detail": IN_PROCESS}
    from wordduel.celery import app  # noqa: PLC0415

    wait = settings.HEALTH_WORKER_PING_SECONDS if timeout is None else timeout
    try:
        replies = app.control.ping(destination=[node] if node else None, timeout=wait, limit=1)
    except Exception as exc:  # noqa: BLE001 - the broker is away: no worker can answer
        return {"ok": False, "detail": type(exc).__name__}
    names = sorted(name for reply in replies for name in reply)
    if not names:
        return {"ok": False, "detail": f"no worker answered a ping within {wait:g} s"}
    return {"ok": True, "detail": "a worker answered", "node": names[0]}


def beat_part() -> Part:
    """Whether beat's last recorded tick is recent (``HEALTH_BEAT_STALE_SECONDS``)."""
    if settings.CLOCK_IN_PROCESS:
        return {"ok": True, "detail": IN_PROCESS}
    from wordduel.celery import BEAT_TICK_KEY  # noqa: PLC0415

    try:
        last = cache.get(BEAT_TICK_KEY)
    except Exception as exc:  # noqa: BLE001 - Redis away: nothing can be told
        return {"ok": False, "detail": type(exc).__name__}
    if last is None:
        return {"ok": False, "detail": "beat has recorded no tick"}
    age = max(0.0, time.time() - float(last))
    stale = settings.HEALTH_BEAT_STALE_SECONDS
    if age > stale:
        return {"ok": False, "detail": f"last tick {age:.0f} s ago (over {stale:g} s)"}
    return {"ok": True, "detail": f"last tick {age:.1f} s ago", "age_seconds": round(age, 1)}


#: What names a host or a process: shown only to the operator (:func:`_is_operator`).
OPERATOR_ONLY = ("process", "node")


def _is_operator(request: HttpRequest) -> bool:
    """Whether the request carries the operator's token (``HEALTH_TOKEN``)."""
    token = settings.HEALTH_TOKEN
    given = request.headers.get("Authorization", "")
    return bool(token) and hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


def _report(parts: dict[str, Part], request: HttpRequest) -> JsonResponse:
    healthy = all(part["ok"] for part in parts.values())
    if not _is_operator(request):
        parts = {
            name: {key: value for key, value in part.items() if key not in OPERATOR_ONLY}
            for name, part in parts.items()
        }
    body = {"status": "ok" if healthy else "degraded", **parts}
    return JsonResponse(body, status=200 if healthy else 503)


def healthz_web(request: HttpRequest) -> JsonResponse:
    """This web process can serve: database and channel layer. 200 or 503."""
    return _report(
        {"web": _web(), "database": _database(), "channel_layer": _channel_layer()}, request
    )


def healthz(request: HttpRequest) -> JsonResponse:
    """Every part of the service. 200 when all are well, 503 otherwise."""
    return _report(
        {
            "web": _web(),
            "database": _database(),
            "channel_layer": _channel_layer(),
            "worker": worker_part(),
            "beat": beat_part(),
        },
        request,
    )


#: Where the web container's healthcheck asks (the port compose's web command binds).
WEB_HEALTH_URL = "http://127.0.0.1:8000/healthz/web"


def _probe_host() -> str:
    """A name the web process serves (ALLOWED_HOSTS), so the probe is not refused as an
    unknown host: the first entry that is a name (".example.org" asks example.org)."""
    for entry in settings.ALLOWED_HOSTS:
        name = entry.lstrip(".")
        if name and name != "*":
            return name
    return "localhost"


def web_part(url: str = WEB_HEALTH_URL, timeout: float = 5) -> Part:
    """Whether the web process at ``url`` answers ``/healthz/web`` with 200, asked as the
    proxy asks: a host it serves and ``X-Forwarded-Proto: https`` (otherwise a deployment
    redirects the probe to HTTPS). Needs the settings only, not Django's apps."""
    target = urlsplit(url)
    if target.scheme != "http" or not target.hostname:
        return {"ok": False, "detail": f"not an http:// URL: {url}"}
    probe = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=timeout)
    try:
        probe.request(
            "GET",
            target.path or "/",
            headers={"Host": _probe_host(), "X-Forwarded-Proto": "https"},
        )
        response = probe.getresponse()
        body = response.read()
    except OSError as exc:
        return {"ok": False, "detail": f"{type(exc).__name__} from {target.netloc}"}
    finally:
        probe.close()
    if response.status == 200:
        return {"ok": True, "detail": f"{target.netloc} answered 200"}
    try:
        failing = sorted(
            name
            for name, part in json.loads(body).items()
            if isinstance(part, dict) and not part.get("ok")
        )
    except ValueError:
        failing = []
    because = f" (failing: {', '.join(failing)})" if failing else ""
    return {"ok": False, "detail": f"{target.netloc} answered {response.status}{because}"}


USAGE = "usage: python -m wordduel.health web [URL] | worker [NODE] | beat\n"


def main(argv: list[str]) -> int:
    """``python -m wordduel.health web [URL] | worker [NODE] | beat``: exit 0 when that part
    is well (``URL``: the web process's /healthz/web, by default on port 8000 here;
    ``NODE``: that worker, e.g. ``worker@$HOSTNAME`` in its own container)."""
    import django  # noqa: PLC0415

    most_arguments = {"web": 2, "worker": 2, "beat": 1}
    if not argv or argv[0] not in most_arguments or len(argv) > most_arguments[argv[0]]:
        sys.stderr.write(USAGE)
        return 2
    given = argv[1] if len(argv) > 1 else None
    if argv[0] == "web":
        # Asked every few seconds: the settings are enough, without setting up every app.
        part = web_part(given or WEB_HEALTH_URL)
    else:
        django.setup()
        part = worker_part(node=given) if argv[0] == "worker" else beat_part()
    said = ", ".join(str(part[key]) for key in ("detail", "node") if key in part)
    sys.stdout.write(f"{argv[0]}: {'ok' if part['ok'] else 'FAILING'} ({said})\n")
    return 0 if part["ok"] else 1


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wordduel.settings")
    sys.exit(main(sys.argv[1:]))
