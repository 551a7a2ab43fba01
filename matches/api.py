"""The HTTP JSON API and the GCG download. Thin: parse, check access, ask visibility/services.

Access is the pages' (``visibility.can_watch``, ``?key=`` for members-only matches); a match
the caller may not watch is a 404, as on the pages, so its existence is not revealed. Every
refusal is a JSON ``{"error": ..., "code": ...}`` with a 4xx status; no input makes a 500.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.request import RawPostDataException

from matches import services, visibility
from matches.models import Match

MAX_LIMIT = 200
DEFAULT_LIMIT = 50
MAX_BODY = 4096

View = Callable[..., HttpResponse]


def _error(status: int, code: str, message: str, **extra: Any) -> JsonResponse:
    return JsonResponse({"error": message, "code": code, **extra}, status=status)


def _methods(*allowed: str) -> Callable[[View], View]:
    """Like ``require_http_methods``, but the refusal is JSON and names the allowed methods."""

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in allowed:
                response = _error(
                    405, "method_not_allowed", f"Use {' or '.join(allowed)} here.", allowed=allowed
                )
                response["Allow"] = ", ".join(allowed)
                return response
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


def _key(request: HttpRequest) -> str | None:
    return request.GET.get("key") or None


def _watchable(request: HttpRequest, match_id: int) -> tuple[Match, visibility.Viewer] | None:
    """The match and the caller as its viewer, or None when they may not watch it."""
    match = (
        Match.objects.select_related("tournament")
        .prefetch_related("seats__member")
        .filter(pk=match_id)
        .first()
    )
    if match is None:
        return None
    viewer = visibility.viewer_for(match, request.user, _key(request))
    return (match, viewer) if visibility.can_watch(match, viewer) else None


def _current(request: HttpRequest, match_id: int) -> tuple[Match, visibility.Viewer] | None:
    """Like :func:`_watchable`, after applying any deadline that has passed (as the page does)."""
    found = _watchable(request, match_id)
    if found is None or found[0].is_over:
        return found
    services.match_apply_deadlines(match_id=match_id)
    return _watchable(request, match_id)


def _not_found() -> JsonResponse:
    return _error(404, "not_found", "No such match.")


def _int_param(request: HttpRequest, name: str, default: int, low: int, high: int) -> int:
    raw = request.GET.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number from {low} to {high}.") from None
    if not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}.")
    return value


# ---------------------------------------------------------------- views


@_methods("GET")
def schema(request: HttpRequest) -> JsonResponse:
    """The OpenAPI 3 description of this API."""
    return JsonResponse(openapi_schema())


@_methods("GET")
def match_list(request: HttpRequest) -> JsonResponse:
    """Public matches, and every match for a signed-in member; newest first, in pages."""
    status = request.GET.get("status") or None
    if status is not None and status not in Match.Status.values:
        return _error(400, "bad_status", f"status must be one of {', '.join(Match.Status.values)}.")
    try:
        limit = _int_param(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        offset = _int_param(request, "offset", 0, 0, 2**31 - 1)
    except ValueError as error:
        return _error(400, "bad_page", str(error))
    matches = visibility.visible_matches(request.user)
    if status is not None:
        matches = matches.filter(status=status)
    count = matches.count()
    page = matches.prefetch_related("seats__member").order_by("-id")[offset : offset + limit]
    return JsonResponse(
        {
            "count": count,
            "limit": limit,
            "offset": offset,
            "results": [visibility.api_match_row(match) for match in page],
        }
    )


@_methods("GET")
def match_state(request: HttpRequest, match_id: int) -> JsonResponse:
    """The match as the caller may see it now (their own rack only), with the bag's proof."""
    found = _current(request, match_id)
    if found is None:
        return _not_found()
    return JsonResponse(visibility.api_match_state(*found))


@_methods("GET")
def match_replay(request: HttpRequest, match_id: int) -> JsonResponse:
    """The board and every public fact after ``turn`` turns, the caller's rack as it was."""
    found = _current(request, match_id)
    if found is None:
        return _not_found()
    match, viewer = found
    count = match.turns.count()
    raw = request.GET.get("turn")
    message = f"turn must be a whole number from 0 to {count} (the turns played so far)."
    if raw is None or raw == "":
        return _error(400, "bad_turn", f"Name the turn: {message}", turn_count=count)
    try:
        turn = int(raw)
    except ValueError:
        return _error(400, "bad_turn", message, turn_count=count)
    if not 0 <= turn <= count:
        return _error(400, "bad_turn", message, turn_count=count)
    return JsonResponse(visibility.replay_snapshot(match, viewer, turn))


@_methods("POST")
def match_contribute(request: HttpRequest, match_id: int) -> JsonResponse:
    """A seated player's random value for the bag, before the deal (CSRF-checked POST)."""
    if _watchable(request, match_id) is None:
        return _not_found()
    try:
        raw = request.body  # a form body already read by the CSRF check is not JSON either
    except RawPostDataException:
        raw = b""
    if not raw or len(raw) > MAX_BODY:
        return _error(400, "bad_body", 'Send a JSON object with a hex string: {"value": "..."}.')
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("value"), str):
        return _error(400, "bad_body", 'Send a JSON object with a hex string: {"value": "..."}.')
    try:
        seat = services.match_contribute_entropy(
            match_id=match_id, member=request.user, value_hex=body["value"]
        )
    except services.NotAllowed as error:
        return _error(403, "not_allowed", str(error))
    except services.ServiceError as error:
        return _error(400, "refused", str(error))
    return JsonResponse({"position": seat.position, "value": seat.contribution})


@_methods("GET")
def match_export_gcg(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match as a GCG file for the caller: their own racks only, as during play."""
    found = _watchable(request, match_id)
    if found is None:
        raise Http404("No such match.")
    text = visibility.gcg_for(*found)
    if text is None:
        raise Http404("This match has no moves to export yet.")
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="wordduel-match-{match_id}.gcg"'
    return response


# ---------------------------------------------------------------- OpenAPI


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(description: str, name: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


def _nullable(kind: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "nullable": True, **extra}


_STRING = {"type": "string"}
_INT = {"type": "integer"}
_WHEN = _nullable("string", format="date-time")
_MATCH_ID = {
    "name": "match_id",
    "in": "path",
    "required": True,
    "schema": {"type": "integer", "minimum": 1},
}
_KEY = {
    "name": "key",
    "in": "query",
    "required": False,
    "description": "The viewing key of a members-only match (from its share link).",
    "schema": _STRING,
}
_NOT_FOUND = _json("No such match, or the caller may not watch it.", "Error")

_SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error", "code"],
        "properties": {"error": _STRING, "code": _STRING},
    },
    "SeatRow": {
        "type": "object",
        "required": ["position", "label", "member_id", "name", "score"],
        "properties": {
            "position": {"type": "integer", "enum": [0, 1]},
            "label": _STRING,
            "member_id": _nullable("integer"),
            "name": _nullable("string"),
            "score": _INT,
        },
    },
    "Seat": {
        "allOf": [
            _ref("SeatRow"),
            {
                "type": "object",
                "required": ["rack_count"],
                "properties": {"rack_count": {"type": "integer", "minimum": 0}},
            },
        ]
    },
    "Tile": {
        "type": "object",
        "required": ["row", "col", "letter", "blank"],
        "properties": {
            "row": _INT,
            "col": _INT,
            "letter": {"type": "string", "pattern": "^[A-Z]$"},
            "blank": {"type": "boolean"},
        },
    },
    "Move": {
        "type": "object",
        "description": "One turn as everyone sees it; a swap is only a count.",
        "required": ["number", "position", "kind", "tiles", "swap_count", "words", "score"],
        "properties": {
            "number": _INT,
            "position": _INT,
            "kind": {"type": "string", "enum": ["play", "swap", "pass"]},
            "tiles": {"type": "array", "items": _ref("Tile")},
            "swap_count": _INT,
            "words": {"type": "array", "items": {"type": "object"}},
            "score": _INT,
            "totals": {"type": "array", "items": _INT, "minItems": 2, "maxItems": 2},
            "bag_count": _INT,
            "at": _WHEN,
        },
    },
    "MatchRow": {
        "type": "object",
        "required": ["id", "name", "status", "visibility", "turn_number", "seats"],
        "properties": {
            "id": _INT,
            "name": _STRING,
            "status": {"type": "string", "enum": list(Match.Status.values)},
            "visibility": {"type": "string", "enum": list(Match.Visibility.values)},
            "ruleset": _STRING,
            "kickoff_at": _WHEN,
            "finished_at": _WHEN,
            "tournament_id": _nullable("integer"),
            "round_number": _nullable("integer"),
            "result": _STRING,
            "end_reason": _STRING,
            "turn_number": _INT,
            "to_move": _nullable("integer"),
            "seats": {"type": "array", "items": _ref("SeatRow")},
        },
    },
    "MatchList": {
        "type": "object",
        "required": ["count", "limit", "offset", "results"],
        "properties": {
            "count": _INT,
            "limit": _INT,
            "offset": _INT,
            "results": {"type": "array", "items": _ref("MatchRow")},
        },
    },
    "BagProof": {
        "type": "object",
        "required": ["commitment", "seed", "contributions"],
        "properties": {
            "commitment": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "seed": _nullable(
                "string",
                pattern="^[0-9a-f]{64}$",
                description="Null until the match is over.",
            ),
            "contributions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["position", "value"],
                    "properties": {"position": _INT, "value": _nullable("string")},
                },
            },
        },
    },
    "Position": {
        "type": "object",
        "description": "The public facts of a position, and the caller's own rack.",
        "required": [
            "match_id",
            "status",
            "turn_number",
            "to_move",
            "bag_count",
            "board",
            "moves",
            "seats",
            "your_seat",
            "rack",
            "bag_commitment",
            "bag_seed",
        ],
        "properties": {
            "match_id": _INT,
            "name": _STRING,
            "ruleset": _STRING,
            "lexicon": _STRING,
            "board_size": _INT,
            "visibility": _STRING,
            "status": {"type": "string", "enum": list(Match.Status.values)},
            "result": _STRING,
            "end_reason": _STRING,
            "turn_number": _INT,
            "to_move": _nullable("integer"),
            "bag_count": _INT,
            "board": {
                "type": "array",
                "description": "One string a row: '.' empty, capitals tiles, lower case blanks.",
                "items": _STRING,
            },
            "moves": {"type": "array", "items": _ref("Move")},
            "seats": {"type": "array", "items": _ref("Seat")},
            "your_seat": _nullable("integer"),
            "rack": _nullable(
                "array",
                items={"type": "string"},
                description="The caller's own rack; null for anyone not seated.",
            ),
            "bag_commitment": _STRING,
            "bag_seed": _nullable("string", description="Null until the match is over."),
        },
    },
    "MatchState": {
        "allOf": [
            _ref("Position"),
            {
                "type": "object",
                "required": ["bag", "can_share"],
                "properties": {
                    "bag": _ref("BagProof"),
                    "kickoff_at": _WHEN,
                    "no_show_at": _WHEN,
                    "turn_deadline_at": _WHEN,
                    "can_share": {"type": "boolean"},
                    "viewing_key": _nullable(
                        "string", description="Only for the players and the organiser."
                    ),
                },
            },
        ]
    },
    "Replay": {
        "allOf": [
            _ref("Position"),
            {
                "type": "object",
                "required": ["turn", "turn_count", "final"],
                "properties": {
                    "turn": _INT,
                    "turn_count": _INT,
                    "final": {"type": "boolean"},
                },
            },
        ]
    },
    "Contribution": {
        "type": "object",
        "required": ["value"],
        "properties": {
            "value": {
                "type": "string",
                "pattern": "^[0-9a-fA-F]{32,64}$",
                "description": "16 to 32 random bytes as hex (an even number of digits).",
            }
        },
    },
    "Contributed": {
        "type": "object",
        "required": ["position", "value"],
        "properties": {"position": _INT, "value": _STRING},
    },
}


def openapi_schema() -> dict[str, Any]:
    """The OpenAPI 3.0 document served at ``/api/schema/`` (hand-written, checked in tests)."""
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Word Duel API",
            "version": "1",
            "description": (
                "Read matches as the pages show them: the same access rules, a viewer's own "
                "rack only, the bag's seed only once a match is over. Errors are JSON "
                "objects with `error` (a message for people) and `code`."
            ),
        },
        "servers": [{"url": "/api"}],
        "components": {
            "schemas": _SCHEMAS,
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": "sessionid"},
            },
        },
        "paths": {
            "/matches/": {
                "get": {
                    "summary": "Matches the caller may find: public ones, all for members",
                    "operationId": "listMatches",
                    "parameters": [
                        {
                            "name": "status",
                            "in": "query",
                            "schema": {"type": "string", "enum": list(Match.Status.values)},
                        },
                        {
                            "name": "limit",
                            "in": "query",
                            "schema": {
                                "type": "integer",
                                "minimum": 1,
                                "maximum": MAX_LIMIT,
                                "default": DEFAULT_LIMIT,
                            },
                        },
                        {
                            "name": "offset",
                            "in": "query",
                            "schema": {"type": "integer", "minimum": 0, "default": 0},
                        },
                    ],
                    "responses": {
                        "200": _json("A page of matches, newest first.", "MatchList"),
                        "400": _json("A bad status, limit or offset.", "Error"),
                    },
                }
            },
            "/matches/{match_id}/": {
                "get": {
                    "summary": "A match as the caller may see it now",
                    "operationId": "getMatch",
                    "parameters": [_MATCH_ID, _KEY],
                    "responses": {
                        "200": _json("The caller's snapshot and the bag's proof.", "MatchState"),
                        "404": _NOT_FOUND,
                    },
                }
            },
            "/matches/{match_id}/replay": {
                "get": {
                    "summary": "The position after `turn` turns (0: the opening position)",
                    "operationId": "replayMatch",
                    "parameters": [
                        _MATCH_ID,
                        _KEY,
                        {
                            "name": "turn",
                            "in": "query",
                            "required": True,
                            "schema": {"type": "integer", "minimum": 0},
                        },
                    ],
                    "responses": {
                        "200": _json("The board, moves, scores and the caller's rack.", "Replay"),
                        "400": _json("turn missing, not a number, or not yet played.", "Error"),
                        "404": _NOT_FOUND,
                    },
                }
            },
            "/matches/{match_id}/contribute": {
                "post": {
                    "summary": "Add a seated player's random value to the bag before the deal",
                    "description": (
                        "A normal Django POST: the session cookie and the CSRF token "
                        "(`X-CSRFToken` header) of a signed-in member. Once per seat, only "
                        "while the match is scheduled."
                    ),
                    "operationId": "contributeEntropy",
                    "security": [{"session": []}],
                    "parameters": [_MATCH_ID],
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _ref("Contribution")}},
                    },
                    "responses": {
                        "200": _json("The value now part of the seat's record.", "Contributed"),
                        "400": _json("A bad value, already contributed, or dealt.", "Error"),
                        "403": {"description": "Not signed in, not seated, or no CSRF token."},
                        "404": _NOT_FOUND,
                    },
                }
            },
            "/matches/{match_id}/export.gcg": {
                "get": {
                    "summary": "The match as a GCG record for the caller",
                    "description": "Also at `/matches/{match_id}/export.gcg` beside the pages.",
                    "operationId": "exportGcg",
                    "parameters": [_MATCH_ID, _KEY],
                    "responses": {
                        "200": {
                            "description": "GCG text; rack letters only for the caller's seat.",
                            "content": {"text/plain": {"schema": _STRING}},
                        },
                        "404": {"description": "No such match, not watchable, or not dealt."},
                    },
                }
            },
            "/schema/": {
                "get": {
                    "summary": "This document",
                    "operationId": "getSchema",
                    "responses": {
                        "200": {
                            "description": "OpenAPI 3.0",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        }
                    },
                }
            },
        },
    }
