"""What the tournaments app hears (common/events.py): a member removed from the club leaves
every fixture of theirs that is not over, in the removal's own transaction; a finished game
that completes a Swiss round pairs the next, if that Swiss pairs automatically; a knockout's
game that finished moves its tie on, after the result's commit."""

from __future__ import annotations

from accounts.models import Member
from common.events import MatchFinished, MemberRemoved, Phase, subscribe
from matches.models import Match
from tournaments.models import KnockoutGame
from tournaments.services.knockout import advance_knockout
from tournaments.services.organising import member_withdraw
from tournaments.services.swiss import pair_completed_round


def withdraw_from_their_fixtures(event: MemberRemoved) -> None:
    """As RULES.md section 3 says (``member_withdraw``); a refusal rolls the removal back."""
    member_withdraw(
        organiser=Member.objects.get(pk=event.by_id),
        member_id=event.member_id,
        reason=event.reason,
        substitute_id=event.substitute_id,
    )


def pair_the_next_swiss_round(event: MatchFinished) -> None:
    """After the commit that finished the game (``pair_completed_round`` is a no-op unless
    it was the round's last, and safe to run twice)."""
    tournament_id = (
        Match.objects.filter(pk=event.match_id, tournament__swiss__isnull=False)
        .values_list("tournament_id", flat=True)
        .first()
    )
    if tournament_id is not None:
        pair_completed_round(tournament_id=tournament_id)


def advance_its_knockout(event: MatchFinished) -> None:
    """A knockout's game finished: decide its tie or schedule the tie's next game, and
    start the next round once this one is decided (``advance_knockout``, in a transaction
    of its own, after the result committed; safe to run twice). Should it fail, it is
    logged, and the organiser's "advance now" catches up."""
    knockout_id = (
        KnockoutGame.objects.filter(match_id=event.match_id)
        .values_list("tie__knockout_id", flat=True)
        .first()
    )
    if knockout_id is not None:
        advance_knockout(tournament_id=knockout_id)


def subscribe_all() -> None:
    """Called once, from ``TournamentsConfig.ready()``."""
    subscribe(MemberRemoved, withdraw_from_their_fixtures, phase=Phase.IN_TRANSACTION)
    subscribe(MatchFinished, pair_the_next_swiss_round)
    subscribe(MatchFinished, advance_its_knockout, phase=Phase.AFTER_COMMIT)
