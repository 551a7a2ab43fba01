"""Reads of rounds matches, for one viewer: every answer built from what
``matches.visibility.rounds`` lets them see (``rounds.payloads`` shapes it)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.db import transaction

from engine.rounds import RoundRecord, RoundsGame
from engine.rulesets import get_ruleset
from matches.visibility.rounds import rounds_sight
from matches.visibility.rounds_series import can_view_session_match
from rounds.models import ClosedRound, RoundsMatch, RoundsPlayer
from rounds.payloads import rounds_view
from rounds.schemas import RoundsView
from rounds.services.common import gramma_cap
from rounds.services.errors import RoundsMatchMissing


def viewer_position(players: list[RoundsPlayer], user: Any) -> int | None:
    """The viewer's player number, or None (a spectator, a visitor)."""
    if not getattr(user, "is_authenticated", False):
        return None
    return next((p.position for p in players if p.member_id == user.pk), None)


def _tournament_visibility(match: RoundsMatch) -> str | None:
    """The visibility of the Word Skill tournament whose session the match is (None: none)."""
    try:
        return match.session.series.tournament.visibility
    except ObjectDoesNotExist:
        return None


def rounds_state(*, user: Any, match_id: int) -> RoundsView:
    """The match as ``user`` may see it, read as one moment (one transaction)."""
    with transaction.atomic():
        match = (
            RoundsMatch.objects.select_related("host", "session__series__tournament")
            .filter(pk=match_id)
            .first()
        )
        if match is None or not can_view_session_match(
            tournament_visibility=_tournament_visibility(match), user=user
        ):
            raise RoundsMatchMissing(RoundsMatchMissing.MESSAGE)
        players = list(match.players.select_related("member").order_by("position"))
        closed = list(ClosedRound.objects.filter(match=match).order_by("number"))
    rules = get_ruleset(match.ruleset)
    game = None if match.game_state is None else RoundsGame.from_json(match.game_state)
    position = viewer_position(players, user)
    sight = rounds_sight(
        game=game,
        closed=tuple(RoundRecord.from_json(row.record, rules=rules) for row in closed),
        over=match.is_over,
        bag_seed=match.bag_seed,
        viewer_position=position,
    )
    return rounds_view(
        match, players, sight, viewer_position=position, gramma_cap=gramma_cap(match)
    )


def member_ids_of(match_id: int) -> set[int]:
    """The members playing the match."""
    return set(
        RoundsPlayer.objects.filter(match_id=match_id, member__isnull=False).values_list(
            "member_id", flat=True
        )
    )
