"""Tournament pages: the lists, one tournament's standings and rounds, and the organiser's
forms for one fixture or a whole round robin. Thin, as every page: a form parses, a service
changes, a selector reads."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_POST

from accounts.models import ORGANISER_PERMISSION, Member
from common.errors import ServiceError
from matches import visibility
from matches.models import Tournament
from ratings import selectors as ratings_selectors
from tournaments import exports, listing, services
from tournaments.forms import FixtureForm, RoundRobinForm
from tournaments.knockout_forms import KnockoutForm
from tournaments.knockout_selectors import knockout_bracket
from tournaments.league_forms import LeagueForm
from tournaments.league_selectors import division_of
from tournaments.standings import standings, table_scheme_of, tie_break_order, tie_breaks_of
from tournaments.swiss_forms import SwissForm
from tournaments.swiss_selectors import swiss_summary


def _member(request: HttpRequest) -> Member:
    """The signed-in member of a view that requires one (its decorator made sure)."""
    assert isinstance(request.user, Member)
    return request.user


# ---------------------------------------------------------------- tournaments


def tournament_list(request: HttpRequest) -> HttpResponse:
    """Current, upcoming and past tournaments the visitor may see."""
    lists = listing.tournament_lists(request.user, now=timezone.now())
    buckets = [
        ("current", "Current", lists.current, "No tournament is under way."),
        ("upcoming", "Upcoming", lists.upcoming, "No tournament is coming up."),
        ("past", "Past", lists.past, "No tournament has finished yet."),
    ]
    return render(request, "matches/tournaments.html", {"buckets": buckets})


def _viewable_tournament(request: HttpRequest, tournament_id: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("organiser"), pk=tournament_id)
    if not visibility.can_view_tournament(tournament, request.user):
        raise Http404("No such tournament.")
    return tournament


def _tournament_page(
    request: HttpRequest, tournament: Tournament, *, refusal: str = "", status: int = 200
) -> HttpResponse:
    context = {
        "tournament": tournament,
        "rounds": listing.round_results(tournament),
        "standings": standings(tournament),
        "tie_break_order": tie_break_order(tie_breaks_of(tournament), table_scheme_of(tournament)),
        "entrants": ratings_selectors.tournament_entrants(tournament),
        "swiss": swiss_summary(tournament),
        "swiss_refusal": refusal,
        "refusal": refusal,
        "format": listing.tournament_format(tournament),
        "bracket": knockout_bracket(tournament),
        "division": division_of(tournament),
        "tables": table_scheme_of(tournament) is not None,
    }
    return render(request, "matches/tournament.html", context, status=status)


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The standings table (with its tie-break order) and the results round by round; for
    a Swiss, its rounds' byes and Gibsons, and for organisers the next round's button; for
    a knockout, its bracket, and for organisers the "advance now" button."""
    return _tournament_page(request, _viewable_tournament(request, tournament_id))


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def swiss_pair_round(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Pair a Swiss's next round through ``services.pair_next_round`` (``force`` when the
    organiser ticked "pair even though games are unfinished"); a refusal is shown on the
    tournament page with its status."""
    tournament = _viewable_tournament(request, tournament_id)
    try:
        paired = services.pair_next_round(
            organiser=_member(request),
            tournament_id=tournament.id,
            force=request.POST.get("force") == "on",
        )
    except ServiceError as error:
        return _tournament_page(request, tournament, refusal=error.message, status=error.status)
    count = len(paired.matches)
    fixtures = "fixture" if count == 1 else "fixtures"
    messages.success(request, f"Paired round {paired.number}: {count} {fixtures}.")
    return redirect("tournament", tournament_id=tournament.id)


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def knockout_advance(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Bring a knockout up to date now (``services.advance_knockout_now``): what each
    finished game's commit does by itself, should that have failed."""
    tournament = _viewable_tournament(request, tournament_id)
    try:
        advanced = services.advance_knockout_now(
            organiser=_member(request), tournament_id=tournament.id
        )
    except ServiceError as error:
        return _tournament_page(request, tournament, refusal=error.message, status=error.status)
    if advanced.decided or advanced.scheduled:
        count = len(advanced.scheduled)
        messages.success(
            request,
            f"Decided {len(advanced.decided)} tie{'s' if len(advanced.decided) != 1 else ''}, "
            f"scheduled {count} game{'s' if count != 1 else ''}.",
        )
    else:
        messages.info(request, "The bracket was up to date: nothing to advance.")
    return redirect("tournament", tournament_id=tournament.id)


# ---------------------------------------------------------------- organisers


def _organise_page(
    request: HttpRequest,
    *,
    fixture_form: FixtureForm | None = None,
    round_robin_form: RoundRobinForm | None = None,
    swiss_form: SwissForm | None = None,
    knockout_form: KnockoutForm | None = None,
    league_form: LeagueForm | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "fixture_form": fixture_form or FixtureForm(prefix="fixture"),
        "round_robin_form": round_robin_form or RoundRobinForm(prefix="rr"),
        "swiss_form": swiss_form or SwissForm(prefix="swiss"),
        "knockout_form": knockout_form or KnockoutForm(prefix="ko"),
        "league_form": league_form or LeagueForm(prefix="league"),
    }
    return render(request, "matches/organise.html", context, status=status)


@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise(request: HttpRequest) -> HttpResponse:
    """The organiser's forms: one fixture, or a whole round robin."""
    return _organise_page(request)


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise_fixture(request: HttpRequest) -> HttpResponse:
    """Schedule one fixture through ``services.create_fixture``."""
    form = FixtureForm(request.POST, prefix="fixture")
    if not form.is_valid():
        return _organise_page(request, fixture_form=form, status=400)
    try:
        match = services.create_fixture(organiser=_member(request), **form.service_kwargs())
    except ServiceError as error:
        form.add_error(None, str(error))
        return _organise_page(request, fixture_form=form, status=error.status)
    messages.success(request, f"Scheduled {match.name}.")
    return redirect("match", match_id=match.id)


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise_round_robin(request: HttpRequest) -> HttpResponse:
    """Create a round-robin tournament through ``services.create_round_robin``."""
    form = RoundRobinForm(request.POST, prefix="rr")
    if not form.is_valid():
        return _organise_page(request, round_robin_form=form, status=400)
    try:
        tournament = services.create_round_robin(
            organiser=_member(request), **form.service_kwargs()
        )
    except ServiceError as error:
        form.add_error(None, str(error))
        return _organise_page(request, round_robin_form=form, status=error.status)
    count = tournament.matches.count()
    messages.success(request, f"Created {tournament.name} with {count} fixtures.")
    return redirect("tournament", tournament_id=tournament.id)


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise_swiss(request: HttpRequest) -> HttpResponse:
    """Create a Swiss through ``services.create_swiss``; its rounds are paired from its
    page, or automatically (round 1 at once)."""
    form = SwissForm(request.POST, prefix="swiss")
    if not form.is_valid():
        return _organise_page(request, swiss_form=form, status=400)
    try:
        tournament = services.create_swiss(organiser=_member(request), **form.service_kwargs())
    except ServiceError as error:
        form.add_error(None, str(error))
        return _organise_page(request, swiss_form=form, status=error.status)
    if form.cleaned_data["pair_automatically"]:
        count = tournament.matches.count()
        messages.success(
            request,
            f"Created {tournament.name} with round 1 paired ({count} fixture"
            f"{'' if count == 1 else 's'}); each later round is paired when the one before "
            "is complete.",
        )
    else:
        messages.success(request, f"Created {tournament.name}: pair its first round when ready.")
    return redirect("tournament", tournament_id=tournament.id)


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise_league(request: HttpRequest) -> HttpResponse:
    """Create a league and its first season through ``services.create_league``."""
    form = LeagueForm(request.POST, prefix="league")
    if not form.is_valid():
        return _organise_page(request, league_form=form, status=400)
    try:
        league = services.create_league(organiser=_member(request), **form.service_kwargs())
    except ServiceError as error:
        form.add_error(None, str(error))
        return _organise_page(request, league_form=form, status=error.status)
    count = league.seasons.get().divisions.count()
    divisions = "division" if count == 1 else "divisions"
    messages.success(request, f"Created {league.name}: season 1 in {count} {divisions}.")
    return redirect("league", league_id=league.id)


@require_POST
@permission_required(ORGANISER_PERMISSION, raise_exception=True)
def organise_knockout(request: HttpRequest) -> HttpResponse:
    """Create a knockout through ``services.create_knockout``: its bracket is drawn and
    round 1's first games scheduled at once."""
    form = KnockoutForm(request.POST, prefix="ko")
    if not form.is_valid():
        return _organise_page(request, knockout_form=form, status=400)
    try:
        tournament = services.create_knockout(organiser=_member(request), **form.service_kwargs())
    except ServiceError as error:
        form.add_error(None, str(error))
        return _organise_page(request, knockout_form=form, status=error.status)
    count = tournament.matches.count()
    messages.success(
        request, f"Created {tournament.name}: {count} game{'s' if count != 1 else ''} in round 1."
    )
    return redirect("tournament", tournament_id=tournament.id)


# ---------------------------------------------------------------- exports


def _download(text: str, *, filename: str, content_type: str) -> HttpResponse:
    answer = HttpResponse(text, content_type=content_type)
    answer["Content-Disposition"] = f'attachment; filename="{filename}"'
    return answer


def _file_stem(tournament: Tournament) -> str:
    return slugify(tournament.name) or f"tournament-{tournament.id}"


def tournament_results_csv(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The finished matches' results as CSV, to whoever may see the tournament."""
    tournament = _viewable_tournament(request, tournament_id)
    return _download(
        exports.results_csv(tournament),
        filename=f"{_file_stem(tournament)}-results.csv",
        content_type="text/csv; charset=utf-8",
    )


def tournament_standings_csv(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The standings as CSV, with the tie-break columns, to whoever may see the tournament."""
    tournament = _viewable_tournament(request, tournament_id)
    return _download(
        exports.standings_csv(tournament),
        filename=f"{_file_stem(tournament)}-standings.csv",
        content_type="text/csv; charset=utf-8",
    )


def tournament_tsh_file(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The results as tsh's ``.t`` file for rating submission: duels only, so a Swiss of
    tables has none (404)."""
    tournament = _viewable_tournament(request, tournament_id)
    if table_scheme_of(tournament) is not None:
        raise Http404("tsh's .t file holds two-player games only.")
    return _download(
        exports.tsh_file(tournament),
        filename=f"{_file_stem(tournament)}.t",
        content_type="text/plain; charset=utf-8",
    )
