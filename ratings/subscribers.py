"""A rated result moves both players' ratings: heard from the core (common/events.py).

In the transaction that records the result (``Phase.IN_TRANSACTION``), so the result and
its rating change commit together or not at all; ``apply_match_result`` is idempotent.
"""

from __future__ import annotations

from common.events import MatchFinished, Phase, RoundsMatchEnded, subscribe
from matches.models import Match, Seat
from ratings.elo_ratings import rate_rounds_game
from ratings.services import apply_match_result


def rate_the_result(event: MatchFinished) -> None:
    """Move both ratings by a rated match's result (the match row is locked by its service)."""
    if not event.rated:
        return
    match = Match.objects.get(pk=event.match_id)
    seats = list(Seat.objects.filter(match_id=match.pk).order_by("position"))
    apply_match_result(match=match, seats=seats)


def subscribe_all() -> None:
    """Called once, from ``RatingsConfig.ready()``."""
    subscribe(MatchFinished, rate_the_result, phase=Phase.IN_TRANSACTION)
    subscribe(RoundsMatchEnded, rate_rounds_game, phase=Phase.IN_TRANSACTION)
