"""A CSRF failure answered as the place it happened answers: JSON under ``/api/``, else the page.

Django calls this view (``CSRF_FAILURE_VIEW``) for every request its CSRF check refuses,
including the API's own check of a signed-in member's POST.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import csrf

from matches.schemas import ApiError
from wordduel.middleware import API_PREFIX


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        error = ApiError(error=f"CSRF verification failed: {reason}", code="csrf_failed")
        return JsonResponse(error.model_dump(), status=403)
    return csrf.csrf_failure(request, reason)
