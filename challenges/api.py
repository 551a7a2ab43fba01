"""Challenges and rematches over HTTP (django-ninja), mounted at ``/api/challenges/``: thin
operations over ``challenges.services`` and ``challenges.selectors``, in the manner of
``matches.api``. Changes are normal Django POSTs (session cookie and CSRF token); refusals
are the API's ``ApiError`` with the service's code and words (``matches.api`` maps every
``ServiceError``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.http.request import RawPostDataException
from ninja import Router, Status
from ninja.utils import check_csrf
from pydantic import ValidationError as InvalidBody

from challenges import selectors, services
from challenges.models import Challenge
from challenges.schemas import ChallengeIn, ChallengeList, ChallengeOut, ChallengeState, RematchOut
from matches.api import ApiRefusal, SessionCookie
from matches.schemas import ApiError

router = Router(tags=["challenges"])

MAX_BODY = 4096
BAD_BODY = 'Send a JSON object: {"ruleset": "word-duel", "rated": false, "opponent": ""}.'
REFUSALS: dict[int | str, Any] = {400: ApiError, 403: ApiError, 409: ApiError}
POST_DOC = (
    "A normal Django POST: the session cookie and the CSRF token (`X-CSRFToken` header) of a "
    "signed-in approved member."
)


def _checked(request: HttpRequest) -> HttpResponse | None:
    return check_csrf(request)  # answered by wordduel.csrf, in JSON


def _state(challenge: Challenge) -> ChallengeState:
    return ChallengeState(id=challenge.pk, status=challenge.status, match_id=challenge.match_id)


@router.get("/", response={200: ChallengeList, 403: ApiError}, url_name="challenges")
def challenge_list(request: HttpRequest) -> ChallengeList:
    """The open challenges the caller may see (approved members only)."""
    services.require_challenger(request.user)
    lines = selectors.open_challenges(request.user)
    return ChallengeList(results=[ChallengeOut(**vars(line)) for line in lines])


@router.post(
    "/",
    response={201: ChallengeState, **REFUSALS},
    url_name="challenge-post",
    auth=SessionCookie(),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": ChallengeIn.model_json_schema()}},
        },
        "description": POST_DOC,
    },
)
def challenge_post(request: HttpRequest) -> Status[ChallengeState]:
    """Post a challenge."""
    refused = _checked(request)
    if refused is not None:
        return refused  # type: ignore[return-value]
    services.require_challenger(request.user)
    try:
        raw = request.body
    except RawPostDataException:
        raw = b""
    if not raw or len(raw) > MAX_BODY:
        raise ApiRefusal(400, "bad_body", BAD_BODY)
    try:
        body = ChallengeIn.model_validate_json(raw)
    except InvalidBody:
        raise ApiRefusal(400, "bad_body", BAD_BODY) from None
    challenge = services.challenge_post(
        member=request.user, ruleset=body.ruleset, rated=body.rated, opponent_username=body.opponent
    )
    return Status(201, _state(challenge))


@router.post(
    "/{int:challenge_id}/accept",
    response={200: ChallengeState, **REFUSALS},
    url_name="challenge-accept",
    auth=SessionCookie(),
    openapi_extra={"description": POST_DOC + " The match begins at once."},
)
def challenge_accept(request: HttpRequest, challenge_id: int) -> ChallengeState:
    """Accept a challenge: its match is live at once, the poster First."""
    refused = _checked(request)
    if refused is not None:
        return refused  # type: ignore[return-value]
    match = services.challenge_accept(challenge_id=challenge_id, member=request.user)
    return ChallengeState(id=challenge_id, status="accepted", match_id=match.id)


@router.post(
    "/{int:challenge_id}/withdraw",
    response={200: ChallengeState, **REFUSALS},
    url_name="challenge-withdraw",
    auth=SessionCookie(),
    openapi_extra={"description": POST_DOC},
)
def challenge_withdraw(request: HttpRequest, challenge_id: int) -> ChallengeState:
    """Withdraw one's own challenge before anyone accepts it."""
    refused = _checked(request)
    if refused is not None:
        return refused  # type: ignore[return-value]
    return _state(services.challenge_withdraw(challenge_id=challenge_id, member=request.user))


def _rematch(request: HttpRequest, match_id: int, service: Any) -> RematchOut:
    refused = _checked(request)
    if refused is not None:
        return refused  # type: ignore[return-value]
    state = service(match_id=match_id, member=request.user)
    return RematchOut(
        match_id=match_id,
        status=state.offer.status,
        offered_by=state.offer.offered_by.label,
        rematch_id=state.rematch.id if state.rematch is not None else None,
    )


REMATCH_ANSWERS: dict[int | str, Any] = {200: RematchOut, 404: ApiError, **REFUSALS}
REMATCH_DOC = {"description": POST_DOC + " Only the two players of a finished friendly."}


@router.post(
    "/rematch/{int:match_id}/offer",
    response=REMATCH_ANSWERS,
    url_name="rematch-offer",
    auth=SessionCookie(),
    openapi_extra=REMATCH_DOC,
)
def rematch_offer(request: HttpRequest, match_id: int) -> RematchOut:
    """Offer a rematch (again: no change; when the other player has offered: agree)."""
    return _rematch(request, match_id, services.rematch_offer)


@router.post(
    "/rematch/{int:match_id}/accept",
    response=REMATCH_ANSWERS,
    url_name="rematch-accept",
    auth=SessionCookie(),
    openapi_extra=REMATCH_DOC,
)
def rematch_accept(request: HttpRequest, match_id: int) -> RematchOut:
    """Accept the other player's offer: the rematch begins at once, seats swapped."""
    return _rematch(request, match_id, services.rematch_accept)


@router.post(
    "/rematch/{int:match_id}/decline",
    response=REMATCH_ANSWERS,
    url_name="rematch-decline",
    auth=SessionCookie(),
    openapi_extra=REMATCH_DOC,
)
def rematch_decline(request: HttpRequest, match_id: int) -> RematchOut:
    """Decline the offer (either player); final for this match."""
    return _rematch(request, match_id, services.rematch_decline)
