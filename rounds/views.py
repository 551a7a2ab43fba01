"""Pages of Word Skill rounds (docs/RULES.md section 19): the lobby, the board, the replay.

Thin, as matches/views.py: the forms' numbers parsed here, every change made by a rounds
service, every read through the rounds selectors (which build what a viewer may see through
``matches.visibility.rounds``). A refusal is shown with its own message, never a 500; a
match the viewer may not see is a 404.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from common.errors import ServiceError
from engine import format_position, get_ruleset
from matches.visibility.grid import board_grid
from matches.visibility.pages import board_rules
from rounds import lobby as lobby_lists
from rounds import selectors, services
from rounds.schemas import RoundsView

WORD_SKILL = "word-skill"
#: The choices the lobby's forms offer (seconds); the services check every number.
TURN_TIMES = (60, 120, 180, 300, 600)
ROUND_TIMES = (600, 3600, 6 * 3600, 24 * 3600, 3 * 24 * 3600, 7 * 24 * 3600)


def _seconds(raw: object, default: int) -> timedelta:
    """A whole number of seconds from a form (the service refuses one out of range)."""
    text = str(raw if raw is not None else default).strip()
    return timedelta(seconds=int(text) if text.isdigit() and len(text) < 8 else -1)


def _duration(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    if seconds % 86400 == 0:
        days = seconds // 86400
        return f"{days} day{'s' if days != 1 else ''}"
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return f"{hours} hour{'s' if hours != 1 else ''}"
    if seconds % 60 == 0:
        minutes = seconds // 60
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds} seconds"


def lobby(request: HttpRequest) -> HttpResponse:
    """Open a rounds match, join an open one, or play Gramma Ana one to one."""
    context: dict[str, Any] = {
        "open_matches": lobby_lists.open_matches(request.user),
        "my_matches": lobby_lists.my_rounds_matches(request.user),
        "turn_times": [(s, _duration(timedelta(seconds=s))) for s in TURN_TIMES],
        "round_times": [(s, _duration(timedelta(seconds=s))) for s in ROUND_TIMES],
    }
    return render(request, "rounds/lobby.html", context)


@require_POST
@login_required
def open_match(request: HttpRequest) -> HttpResponse:
    """The member hosts a new rounds match (Gramma Ana too, if asked), then its board."""
    try:
        match = services.rounds_open(
            member=request.user,
            name=str(request.POST.get("name", "")),
            turn_time=_seconds(request.POST.get("turn_seconds"), 180),
            round_time=_seconds(request.POST.get("round_seconds"), 24 * 3600),
            gramma_ana=request.POST.get("gramma_ana") == "on",
        )
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect("rounds:lobby")
    return redirect("rounds:board", match_id=match.pk)


@require_POST
@login_required
def join(request: HttpRequest, match_id: int) -> HttpResponse:
    """The member joins an open match; its board."""
    try:
        services.rounds_join(match_id=match_id, member=request.user)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        if refusal.status == 404:
            return redirect("rounds:lobby")
    return redirect("rounds:board", match_id=match_id)


@require_POST
@login_required
def start_game(request: HttpRequest, match_id: int) -> HttpResponse:
    """The host starts the game (two players at least): round 1 is dealt."""
    try:
        services.rounds_start(match_id=match_id, member=request.user)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
    return redirect("rounds:board", match_id=match_id)


@require_POST
@login_required
def play_gramma_ana(request: HttpRequest) -> HttpResponse:
    """A one-to-one game against Gramma Ana, rated with Word Skill's Elo, started at once."""
    try:
        match = services.rounds_play_gramma_ana(
            member=request.user, turn_time=_seconds(request.POST.get("turn_seconds"), 180)
        )
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect("rounds:lobby")
    return redirect("rounds:board", match_id=match.pk)


def _view(request: HttpRequest, match_id: int) -> RoundsView:
    """The match as this visitor may see it, or 404 (never revealing that it exists)."""
    try:
        return selectors.rounds_state(user=request.user, match_id=match_id)
    except ServiceError:
        raise Http404("No such match.") from None


def _board_context(view: RoundsView) -> dict[str, Any]:
    ruleset = get_ruleset(WORD_SKILL)
    size = ruleset.board_size
    board = view.board or ["." * size] * size
    return {
        "v": view,
        "size": size,
        "columns": "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:size],
        "grid": board_grid(ruleset=ruleset, board=board),
        "board_rules": board_rules(WORD_SKILL),
        "players_by_total": sorted(view.players, key=lambda p: (-p.total, p.position)),
        "turn_time": _duration(timedelta(seconds=view.settings.turn_seconds)),
        "round_time": _duration(timedelta(seconds=view.settings.round_seconds)),
    }


def board(request: HttpRequest, match_id: int) -> HttpResponse:
    """The board page: rounds_board.js takes it over with /ws/rounds/<id>/."""
    view = _view(request, match_id)
    context = _board_context(view)
    context["view_json"] = view.model_dump(mode="json")
    context["can_join"] = (
        view.status == "open"
        and view.your_position is None
        and request.user.is_authenticated
        and getattr(request.user, "is_club_member", False)
    )
    return render(request, "rounds/board.html", context)


def replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """Every closed round: its tray, every player's play and score, the one placed."""
    view = _view(request, match_id)
    names = {player.position: player.name for player in view.players}
    rounds = [
        {
            "number": result.number,
            "tray": _tray_text(result.tray),
            "placed": result.placed,
            "placed_name": names.get(result.placed) if result.placed is not None else None,
            "decided_by": result.decided_by,
            "redealt": [_tray_text(tray) for tray in result.redealt],
            "rows": [
                {
                    "name": names.get(row.player, f"Player {row.player + 1}"),
                    "player": row.player,
                    "status": row.status,
                    "submission": row.submission,
                    "score": row.score,
                    "total": result.totals[row.player] if row.player < len(result.totals) else None,
                    "placed": row.player == result.placed,
                }
                for row in result.players
            ],
        }
        for result in view.rounds
    ]
    context = _board_context(view)
    context["replay_rounds"] = rounds
    shown = _round_asked(request.GET.get("round"), last=len(view.rounds))
    if shown:
        size = context["size"]
        board, placed = board_after(view, shown, size=size)
        context["grid"] = board_grid(ruleset=get_ruleset(WORD_SKILL), board=board, placed=placed)
    context["shown_round"] = shown
    context["unplayable"] = [_tray_text(tray) for tray in view.unplayable]
    return render(request, "rounds/replay.html", context)


def _tray_text(tray: str) -> str:
    """A tray for reading: its letters spaced, a blank named."""
    return " ".join("blank" if t == "?" else t for t in tray)


def _round_asked(raw: object, *, last: int) -> int:
    """The round whose board the replay shows (``?round=n``): the last by default; 0 none."""
    text = str(raw or "").strip()
    number = int(text) if text.isdigit() and len(text) < 6 else last
    return number if 1 <= number <= last else last


def board_after(view: RoundsView, number: int, *, size: int) -> tuple[list[str], set[str]]:
    """The board after round ``number``, built from the plays placed in rounds 1 to n (the
    public record), and the squares round ``number``'s play took."""
    rows = [["."] * size for _ in range(size)]
    placed: set[str] = set()
    for result in view.rounds:
        if result.number > number or result.placed is None:
            continue
        play = next((p.submission for p in result.players if p.player == result.placed), None)
        if play is None:
            continue
        for tile in play.tiles:
            rows[tile.row][tile.col] = tile.letter.lower() if tile.blank else tile.letter
            if result.number == number:
                placed.add(format_position(tile.row, tile.col, across=False))
    return ["".join(row) for row in rows], placed
