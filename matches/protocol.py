"""The websocket protocol of a match: client frames parsed into typed values, server frames built.

Every frame from a client is validated here before anything else looks at it (DESIGN.md,
"bad input is an answer"): the consumer either gets one of the frozen request values below or
a :class:`ProtocolError` whose code and message go back to the sender. The rules of the game
(letters, squares, words) are not checked here; the engine judges those inside the service,
in RULES.md's order, so their messages stay RULES.md's own. ``docs/PROTOCOL.md`` describes
every frame built or accepted in this module.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

#: The largest text frame accepted, in bytes of UTF-8.
MAX_FRAME_BYTES = 16 * 1024
#: A client id is stored with the answer it got (``CommitReceipt.client_id``).
MAX_CLIENT_ID_LENGTH = 64
#: A rack never holds more tiles than this, so no request may name more.
MAX_TILES = 7
#: Turn numbers and squares are small; anything beyond this is not a sane value.
MAX_INT = 2**31 - 1
#: A tile's letter is one character; a little slack lets the engine say what is wrong.
MAX_LETTER_LENGTH = 8

COMMIT_TYPES = ("play", "swap", "pass")
REQUEST_TYPES = (*COMMIT_TYPES, "sync", "take_seat")

#: Refusals that mean the client's picture of the match was out of date (RULES.md checks 1-3):
#: their acknowledgement carries a fresh snapshot so the client can redraw at once.
RESYNC_CODES = frozenset({"not_kicked_off", "match_over", "not_your_turn", "stale_turn"})


class ProtocolError(Exception):
    """A frame that is not a valid request; ``code`` and ``message`` go back to its sender."""

    def __init__(self, code: str, message: str, *, client_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.client_id = client_id


# ---------------------------------------------------------------- requests


@dataclass(frozen=True, slots=True)
class TilePlacement:
    """One tile put on a square; ``letter`` is a blank's chosen letter when ``blank``."""

    row: int
    col: int
    letter: str | None
    blank: bool = False

    def to_wire(self) -> dict[str, Any]:
        """The engine's wire shape of a placed tile."""
        return {"row": self.row, "col": self.col, "letter": self.letter, "blank": self.blank}


@dataclass(frozen=True, slots=True)
class PlayRequest:
    """Place tiles, made against turn ``turn``."""

    client_id: str
    turn: int
    tiles: tuple[TilePlacement, ...]

    def move(self) -> dict[str, Any]:
        """The move as the engine's parser takes it."""
        return {"kind": "play", "tiles": [tile.to_wire() for tile in self.tiles]}


@dataclass(frozen=True, slots=True)
class SwapRequest:
    """Return these tiles (``?`` for a blank) to the bag, made against turn ``turn``."""

    client_id: str
    turn: int
    tiles: tuple[str, ...]

    def move(self) -> dict[str, Any]:
        """The move as the engine's parser takes it."""
        return {"kind": "swap", "tiles": list(self.tiles)}


@dataclass(frozen=True, slots=True)
class PassRequest:
    """Give up the turn ``turn``."""

    client_id: str
    turn: int

    def move(self) -> dict[str, Any]:
        """The move as the engine's parser takes it."""
        return {"kind": "pass"}


@dataclass(frozen=True, slots=True)
class SyncRequest:
    """Ask for a fresh snapshot (after a gap, a reconnect, or any doubt)."""

    client_id: str | None = None


@dataclass(frozen=True, slots=True)
class TakeSeatRequest:
    """Sit down in a free seat: ``position`` 0 (First), 1 (Second) or None (either)."""

    client_id: str
    position: int | None = None


CommitRequest = PlayRequest | SwapRequest | PassRequest
Request = PlayRequest | SwapRequest | PassRequest | SyncRequest | TakeSeatRequest

# The fields each request type allows, and which of them it requires.
_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "play": (frozenset({"type", "id", "turn", "tiles"}), frozenset({"id", "turn", "tiles"})),
    "swap": (frozenset({"type", "id", "turn", "tiles"}), frozenset({"id", "turn", "tiles"})),
    "pass": (frozenset({"type", "id", "turn"}), frozenset({"id", "turn"})),
    "sync": (frozenset({"type", "id"}), frozenset()),
    "take_seat": (frozenset({"type", "id", "position"}), frozenset({"id"})),
}
_TILE_FIELDS = frozenset({"row", "col", "letter", "blank"})
_ARTICLE = {
    "play": "a play",
    "swap": "a swap",
    "pass": "a pass",
    "sync": "a sync",
    "take_seat": "a take_seat",
}


def frame_too_large(text: str) -> bool:
    """Whether a text frame exceeds :data:`MAX_FRAME_BYTES` once encoded."""
    if len(text) * 4 <= MAX_FRAME_BYTES:  # no character takes more than four bytes
        return False
    return len(text) > MAX_FRAME_BYTES or len(text.encode("utf-8", "surrogatepass")) > (
        MAX_FRAME_BYTES
    )


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _whole_number(data: dict[str, Any], name: str, what: str, client_id: str | None) -> int:
    value = data[name]
    if not _is_int(value) or not 0 <= value <= MAX_INT:
        raise ProtocolError(
            "invalid_field",
            f"The field '{name}' of {what} must be a whole number, 0 or more.",
            client_id=client_id,
        )
    return value


def _client_id(data: dict[str, Any]) -> str | None:
    """The frame's id if it is a usable one, so even an error can name it."""
    value = data.get("id")
    if (
        isinstance(value, str)
        and 1 <= len(value) <= MAX_CLIENT_ID_LENGTH
        and value.isprintable()  # no control characters: PostgreSQL text refuses NUL
    ):
        return value
    return None


def _tile(data: object, index: int, client_id: str | None) -> TilePlacement:
    where = f"Tile {index + 1} of a play"
    if not isinstance(data, dict):
        raise ProtocolError(
            "invalid_field",
            f"{where} must be an object with row, col, letter and blank.",
            client_id=client_id,
        )
    extra = sorted(str(key) for key in data if key not in _TILE_FIELDS)
    if extra:
        raise ProtocolError(
            "unexpected_field",
            f"{where} has unexpected fields: {', '.join(extra)}.",
            client_id=client_id,
        )
    for name in ("row", "col"):
        if name not in data:
            raise ProtocolError(
                "missing_field", f"{where} needs the field '{name}'.", client_id=client_id
            )
        value = data[name]
        if not _is_int(value) or abs(value) > MAX_INT:
            raise ProtocolError(
                "invalid_field", f"{where}: '{name}' must be a whole number.", client_id=client_id
            )
    letter = data.get("letter")
    if letter is not None and (not isinstance(letter, str) or len(letter) > MAX_LETTER_LENGTH):
        raise ProtocolError(
            "invalid_field", f"{where}: 'letter' must be a letter A–Z.", client_id=client_id
        )
    blank = data.get("blank", False)
    if not isinstance(blank, bool):
        raise ProtocolError(
            "invalid_field", f"{where}: 'blank' must be true or false.", client_id=client_id
        )
    return TilePlacement(row=data["row"], col=data["col"], letter=letter, blank=blank)


def _tile_list(data: dict[str, Any], what: str, client_id: str | None) -> list[Any]:
    tiles = data["tiles"]
    if not isinstance(tiles, list):
        raise ProtocolError(
            "invalid_field", f"The field 'tiles' of {what} must be a list.", client_id=client_id
        )
    if len(tiles) > MAX_TILES:
        raise ProtocolError(
            "invalid_field",
            f"{what.capitalize()} names at most {MAX_TILES} tiles.",
            client_id=client_id,
        )
    return tiles


def parse_request(text: str) -> Request:
    """Turn one text frame into a request value, or raise :class:`ProtocolError`."""
    if frame_too_large(text):
        raise ProtocolError("too_large", f"A message may be at most {MAX_FRAME_BYTES // 1024} KiB.")
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_json", "That message is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ProtocolError("not_an_object", "A message must be a JSON object with a type.")
    client_id = _client_id(data)
    kind = data.get("type")
    if kind not in _FIELDS:
        known = ", ".join(REQUEST_TYPES)
        shown = kind if isinstance(kind, str) and len(kind) <= 40 else None
        message = (
            f"Unknown message type '{shown}'. Known types: {known}."
            if shown is not None
            else f"A message needs a type, one of: {known}."
        )
        raise ProtocolError("unknown_type", message, client_id=client_id)
    allowed, required = _FIELDS[kind]
    what = _ARTICLE[kind]
    extra = sorted(str(key)[:40] for key in data if key not in allowed)
    if extra:
        raise ProtocolError(
            "unexpected_field",
            f"Unexpected fields in {what}: {', '.join(extra)}.",
            client_id=client_id,
        )
    missing = sorted(required - data.keys())
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
    if kind == "sync":
        return SyncRequest(client_id=client_id)
    assert client_id is not None  # required above
    if kind == "take_seat":
        position = data.get("position")
        if position is not None and (not _is_int(position) or position not in (0, 1)):
            raise ProtocolError(
                "invalid_field",
                "The field 'position' must be 0 (First), 1 (Second) or null.",
                client_id=client_id,
            )
        return TakeSeatRequest(client_id=client_id, position=position)
    turn = _whole_number(data, "turn", what, client_id)
    if kind == "pass":
        return PassRequest(client_id=client_id, turn=turn)
    tiles = _tile_list(data, what, client_id)
    if kind == "swap":
        if not all(isinstance(tile, str) and len(tile) <= MAX_LETTER_LENGTH for tile in tiles):
            raise ProtocolError(
                "invalid_field",
                "Each tile of a swap must be a letter A–Z, or ? for a blank.",
                client_id=client_id,
            )
        return SwapRequest(client_id=client_id, turn=turn, tiles=tuple(tiles))
    placed = tuple(_tile(tile, index, client_id) for index, tile in enumerate(tiles))
    return PlayRequest(client_id=client_id, turn=turn, tiles=placed)


def parse_frame(text: str | None, data: bytes | None) -> Request:
    """A websocket frame (text or binary) as a request; binary frames are refused."""
    if text is None:
        size = len(data or b"")
        if size > MAX_FRAME_BYTES:
            raise ProtocolError(
                "too_large", f"A message may be at most {MAX_FRAME_BYTES // 1024} KiB."
            )
        raise ProtocolError("binary_frame", "Send messages as JSON text, not binary.")
    return parse_request(text)


# ---------------------------------------------------------------- server frames


def _with_id(frame: dict[str, Any], client_id: str | None) -> dict[str, Any]:
    if client_id is not None:
        frame["id"] = client_id
    return frame


def snapshot_frame(
    snapshot: dict[str, Any], *, reason: str, client_id: str | None = None
) -> dict[str, Any]:
    """The whole match as this viewer may see it (``reason``: connect, sync, seated)."""
    return _with_id({"type": "snapshot", "reason": reason, "snapshot": snapshot}, client_id)


def error_frame(code: str, message: str, *, client_id: str | None = None) -> dict[str, Any]:
    """A request that never reached a service: bad frame, not signed in, too many messages."""
    return _with_id({"type": "error", "code": code, "message": message}, client_id)


def ack_frame(
    client_id: str,
    *,
    accepted: bool,
    replayed: bool,
    answer: dict[str, Any],
    snapshot: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The answer to a request that reached its service, naming the client's id."""
    frame: dict[str, Any] = {
        "type": "ack",
        "id": client_id,
        "accepted": accepted,
        "replayed": replayed,
        **answer,
    }
    if snapshot is not None:
        frame["snapshot"] = snapshot
    return frame


def event_frame(kind: str, match_id: int, data: dict[str, Any]) -> dict[str, Any]:
    """News of the match for everyone watching it (turn, opened, ended, seat_taken...)."""
    return {"type": kind, "match_id": match_id, "data": data}


def rack_frame(match_id: int, data: dict[str, Any]) -> dict[str, Any]:
    """A seated player's own rack, sent only to that player's connections."""
    return {"type": "rack", "match_id": match_id, "data": data}


def encode(frame: dict[str, Any]) -> str:
    """Frames go out as compact JSON; a non-finite number would be a bug, so it raises."""
    return json.dumps(frame, separators=(",", ":"), allow_nan=False)


__all__ = [
    "COMMIT_TYPES",
    "MAX_FRAME_BYTES",
    "RESYNC_CODES",
    "CommitRequest",
    "PassRequest",
    "PlayRequest",
    "ProtocolError",
    "Request",
    "SwapRequest",
    "SyncRequest",
    "TakeSeatRequest",
    "TilePlacement",
    "ack_frame",
    "encode",
    "error_frame",
    "event_frame",
    "parse_frame",
    "parse_request",
    "rack_frame",
    "snapshot_frame",
]
