"""The HTTP JSON API (django-ninja): thin operations over ``visibility`` and ``services``.

Every answer is a shape of :mod:`matches.schemas`, so the OpenAPI document at ``/api/schema/``
(and the interactive docs at ``/api/docs``) is generated from the same models the server
sends. Access is the pages' and the socket's (``visibility.access_match``): a match the caller
may not watch is a 404, so its existence is not revealed. Every refusal is an
:class:`~matches.schemas.ApiError` with a 4xx status; no input makes a 500
(``wordduel.middleware.ApiErrorsAsJson`` answers even Django's own refusals in JSON).
"""

from __future__ import annotations

from typing import Annotated, Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.http.request import RawPostDataException
from ninja import NinjaAPI, Query
from ninja.errors import ValidationError
from ninja.security import APIKeyCookie
from ninja.utils import check_csrf
from pydantic import ValidationError as InvalidBody

from accounts import guests
from matches import services, visibility
from matches.models import Match
from matches.schemas import (
    ApiError,
    Contributed,
    ContributionIn,
    MatchList,
    MatchState,
    MovesReview,
    Replay,
    Status,
)

MAX_LIMIT = 200
DEFAULT_LIMIT = 50
MAX_BODY = 4096
BAD_BODY = 'Send a JSON object with a hex string: {"value": "..."}.'

api = NinjaAPI(
    title="Word Duel API",
    version="1",
    description=(
        "Read matches as the pages show them: the same access rules, a viewer's own rack "
        "only, the bag's seed only once a match is over. Errors are JSON objects with "
        "`error` (a message for people) and `code` (for programs)."
    ),
    urls_namespace="api",
    openapi_url="/schema/",
    docs_url="/docs",
)


class SessionCookie(APIKeyCookie):
    """A signed-in member's session cookie, with the CSRF token of a Django POST. Declared so
    the schema says so; the operation checks both itself, so that every refusal keeps its own
    words (a CSRF failure, "Sign in to ...", "Only a player seated ...")."""

    param_name = "sessionid"

    def __init__(self) -> None:
        super().__init__(csrf=False)

    def authenticate(self, request: HttpRequest, key: str | None) -> bool:
        return True  # (the operation decides: anonymous callers get its own refusal)


class ApiRefusal(Exception):
    """An answer other than 200, as the API's error shape."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.error = ApiError(error=message, code=code, **extra)


def refusal_response(request: HttpRequest, status: int, error: ApiError) -> HttpResponse:
    return api.create_response(request, error.model_dump(), status=status)


@api.exception_handler(ApiRefusal)
def _refused(request: HttpRequest, refusal: ApiRefusal) -> HttpResponse:
    return refusal_response(request, refusal.status, refusal.error)


@api.exception_handler(services.ServiceError)
def _service_refused(request: HttpRequest, error: services.ServiceError) -> HttpResponse:
    return refusal_response(request, error.status, ApiError(error=error.message, code=error.code))


@api.exception_handler(RequestDataTooBig)
def _too_large(request: HttpRequest, error: RequestDataTooBig) -> HttpResponse:
    return refusal_response(
        request, 400, ApiError(error="That request is too large.", code="too_large")
    )


@api.exception_handler(visibility.MatchNotFound)
def _not_found(request: HttpRequest, error: visibility.MatchNotFound) -> HttpResponse:
    return refusal_response(request, 404, ApiError(error="No such match.", code="not_found"))


def _turn_message(count: int) -> str:
    return f"turn must be a whole number from 0 to {count} (the turns played so far)."


@api.exception_handler(ValidationError)
def _bad_parameter(request: HttpRequest, invalid: ValidationError) -> HttpResponse:
    """A query parameter that is missing or not of its declared type: a clear 400."""
    names = {str(error["loc"][-1]) for error in invalid.errors if error.get("loc")}
    if "turn" in names:
        match_id = int(request.resolver_match.kwargs["match_id"])  # type: ignore[union-attr]
        try:
            count = len(_access(request, match_id).turns)
        except visibility.MatchNotFound:
            return refusal_response(
                request, 404, ApiError(error="No such match.", code="not_found")
            )
        missing = request.GET.get("turn") in (None, "")
        message = f"Name the turn: {_turn_message(count)}" if missing else _turn_message(count)
        error = ApiError(error=message, code="bad_turn", turn_count=count)
    elif "status" in names:
        error = ApiError(
            error=f"status must be one of {', '.join(Match.Status.values)}.", code="bad_status"
        )
    else:
        name = "limit" if "limit" in names else "offset"
        top = MAX_LIMIT if name == "limit" else 2**31 - 1
        low = 1 if name == "limit" else 0
        error = ApiError(
            error=f"{name} must be a whole number from {low} to {top}.", code="bad_page"
        )
    return refusal_response(request, 400, error)


def _access(request: HttpRequest, match_id: int) -> visibility.MatchAccess:
    """The match as the caller may read it: a browser's guest reads its own game (its
    replay steps, its review) as its page does (``accounts.guests``)."""
    return services.look_at_match(
        user=guests.viewer(request),
        match_id=match_id,
        key=visibility.viewing_key(request.GET.get("key")),
    )


KeyParam = Annotated[
    str | None,
    Query(description="The viewing key of a members-only match (from its share link)."),
]
NOT_FOUND = {404: ApiError}


@api.get("/matches/", response={200: MatchList, 400: ApiError}, url_name="matches")
def match_list(
    request: HttpRequest,
    status: Status | None = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
    offset: Annotated[int, Query(ge=0, le=2**31 - 1)] = 0,
) -> MatchList:
    """Matches the caller may find: public ones, and every one for a member; newest first."""
    matches = visibility.visible_matches(request.user)
    if status is not None:
        matches = matches.filter(status=status)
    count = matches.count()
    page = matches.prefetch_related("seats__member").order_by("-id")[offset : offset + limit]
    return MatchList(
        count=count,
        limit=limit,
        offset=offset,
        results=[visibility.api_match_row(match) for match in page],
    )


@api.get("/matches/{int:match_id}/", response={200: MatchState, **NOT_FOUND}, url_name="match")
def match_state(request: HttpRequest, match_id: int, key: KeyParam = None) -> MatchState:
    """The match as the caller may see it now (their own rack only), with the bag's proof."""
    return visibility.api_match_state(_access(request, match_id))


@api.get(
    "/matches/{int:match_id}/replay",
    response={200: Replay, 400: ApiError, **NOT_FOUND},
    url_name="match-replay",
)
def match_replay(
    request: HttpRequest,
    match_id: int,
    turn: Annotated[int, Query(ge=0, description="0 is the opening position.")],
    key: KeyParam = None,
) -> Replay:
    """The board and every public fact after ``turn`` turns, the caller's rack as it was."""
    access = _access(request, match_id)
    try:
        return visibility.replay(access, turn)
    except visibility.TurnNotPlayed:
        count = len(access.turns)
        raise ApiRefusal(400, "bad_turn", _turn_message(count), turn_count=count) from None


NOT_A_PLAYER = "Only a player of this match has a review of their moves."
NOT_OVER = "The review of your moves comes once the match is over."


@api.get(
    "/matches/{int:match_id}/review",
    response={200: MovesReview, 403: ApiError, 409: ApiError, **NOT_FOUND},
    url_name="match-review",
)
def match_review(request: HttpRequest, match_id: int, key: KeyParam = None) -> MovesReview:
    """After the game, the caller's own moves, each beside the highest-scoring play the
    engine finds from the same rack, with the points lost and their total (the points left
    on the board). Only for a player of the match (403 for anyone else), only once it is
    over (409 before)."""
    access = _access(request, match_id)
    if access.viewer.seat is None:
        raise ApiRefusal(403, "not_a_player", NOT_A_PLAYER)
    if not access.match.is_over:
        raise ApiRefusal(409, "not_over", NOT_OVER)
    review = visibility.moves_review(access)
    if review is None:  # no finder of best plays installed
        raise ApiRefusal(404, "not_found", "There is no review of this match.")
    return review


@api.post(
    "/matches/{int:match_id}/contribute",
    response={200: Contributed, 400: ApiError, 403: ApiError, **NOT_FOUND},
    url_name="match-contribute",
    auth=SessionCookie(),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": ContributionIn.model_json_schema()}},
        },
        "description": (
            "A normal Django POST: the session cookie and the CSRF token (`X-CSRFToken` "
            "header) of a signed-in member. Once per seat, only while the match is scheduled."
        ),
    },
)
def match_contribute(request: HttpRequest, match_id: int) -> Contributed:
    """Add a seated player's random value to the bag, before the deal."""
    refused = check_csrf(request)  # answered by wordduel.csrf, in JSON
    if refused is not None:
        return refused  # type: ignore[return-value]
    _access(request, match_id)
    try:
        raw = request.body  # a form body already read by the CSRF check is not JSON either
    except RawPostDataException:
        raw = b""
    if not raw or len(raw) > MAX_BODY:
        raise ApiRefusal(400, "bad_body", BAD_BODY)
    try:
        body = ContributionIn.model_validate_json(raw)
    except InvalidBody:
        raise ApiRefusal(400, "bad_body", BAD_BODY) from None
    seat = services.match_contribute_entropy(
        match_id=match_id, member=request.user, value_hex=body.value
    )
    return Contributed(position=seat.position, value=seat.contribution)


@api.get(
    "/matches/{int:match_id}/export.gcg",
    # The 200 is text, not JSON: stated in openapi_extra alone (declared here too, the
    # schema named "200" twice and Swagger UI refused it).
    response=NOT_FOUND,
    url_name="match-export-gcg",
    openapi_extra={
        "responses": {
            "200": {
                "description": "GCG text; rack letters only for the caller's seat.",
                "content": {"text/plain": {"schema": {"type": "string"}}},
            }
        }
    },
)
def match_export_gcg(request: HttpRequest, match_id: int, key: KeyParam = None) -> HttpResponse:
    """The match as a GCG record for the caller: their own racks only, as during play.

    Also at ``/matches/<id>/export.gcg`` beside the pages."""
    return gcg_download(
        _access(request, match_id),
        not_dealt=ApiRefusal(404, "not_found", "This match has no moves to export yet."),
    )


def gcg_download(access: visibility.MatchAccess, *, not_dealt: Exception) -> HttpResponse:
    """The GCG file of ``access``'s match for its viewer, as an attachment."""
    text = visibility.gcg_for(access)
    if text is None:
        raise not_dealt
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="wordduel-match-{access.match.id}.gcg"'
    return response
