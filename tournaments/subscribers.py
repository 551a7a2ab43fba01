"""What the tournaments app hears (common/events.py): a member removed from the club leaves
every fixture of theirs that is not over, in the removal's own transaction."""

from __future__ import annotations

from accounts.models import Member
from common.events import MemberRemoved, Phase, subscribe
from tournaments.services.organising import member_withdraw


def withdraw_from_their_fixtures(event: MemberRemoved) -> None:
    """As RULES.md section 3 says (``member_withdraw``); a refusal rolls the removal back."""
    member_withdraw(
        organiser=Member.objects.get(pk=event.by_id),
        member_id=event.member_id,
        reason=event.reason,
        substitute_id=event.substitute_id,
    )


def subscribe_all() -> None:
    """Called once, from ``TournamentsConfig.ready()``."""
    subscribe(MemberRemoved, withdraw_from_their_fixtures, phase=Phase.IN_TRANSACTION)
