"""The ratings pages: a leaderboard per ruleset and a player's page (ratings and history).

The leaderboard and the ratings on a player's page are for club members only (approved:
a sign-up still waiting sees what a signed-out visitor sees): a rating moves with results,
and some matches are members-only. A player's page itself is open to
anyone, listing only the matches the visitor may watch. The change a rated match made is
shown on that match's own page (``matches.views``), to whoever may see the match.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.decorators import user_passes_test
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from accounts.models import Member
from engine import RULESETS
from matches.players import player_record
from matches.visibility import is_club_member
from ratings import selectors
from ratings.chart import SHAPES, Chart, history_chart
from ratings.elo_ratings import elo_line
from ratings.policy import PROVISIONAL_DEVIATION

DEFAULT_RULESET = "word-duel"


@user_passes_test(is_club_member)
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


def player(request: HttpRequest, username: str) -> HttpResponse:
    """A member's page: their results, current matches and head-to-head record (the matches
    the visitor may watch: :mod:`matches.players`); for signed-in members also their ratings,
    a chart of each ruleset's history and the same as a table, and their Word Skill Elo
    (games against Gramma Ana, apart from Glicko-2).

    Only an approved member has a page: a sign-up still waiting or a removed member is a 404
    (to everyone, organisers too: the members page is theirs for that)."""
    member = get_object_or_404(Member, username=username)
    if not member.is_club_member:
        raise Http404("No such player.")
    sections = []
    show_ratings = is_club_member(request.user)
    for line in selectors.player_ratings(member, now=timezone.now()) if show_ratings else []:
        lines = selectors.history(member, line.ruleset)
        sections.append(RulesetHistory(line, lines, history_chart(lines)))
    context = {
        "player": member,
        "record": player_record(member, viewer=request.user),
        "show_ratings": show_ratings,
        "sections": sections,
        "elo": elo_line(member.pk) if show_ratings else None,
        "shapes": SHAPES,
        "provisional_deviation": round(PROVISIONAL_DEVIATION),
    }
    return render(request, "ratings/player.html", context)
