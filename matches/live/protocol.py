"""Reading a client's frame: text in, one of the request shapes of :mod:`matches.schemas` out.

Every frame from a client is validated here before anything else looks at it (docs/DESIGN.md,
"bad input is an answer"): the consumer gets a request model, whose moves are the engine's
own values, or a :class:`ProtocolError` whose code and message go back to the sender
(``docs/PROTOCOL.md`` lists them). The rules of the game (letters, squares, words) are not
checked here; the engine judges those inside the service, in docs/RULES.md's order, so their
messages stay docs/RULES.md's own.
"""

from __future__ import annotations

import json
from typing import Any, TypeAlias

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from engine import MAX_TAKES, Move, Pass, Play, Swap, TakePlay
from matches.schemas import (
    MAX_CLIENT_ID_LENGTH,
    MAX_FRAME_BYTES,
    MAX_PLAY_TILES,
    MAX_RACK_TILES,
    ChallengeRequest,
    PassRequest,
    PlayRequest,
    ResignRequest,
    SwapRequest,
    SyncRequest,
    TakeSeatRequest,
)

Request: TypeAlias = (
    SyncRequest
    | TakeSeatRequest
    | PlayRequest
    | SwapRequest
    | PassRequest
    | ResignRequest
    | ChallengeRequest
)
CommitRequest: TypeAlias = PlayRequest | SwapRequest | PassRequest

REQUESTS: dict[str, type[BaseModel]] = {
    "play": PlayRequest,
    "swap": SwapRequest,
    "pass": PassRequest,
    "sync": SyncRequest,
    "take_seat": TakeSeatRequest,
    "resign": ResignRequest,
    "challenge": ChallengeRequest,
}
REQUEST_TYPES = tuple(REQUESTS)
COMMIT_TYPES = ("play", "swap", "pass")
_ARTICLE = {name: f"a {name}" for name in REQUESTS}


class ProtocolError(Exception):
    """A frame that is not a valid request; ``code`` and ``message`` go back to its sender."""

    def __init__(self, code: str, message: str, *, client_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.client_id = client_id


def move_of(request: CommitRequest) -> Move:
    """The engine's move a commit request asks for (its shape is the engine's to judge): a
    play with ``takes`` is Reword's take-play, which a game without them refuses."""
    if isinstance(request, PlayRequest):
        tiles = tuple(tile.placed() for tile in request.tiles)
        if request.takes:
            return TakePlay(tuple(take.engine_take() for take in request.takes), tiles)
        return Play(tiles)
    if isinstance(request, SwapRequest):
        return Swap(tuple(request.tiles))
    return Pass()


def frame_too_large(text: str) -> bool:
    """Whether a text frame exceeds :data:`MAX_FRAME_BYTES` once encoded."""
    if len(text) * 4 <= MAX_FRAME_BYTES:  # no character takes more than four bytes
        return False
    return len(text) > MAX_FRAME_BYTES or len(text.encode("utf-8", "surrogatepass")) > (
        MAX_FRAME_BYTES
    )


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def usable_id(data: dict[str, Any]) -> str | None:
    """The frame's id if it is a usable one, so even an error can name it."""
    value = data.get("id")
    if (
        isinstance(value, str)
        and 1 <= len(value) <= MAX_CLIENT_ID_LENGTH
        and value.isprintable()  # no control characters: PostgreSQL text refuses NUL
    ):
        return value
    return None


def parse_frame(text: str | None, data: bytes | None) -> Request:
    """A websocket frame (text or binary) as a request; binary frames are refused."""
    if text is None:
        if len(data or b"") > MAX_FRAME_BYTES:
            raise ProtocolError(
                "too_large", f"A message may be at most {MAX_FRAME_BYTES // 1024} KiB."
            )
        raise ProtocolError("binary_frame", "Send messages as JSON text, not binary.")
    return parse_request(text)


def parse_request(text: str) -> Request:
    """Turn one text frame into a request, or raise :class:`ProtocolError`."""
    if frame_too_large(text):
        raise ProtocolError("too_large", f"A message may be at most {MAX_FRAME_BYTES // 1024} KiB.")
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_json", "That message is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ProtocolError("not_an_object", "A message must be a JSON object with a type.")
    client_id = usable_id(data)
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in REQUESTS:
        known = ", ".join(REQUEST_TYPES)
        shown = kind if isinstance(kind, str) and len(kind) <= 40 else None
        message = (
            f"Unknown message type '{shown}'. Known types: {known}."
            if shown is not None
            else f"A message needs a type, one of: {known}."
        )
        raise ProtocolError("unknown_type", message, client_id=client_id)
    model = REQUESTS[kind]
    what = _ARTICLE[kind]
    fields = model.model_fields
    extra = sorted(str(key)[:40] for key in data if key not in fields)
    if extra:
        raise ProtocolError(
            "unexpected_field",
            f"Unexpected fields in {what}: {', '.join(extra)}.",
            client_id=client_id,
        )
    missing = sorted(
        name for name, field in fields.items() if field.is_required() and name not in data
    )
    if missing:
        raise ProtocolError(
            "missing_field",
            f"{what.capitalize()} needs the fields: {', '.join(missing)}.",
            client_id=client_id,
        )
    if "id" in data and client_id is None:
        raise ProtocolError(
            "invalid_field",
            f"The field 'id' must be a string of 1 to {MAX_CLIENT_ID_LENGTH} printable characters.",
        )
    try:
        return model.model_validate(data)  # type: ignore[return-value]
    except ValidationError as invalid:
        code, message = _explain(kind, invalid.errors())
        raise ProtocolError(code, message, client_id=client_id) from None


def _explain(kind: str, errors: list[ErrorDetails]) -> tuple[str, str]:
    """The protocol's code and message for the first thing wrong, in the order a reader of
    the frame would meet it: the fields in order, and within a tile, its unknown fields,
    then its missing ones, then its values."""
    what = _ARTICLE[kind]
    errors = sorted(errors, key=lambda error: _error_rank(kind, error))
    error = errors[0]
    loc = error["loc"]
    field = loc[0]
    if field == "position":
        return "invalid_field", (
            "The field 'position' must be a seat (0 First, 1 Second, 2-3 at a table) or null."
        )
    if field == "turn":
        return "invalid_field", f"The field 'turn' of {what} must be a whole number, 0 or more."
    if field == "after":
        return "invalid_field", (
            f"The field 'after' of {what} must be a turn's record hash (64 hex digits) or null."
        )
    if field == "takes":
        return _explain_take(errors)
    if len(loc) == 1:  # the tiles themselves
        if error["type"] == "too_long":
            most = MAX_PLAY_TILES if kind == "play" else MAX_RACK_TILES
            return "invalid_field", f"{what.capitalize()} names at most {most} tiles."
        return "invalid_field", f"The field 'tiles' of {what} must be a list."
    if kind == "swap":
        return "invalid_field", "Each tile of a swap must be a letter A–Z, or ? for a blank."
    return _explain_tile(int(loc[1]) + 1, [e for e in errors if e["loc"][:2] == loc[:2]])


def _error_rank(kind: str, error: ErrorDetails) -> tuple[int, int, int]:
    loc = error["loc"]
    order = list(REQUESTS[kind].model_fields)
    index = int(loc[1]) if len(loc) > 1 and isinstance(loc[1], int) else -1
    kinds = {"extra_forbidden": 0, "missing": 1}
    return order.index(str(loc[0])), index, kinds.get(error["type"], 2)


def _explain_take(errors: list[ErrorDetails]) -> tuple[str, str]:
    """The first thing wrong with a play's ``takes`` (Reword's swaps and steals)."""
    first = errors[0]
    loc = first["loc"]
    if len(loc) == 1:
        if first["type"] == "too_long":
            return "invalid_field", f"A play swaps or steals at most {MAX_TAKES} tiles."
        return "invalid_field", "The field 'takes' of a play must be a list."
    where = f"Take {int(loc[1]) + 1} of a play"
    if len(loc) == 2:  # not an object, or no valid "take"
        return "invalid_field", (
            f"{where} must be an object whose 'take' is swap or steal, with row and col."
        )
    same = [e for e in errors if e["loc"][:3] == loc[:3]]
    if first["type"] == "extra_forbidden":
        extra = sorted(str(e["loc"][3])[:40] for e in same if e["type"] == "extra_forbidden")
        return "unexpected_field", f"{where} has unexpected fields: {', '.join(extra)}."
    name = str(loc[3])
    if first["type"] == "missing":
        return "missing_field", f"{where} needs the field '{name}'."
    if name in ("row", "col"):
        return "invalid_field", f"{where}: '{name}' must be a whole number."
    if name == "letter":
        return "invalid_field", f"{where}: 'letter' must be a letter A–Z."
    return "invalid_field", f"{where}: 'blank' must be true or false."


def _explain_tile(number: int, errors: list[ErrorDetails]) -> tuple[str, str]:
    where = f"Tile {number} of a play"
    first = errors[0]
    if len(first["loc"]) == 2:  # the tile is not an object at all
        return "invalid_field", f"{where} must be an object with row, col, letter and blank."
    if first["type"] == "extra_forbidden":
        extra = sorted(str(e["loc"][2])[:40] for e in errors if e["type"] == "extra_forbidden")
        return "unexpected_field", f"{where} has unexpected fields: {', '.join(extra)}."
    name = str(first["loc"][2])
    if first["type"] == "missing":
        return "missing_field", f"{where} needs the field '{name}'."
    if name in ("row", "col"):
        return "invalid_field", f"{where}: '{name}' must be a whole number."
    if name == "letter":
        return "invalid_field", f"{where}: 'letter' must be a letter A–Z."
    return "invalid_field", f"{where}: 'blank' must be true or false."
