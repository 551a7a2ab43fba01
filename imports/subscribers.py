"""What the imports app hears (common/events.py): a deleted member's imported games go."""

from __future__ import annotations

from common.events import MemberForgotten, Phase, subscribe
from imports.models import ImportedGame


def forget_their_imports(event: MemberForgotten) -> None:
    """Imported games are only about their owner: they go with the account's data."""
    ImportedGame.objects.filter(owner_id=event.member_id).delete()


def subscribe_all() -> None:
    """Called once, from ``ImportsConfig.ready()``."""
    subscribe(MemberForgotten, forget_their_imports, phase=Phase.IN_TRANSACTION)
