"""Pages of imported games. Thin: parse with the form, read through ``access``, change through
``services``; a game the viewer may not open is a 404, whether or not it exists."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from imports import services
from imports.access import ImportedGameNotFound, access_imported_game, owned_games, share_key
from imports.errors import ImportedGameMissing, ImportRefused, MembersOnlyImport
from imports.forms import ImportForm
from imports.pages import replay_page
from matches.visibility.access import is_club_member


def _game_url(game_id: int, key: str | None = None) -> str:
    url = reverse("imports:game", args=[game_id])
    return f"{url}?{urlencode({'key': key})}" if key else url


def _list_page(
    request: HttpRequest, form: ImportForm | None, *, status: int = 200, refusal: str = ""
) -> HttpResponse:
    context = {"form": form, "games": owned_games(request.user), "refusal": refusal}
    return render(request, "imports/list.html", context, status=status)


@login_required
def imported_games(request: HttpRequest) -> HttpResponse:
    """The member's imported games, and the form to import another (a POST imports it and
    answers at once with the game's page, which shows the analysis when its task is done).
    An account that is not an approved member is told so, and offered no form."""
    if not is_club_member(request.user):
        status = MembersOnlyImport.status if request.method == "POST" else 200
        return _list_page(request, None, status=status, refusal=MembersOnlyImport.MESSAGE)
    if request.method != "POST":
        return _list_page(request, ImportForm())
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _list_page(request, form, status=400)
    data = form.cleaned_data
    try:
        game = services.import_game(
            owner=request.user,
            data=data["record"],
            ruleset=data["ruleset"],
            lexicon=data["lexicon"],
            title=data.get("title") or "",
            file_name=data["file_name"],
        )
    except ImportRefused as error:
        form.add_error(None, str(error))
        return _list_page(request, form, status=error.status)
    return redirect(_game_url(game.pk))


def imported_game(request: HttpRequest, game_id: int) -> HttpResponse:
    """The replay: its owner, or whoever holds the current share link."""
    key = share_key(request.GET.get("key"))
    try:
        access = access_imported_game(user=request.user, game_id=game_id, key=key)
    except ImportedGameNotFound:
        raise Http404("No such imported game.") from None
    page = replay_page(access, step=request.GET.get("turn"))
    share_url = (
        request.build_absolute_uri(_game_url(game_id, page.share_key)) if page.share_key else ""
    )
    context = {
        "p": page,
        "key": key if access.has_key else "",
        "share_url": share_url,
    }
    return render(request, "imports/replay.html", context)


def _owner_action(request: HttpRequest, game_id: int, action: str) -> HttpResponse:
    try:
        if action == "share":
            services.rotate_share_key(game_id=game_id, member=request.user)
            messages.success(request, "A new share link is in place; any older one stops working.")
        elif action == "unshare":
            services.stop_sharing(game_id=game_id, member=request.user)
            messages.success(request, "The game is private again; its link no longer works.")
        else:
            services.delete_imported_game(game_id=game_id, member=request.user)
            messages.success(request, "The imported game is deleted.")
            return redirect("imports:list")
    except ImportedGameMissing:
        raise Http404("No such imported game.") from None
    return redirect(_game_url(game_id))


@require_POST
@login_required
def share(request: HttpRequest, game_id: int) -> HttpResponse:
    """Make (or replace) the share link."""
    return _owner_action(request, game_id, "share")


@require_POST
@login_required
def unshare(request: HttpRequest, game_id: int) -> HttpResponse:
    """Stop sharing: the link stops working."""
    return _owner_action(request, game_id, "unshare")


@require_POST
@login_required
def delete(request: HttpRequest, game_id: int) -> HttpResponse:
    """Delete the imported game."""
    return _owner_action(request, game_id, "delete")
