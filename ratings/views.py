"""The ratings pages: a leaderboard per ruleset and a player's page (ratings and history).

Signed-in members only: a history names results, and some matches are members-only. The
change a rated match made is shown on that match's own page (``matches.views``), to
whoever may see the match.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from accounts.models import Member
from matches.engine import RULESETS
from ratings import selectors
from ratings.chart import SHAPES, Chart, history_chart
from ratings.policy import PROVISIONAL_DEVIATION

DEFAULT_RULESET = "word-duel"


@login_required
def leaderboard(request: HttpRequest, ruleset: str = DEFAULT_RULESET) -> HttpResponse:
    """One ruleset's leaderboard: settled ratings ranked, provisional ones after them."""
    if ruleset not in RULESETS:
        raise Http404("No such ruleset.")
    context = {
        "board": selectors.leaderboard(ruleset, now=timezone.now()),
        "rulesets": list(RULESETS),
        "provisional_deviation": round(PROVISIONAL_DEVIATION),
    }
    return render(request, "ratings/leaderboard.html", context)


@dataclass(frozen=True)
class RulesetHistory:
    """A player's rating in one ruleset, its history and its chart."""

    line: selectors.RatingLine
    history: list[selectors.HistoryLine]
    chart: Chart | None


@login_required
def player(request: HttpRequest, username: str) -> HttpResponse:
    """A member's ratings, a chart of each ruleset's history and the same as a table."""
    member = get_object_or_404(Member, username=username)
    sections = []
    for line in selectors.player_ratings(member, now=timezone.now()):
        lines = selectors.history(member, line.ruleset)
        sections.append(RulesetHistory(line, lines, history_chart(lines)))
    context = {
        "player": member,
        "sections": sections,
        "shapes": SHAPES,
        "provisional_deviation": round(PROVISIONAL_DEVIATION),
    }
    return render(request, "ratings/player.html", context)
