"""Pages. Thin: read through selectors/visibility, change through services."""

from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/home.html", {})


@login_required
def my_matches(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/my_matches.html", {})


@permission_required("accounts.organise", raise_exception=True)
def organise(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/organise.html", {})
