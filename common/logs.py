"""Structured logs: one JSON object a line in production, readable lines in development.

Every record carries the id of the request it belongs to (``request_id``), wherever it was
logged: in the view, in the websocket consumer serving the socket that request opened, and
in a Celery task that the request (or a frame on that socket) sent to the queue. The id is
the proxy's ``X-Request-ID`` when it sent a well-formed one (so the proxy's access log and
ours agree), otherwise a fresh one; responses send it back in ``X-Request-ID``.

* :class:`RequestIdMiddleware` wraps the ASGI application (HTTP and websockets alike) and
  sets :data:`request_id` for everything the connection runs; asyncio tasks and asgiref's
  threads inherit it.
* Celery's ``before_task_publish`` puts the current id in the task's headers and
  ``task_prerun`` sets it again in the worker (:func:`connect_celery_signals`).
* :class:`RequestLogMiddleware` logs one line per HTTP request: method, path, status,
  duration and the client's address as the rate limits see it.

No line holds a secret of an address (a viewing key, a calendar secret, a reset token...:
``common/secret_urls.py``): the request and socket lines write the path redacted, and both
formatters redact the whole line they write, so a path in any other record (a CSRF refusal,
an exception's message) is redacted too.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from common.secret_urls import redact

if TYPE_CHECKING:  # importable from settings, before Django is set up
    from django.http import HttpRequest, HttpResponse

#: The request (or socket, or task) the current code is working for; "-" outside any.
request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")

REQUEST_ID_HEADER = "X-Request-ID"
socket_logger = logging.getLogger("wordduel.socket")
#: Ids we accept from the proxy: short, and nothing that could forge a log line.
_WELL_FORMED = re.compile(r"[A-Za-z0-9._:-]{8,64}")
#: Attributes every LogRecord has; anything else was passed in ``extra=`` and is data.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
    "request_id",
}


def new_request_id() -> str:
    return uuid.uuid4().hex


def accepted_request_id(value: str | bytes | None) -> str:
    """The proxy's id when it is well formed, otherwise a new one."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if value and _WELL_FORMED.fullmatch(value):
        return value
    return new_request_id()


class RequestIdFilter(logging.Filter):
    """Put the current request id on every record (handlers attach it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, request id, and any ``extra``."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", request_id.get()),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return redact(json.dumps(entry, default=str))


class ReadableFormatter(logging.Formatter):
    """``time LEVEL logger [request id] message`` for a developer's terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s [%(request_id)s] %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def logging_config(*, json_lines: bool, level: str) -> dict[str, Any]:
    """The ``LOGGING`` setting: everything to standard error, in the chosen format."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": RequestIdFilter}},
        "formatters": {
            "json": {"()": JsonFormatter},
            "readable": {"()": ReadableFormatter},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "filters": ["request_id"],
                "formatter": "json" if json_lines else "readable",
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "daphne": {"level": "WARNING"},
            "django.channels.server": {"level": "WARNING"},
            # Our own line per request replaces Django's warning per 4xx.
            "django.request": {"level": "ERROR"},
        },
    }


class RequestIdMiddleware:
    """ASGI: one request id per HTTP request or websocket connection, for all it runs."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in {"http", "websocket"}:
            await self.app(scope, receive, send)
            return
        header = REQUEST_ID_HEADER.lower().encode()
        given = next((value for name, value in scope.get("headers", []) if name == header), None)
        current = accepted_request_id(given)
        token = request_id.set(current)
        scope = {**scope, "request_id": current}

        async def send_with_id(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (header, current.encode())]
                message = {**message, "headers": headers}
            await send(message)

        try:
            if scope["type"] == "http":
                await self.app(scope, receive, send_with_id)
            else:
                await self._socket(scope, receive, send)
        finally:
            request_id.reset(token)

    async def _socket(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Run a websocket, logging when it opens and closes: lines with its request id,
        as is everything its consumer logs in between."""
        query = scope.get("query_string", b"").decode("latin-1")
        path = redact(scope["path"] + (f"?{query}" if query else ""))
        client = str((scope.get("client") or ("unknown", 0))[0])
        fields = {"path": path, "client": client}
        started = time.perf_counter()

        async def send_logged(message: dict[str, Any]) -> None:
            if message["type"] == "websocket.accept":
                socket_logger.info("socket opened %s", path, extra=fields)
            await send(message)

        async def receive_logged() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                socket_logger.info(
                    "socket closed %s (%s)",
                    path,
                    message.get("code"),
                    extra={
                        **fields,
                        "code": message.get("code"),
                        "seconds": round(time.perf_counter() - started, 1),
                    },
                )
            return message

        await self.app(scope, receive_logged, send_logged)


class RequestLogMiddleware:
    """Django: one log line per HTTP request, with what an operator needs to follow it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.logger = logging.getLogger("wordduel.request")

    def __call__(self, request: HttpRequest) -> HttpResponse:
        from common.addresses import client_address  # noqa: PLC0415 (apps are loaded)

        started = time.perf_counter()
        response = self.get_response(request)
        if request.path == "/healthz" or request.path.startswith("/healthz/"):
            return response  # probed every few seconds by every checker: not news
        path = redact(request.get_full_path())
        self.logger.info(
            "%s %s %s",
            request.method,
            path,
            response.status_code,
            extra={
                "method": request.method,
                "path": path,
                "status": response.status_code,
                "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                "client": client_address(request),
            },
        )
        return response


def connect_celery_signals() -> None:
    """Carry the request id from whoever queues a task into the worker that runs it."""
    from celery.signals import before_task_publish, task_postrun, task_prerun  # noqa: PLC0415

    @before_task_publish.connect(weak=False)
    def _stamp(headers: dict[str, Any] | None = None, **_: Any) -> None:
        current = request_id.get()
        if headers is not None and current != "-":
            headers["request_id"] = current

    #: Each running task's token for undoing its request id, by task id (kept here, not as
    #: an attribute of Celery's request).
    tokens: dict[str, contextvars.Token[str]] = {}

    @task_prerun.connect(weak=False)
    def _enter(task_id: str | None = None, task: Any = None, **_: Any) -> None:
        given = getattr(task.request, "request_id", None) if task is not None else None
        token = request_id.set(given or f"task-{task_id}")
        if task_id is not None:
            tokens[task_id] = token

    @task_postrun.connect(weak=False)
    def _leave(task_id: str | None = None, **_: Any) -> None:
        token = tokens.pop(task_id, None) if task_id is not None else None
        if token is not None:
            with contextlib.suppress(ValueError):  # set in another context: nothing to undo
                request_id.reset(token)
