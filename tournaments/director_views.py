"""A tournament's director page (``/organise/tournaments/<id>/director/``) and its actions:
the tie-breaks' order, the move time, a late entrant, a withdrawal, an entries file; and the
members file (``/organise/members/import/``). Organisers only (anyone else gets 403). Each
action parses its form and calls one service; a refusal, a form error or a file's bad rows
are shown on the page with the refusal's status; success goes back to the page."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from accounts import services as account_services
from accounts.errors import MembersImportRefused
from accounts.models import ORGANISER_PERMISSION, Member
from common.errors import ServiceError
from matches.models import Tournament
from tournaments.director_forms import (
    EntriesImportForm,
    LateEntryForm,
    MembersImportForm,
    TieBreaksForm,
    TurnTimeForm,
    WithdrawForm,
)
from tournaments.forms import MEMBER_DATALIST
from tournaments.membership_views import invitation_link
from tournaments.models import TournamentOptions, Withdrawal
from tournaments.services import director
from tournaments.standings import TIE_BREAKS, tie_break_order, tie_breaks_of

organiser_only = permission_required(ORGANISER_PERMISSION, raise_exception=True)
_PLACES = ("first", "second", "third", "fourth")


def _member(request: HttpRequest) -> Member:
    assert isinstance(request.user, Member)
    return request.user


def _page(
    request: HttpRequest,
    tournament: Tournament,
    *,
    refusal: str = "",
    bad_rows: list[tuple[int, str]] | None = None,
    status: int = 200,
) -> HttpResponse:
    options = TournamentOptions.objects.filter(tournament=tournament).first()
    chosen = tie_breaks_of(tournament)
    turn_time = options.turn_time if options is not None else None
    context = {
        "tournament": tournament,
        "tie_break_order": tie_break_order(chosen),
        "tie_breaks_form": TieBreaksForm(initial=dict(zip(_PLACES, chosen, strict=False))),
        "tie_breaks": TIE_BREAKS,
        "turn_time_form": TurnTimeForm(
            initial={"hours": int(turn_time / timedelta(hours=1)) if turn_time else None}
        ),
        "entry_form": LateEntryForm(prefix="entry"),
        "withdraw_form": WithdrawForm(prefix="withdraw"),
        "entries_form": EntriesImportForm(prefix="entries"),
        "players": tournament.players.order_by("username"),
        "withdrawals": Withdrawal.objects.filter(tournament=tournament).select_related("member"),
        "refusal": refusal,
        "bad_rows": bad_rows or [],
        "datalist_id": MEMBER_DATALIST,
    }
    return render(request, "tournaments/director.html", context, status=status)


def _tournament(tournament_id: int) -> Tournament:
    return get_object_or_404(Tournament, pk=tournament_id)


def _errors(form: forms.Form) -> str:
    return " ".join(str(error) for errors in form.errors.values() for error in errors)


def _act(
    request: HttpRequest, tournament: Tournament, form: forms.Form, call: Callable[[], str]
) -> HttpResponse:
    if not form.is_valid():
        return _page(request, tournament, refusal=_errors(form), status=400)
    try:
        done = call()
    except director.EntriesRefused as error:
        return _page(
            request, tournament, refusal=error.message, bad_rows=error.rows, status=error.status
        )
    except ServiceError as error:
        return _page(request, tournament, refusal=error.message, status=error.status)
    messages.success(request, done)
    return redirect("organise-director", tournament_id=tournament.id)


@organiser_only
def director_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The director's forms for one tournament."""
    return _page(request, _tournament(tournament_id))


@require_POST
@organiser_only
def set_tie_breaks(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _tournament(tournament_id)
    form = TieBreaksForm(request.POST)

    def call() -> str:
        director.tie_breaks_set(
            organiser=_member(request), tournament_id=tournament.id, tie_breaks=form.order()
        )
        return "Tie-breaks saved: " + ", then ".join(tie_break_order(form.order())) + "."

    return _act(request, tournament, form, call)


@require_POST
@organiser_only
def set_turn_time(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _tournament(tournament_id)
    form = TurnTimeForm(request.POST)

    def call() -> str:
        director.turn_time_set(
            organiser=_member(request), tournament_id=tournament.id, turn_time=form.turn_time()
        )
        return "Move time saved."

    return _act(request, tournament, form, call)


@require_POST
@organiser_only
def enter_late(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _tournament(tournament_id)
    form = LateEntryForm(request.POST, prefix="entry")

    def call() -> str:
        made = director.entrant_add(
            organiser=_member(request),
            tournament_id=tournament.id,
            member_id=form.cleaned_data["member"].pk,
            **form.schedule(),
        )
        return f"Entered {form.cleaned_data['member']}: {len(made)} fixtures scheduled."

    return _act(request, tournament, form, call)


@require_POST
@organiser_only
def withdraw(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _tournament(tournament_id)
    form = WithdrawForm(request.POST, prefix="withdraw")

    def call() -> str:
        done = director.entrant_withdraw(
            organiser=_member(request),
            tournament_id=tournament.id,
            member_id=form.cleaned_data["member"].pk,
            reason=form.cleaned_data["reason"],
        )
        rule = done.withdrawal.get_rule_display().lower()
        return f"Withdrew {form.cleaned_data['member']}: {rule} ({len(done.settled)})."

    return _act(request, tournament, form, call)


@require_POST
@organiser_only
def import_entries(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _tournament(tournament_id)
    form = EntriesImportForm(request.POST, request.FILES, prefix="entries")

    def call() -> str:
        entered = director.entries_import(
            organiser=_member(request),
            tournament_id=tournament.id,
            csv_text=form.cleaned_data["text"],
            **form.schedule(),
        )
        return f"Entered {len(entered)} members."

    return _act(request, tournament, form, call)


# ---------------------------------------------------------------- the members file


def _members_import_page(
    request: HttpRequest,
    form: MembersImportForm,
    *,
    refusal: str = "",
    bad_rows: list[tuple[int, str]] | None = None,
    links: list[dict[str, Any]] | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {"form": form, "refusal": refusal, "bad_rows": bad_rows or [], "links": links}
    return render(request, "tournaments/members_import.html", context, status=status)


@require_http_methods(["GET", "POST"])
@organiser_only
def import_members(request: HttpRequest) -> HttpResponse:
    """A CSV of ``name,email`` rows made into single-use invitation links, shown once made
    (and on the members page with every invitation)."""
    if request.method == "GET":
        return _members_import_page(request, MembersImportForm())
    form = MembersImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _members_import_page(request, form, refusal=_errors(form), status=400)
    rows = list(csv.reader(io.StringIO(form.cleaned_data["text"])))
    try:
        invitations = account_services.members_import(
            organiser=_member(request),
            rows=rows,
            expires_at=timezone.now() + timedelta(days=form.cleaned_data["days"]),
        )
    except MembersImportRefused as error:
        return _members_import_page(
            request, form, refusal=error.message, bad_rows=error.rows, status=error.status
        )
    except ServiceError as error:
        return _members_import_page(request, form, refusal=error.message, status=error.status)
    links = [{"note": i.note, "link": invitation_link(i)} for i in invitations]
    return _members_import_page(request, MembersImportForm(), links=links)
