"""Under ``/api/`` every answer is JSON, even Django's own refusals.

Django answers some requests before (or around) any view: a CSRF failure (403), a body over
``DATA_UPLOAD_MAX_MEMORY_SIZE`` (400), a method a view does not take (405), an unexpected
error (500). The API promises a JSON :class:`~matches.schemas.ApiError` for every refusal;
this middleware keeps that promise for them. Pages keep their HTML error pages.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError

from matches.schemas import ApiError

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
_CODES = {
    400: ("bad_request", "That request could not be read."),
    403: ("forbidden", "That is not allowed here (is the CSRF token missing?)."),
    404: ("not_found", "No such match."),
    405: ("method_not_allowed", "That method is not allowed here."),
    413: ("too_large", "That request is too large."),
    500: ("server_error", "Something went wrong on the server."),
}

#: Exceptions Django itself answers with a 4xx (not a 500): a view that raises one refuses.
REFUSALS = (Http404, PermissionDenied, BadRequest, SuspiciousOperation, MultiPartParserError)


class ApiErrorsAsJson:
    """Turn a non-JSON error answer under ``/api/`` into an ApiError in JSON."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith(API_PREFIX) or response.status_code < 400:
            return response
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        return _json_error(response.status_code, response.get("Allow"))

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not request.path.startswith(API_PREFIX) or isinstance(exception, REFUSALS):
            return None  # Django answers a refusal with its status; __call__ makes it JSON
        logger.exception("API request %s %s failed", request.method, request.path)
        return _json_error(500, None)


def _json_error(status: int, allow: str | None) -> JsonResponse:
    code, message = _CODES.get(status, ("refused", "That request was refused."))
    allowed = [method.strip() for method in allow.split(",")] if allow else None
    if allowed:
        message = f"Use {' or '.join(allowed)} here."
    body = ApiError(error=message, code=code, allowed=allowed).model_dump()
    response = JsonResponse(body, status=status)
    if allow:
        response["Allow"] = allow
    return response
