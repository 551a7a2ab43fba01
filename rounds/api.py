"""Word Skill rounds over HTTP (django-ninja), mounted at ``/api/rounds/``: thin operations
over ``rounds.services`` and ``rounds.selectors``, in the manner of ``matches.api`` and
``challenges.api``. Changes are normal Django POSTs (session cookie and CSRF token); refusals
are the API's ``ApiError`` with the service's code and words (``matches.api`` maps every
``ServiceError``); a body that is not the operation's shape is a 400 ``bad_body``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, TypeVar

from django.http import HttpRequest
from django.http.request import RawPostDataException
from ninja import Router, Status
from ninja.utils import check_csrf
from pydantic import BaseModel
from pydantic import ValidationError as InvalidBody

from engine import Move, Pass, Play
from matches.api import ApiRefusal, SessionCookie
from matches.schemas import ApiError
from rounds import selectors, services
from rounds.schemas import (
    GrammaAnaIn,
    RoundsAnswer,
    RoundsOpenIn,
    RoundsView,
    StartRoundIn,
    SubmitIn,
)

router = Router(tags=["rounds"])

MAX_BODY = 4096
REFUSALS: dict[int | str, Any] = {400: ApiError, 403: ApiError, 404: ApiError, 409: ApiError}
POST_DOC = (
    "A normal Django POST: the session cookie and the CSRF token (`X-CSRFToken` header) of a "
    "signed-in approved member."
)
B = TypeVar("B", bound=BaseModel)


def _body(request: HttpRequest, model: type[B], example: str) -> B:
    """The request's JSON body as ``model`` (a clear 400 for anything else)."""
    try:
        raw = request.body
    except RawPostDataException:
        raw = b""
    message = f"Send a JSON object such as {example}."
    if not raw or len(raw) > MAX_BODY:
        raise ApiRefusal(400, "bad_body", message)
    try:
        return model.model_validate_json(raw, strict=False)
    except InvalidBody:
        raise ApiRefusal(400, "bad_body", message) from None


def _post(body: type[BaseModel] | None = None, **extra: Any) -> dict[str, Any]:
    openapi: dict[str, Any] = {"description": POST_DOC}
    if body is not None:
        openapi["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": body.model_json_schema()}},
        }
    return {"auth": SessionCookie(), "openapi_extra": openapi, **extra}


def _answer(request: HttpRequest, code: str, match_id: int) -> RoundsAnswer:
    return RoundsAnswer(
        code=code,
        state=selectors.rounds_state(user=request.user, match_id=match_id),
    )


@router.post(
    "/", response={201: RoundsAnswer, **REFUSALS}, url_name="rounds-open", **_post(RoundsOpenIn)
)
def rounds_open(request: HttpRequest) -> Status[RoundsAnswer]:
    """Open a rounds match: you are its host and first player (Gramma Ana its second, if
    asked); members join until you start it."""
    refused = check_csrf(request)
    if refused is not None:
        return refused  # type: ignore[return-value]
    body = _body(request, RoundsOpenIn, '{"name": "Friday duplicate", "turn_seconds": 180}')
    match = services.rounds_open(
        member=request.user,
        name=body.name,
        turn_time=timedelta(seconds=body.turn_seconds),
        round_time=timedelta(seconds=body.round_seconds),
        gramma_ana=body.gramma_ana,
    )
    return Status(201, _answer(request, "opened", match.pk))


@router.post(
    "/gramma-ana", response={201: RoundsAnswer, **REFUSALS}, url_name="rounds-gramma-ana",
    **_post(GrammaAnaIn),
)  # fmt: skip
def rounds_gramma_ana(request: HttpRequest) -> Status[RoundsAnswer]:
    """ "Play Gramma Ana": a one-to-one game against her, rated with Word Skill's Elo, started
    at once (round 1 is ready)."""
    refused = check_csrf(request)
    if refused is not None:
        return refused  # type: ignore[return-value]
    body = _body(request, GrammaAnaIn, '{"turn_seconds": 180}')
    match = services.rounds_play_gramma_ana(
        member=request.user, turn_time=timedelta(seconds=body.turn_seconds)
    )
    return Status(201, _answer(request, "started", match.pk))


@router.get("/{int:match_id}", response={200: RoundsView, 404: ApiError}, url_name="rounds-state")
def rounds_state(request: HttpRequest, match_id: int) -> RoundsView:
    """The match as the caller may see it: their own tray once they started the round, no
    other player's play before the round closes, the bag's seed once it is over."""
    services.rounds_apply_due(match_id=match_id)
    return selectors.rounds_state(user=request.user, match_id=match_id)


@router.post(
    "/{int:match_id}/join", response={200: RoundsAnswer, **REFUSALS}, url_name="rounds-join",
    **_post(),
)  # fmt: skip
def rounds_join(request: HttpRequest, match_id: int) -> RoundsAnswer:
    """Join an open match as its next player."""
    refused = check_csrf(request)
    if refused is not None:
        return refused  # type: ignore[return-value]
    services.rounds_join(match_id=match_id, member=request.user)
    return _answer(request, "joined", match_id)


@router.post(
    "/{int:match_id}/start", response={200: RoundsAnswer, **REFUSALS}, url_name="rounds-start",
    **_post(),
)  # fmt: skip
def rounds_start(request: HttpRequest, match_id: int) -> RoundsAnswer:
    """The host starts the game (at least two players): round 1 is dealt."""
    refused = check_csrf(request)
    if refused is not None:
        return refused  # type: ignore[return-value]
    services.rounds_start(match_id=match_id, member=request.user)
    return _answer(request, "started", match_id)


@router.post(
    "/{int:match_id}/start-round", response={200: RoundsAnswer, **REFUSALS},
    url_name="rounds-start-round", **_post(StartRoundIn),
)  # fmt: skip
def rounds_start_round(request: HttpRequest, match_id: int) -> RoundsAnswer:
    """Start the open round: your tray shows (``your_round``) and your timer runs."""
    refused = check_csrf(request)
    if refused is not None:
        return refused  # type: ignore[return-value]
    body = _body(request, StartRoundIn, '{"round": 1}')
    services.rounds_start_round(match_id=match_id, member=request.user, round_number=body.round)
    return _answer(request, "round_started", match_id)


def move_of_body(body: SubmitIn) -> Move:
    """The engine's move of a submit body: a pass, or a play of its tiles."""
    if body.pass_:
        if body.tiles:
            raise ApiRefusal(400, "bad_body", "Send tiles to play, or pass: not both.")
        return Pass()
    if not body.tiles:
        raise ApiRefusal(400, "bad_body", 'Send the tiles to play, or {"pass": true}.')
    return Play(tuple(tile.placed() for tile in body.tiles))


@router.post(
    "/{int:match_id}/submit", response={200: RoundsAnswer, **REFUSALS}, url_name="rounds-submit",
    **_post(SubmitIn),
)  # fmt: skip
def rounds_submit(request: HttpRequest, match_id: int) -> RoundsAnswer:
    """Play or pass in the open round, before your own time runs out."""
    refused = check_csrf(request)
    if refused is not None:
        return refused  # type: ignore[return-value]
    body = _body(request, SubmitIn, '{"round": 1, "tiles": [{"row": 7, "col": 7, "letter": "A"}]}')
    services.rounds_submit(
        match_id=match_id, member=request.user, round_number=body.round, move=move_of_body(body)
    )
    return _answer(request, "submitted", match_id)
