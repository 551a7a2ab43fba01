"""Pages of the site that belong to no app: How to play, and the site's icon.

The page is written for players. Its numbers of the rules (tiles, values, the bonus, the
deadlines) come from the default ruleset and the settings, so they cannot drift from what the
server enforces; its worked examples are drawn from the positions in :mod:`wordduel.guide`.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static

from engine import BLANK, get_ruleset
from lexicon.lexicon import ENABLE, get_lexicon
from wordduel import guide


def _whole(span: timedelta, unit: timedelta) -> int:
    return int(span / unit)


def how_to_play(request: HttpRequest) -> HttpResponse:
    """How to play: placing tiles, the words that count, scoring, the end, the clock,
    watching, the fair bag, and questions players ask."""
    rules = get_ruleset(guide.RULESET)
    counts = Counter(rules.full_bag)
    by_points: dict[int, list[tuple[str, int]]] = {}
    for letter, value in sorted(rules.values):
        by_points.setdefault(value, []).append((letter, counts[letter]))
    context = {
        "rules": rules,
        "values": sorted(by_points.items()),
        "blanks": counts[BLANK],
        "letter_tiles": rules.tile_count - counts[BLANK],
        "letter_points": sum(rules.tile_value(tile) for tile in rules.full_bag),
        "words": f"{len(get_lexicon(ENABLE, max_len=rules.lexicon_max_len)):,}",
        "no_show_minutes": _whole(settings.NO_SHOW_WINDOW, timedelta(minutes=1)),
        "forfeit_days": _whole(settings.FORFEIT_AFTER, timedelta(days=1)),
        "session_hours": settings.SESSION_COOKIE_AGE // 3600,
        "diagrams": guide.diagrams(),
    }
    return render(request, "guide/how_to_play.html", context)


def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``, which browsers ask for where a page names no icon (a JSON answer,
    the admin's pages): the static files' icon, as every page of ours names it."""
    return redirect(static("favicon.svg"))
