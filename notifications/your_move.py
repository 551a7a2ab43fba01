"""The in-page side of "your move": which board waits for the member next, and the list of
every match waiting on them that the match page's script (``your_move.js``) reads."""

from __future__ import annotations

from django.urls import reverse

from accounts.models import Member
from matches import selectors
from matches.selectors import WaitingMatch
from notifications.schemas import WaitingList, WaitingMatchOut


def next_waiting(member: Member, *, after: int | None) -> WaitingMatch | None:
    """The board to go to from match ``after``: the next one waiting on the member in order
    of urgency, wrapping round (so pressing the button again walks through all of them), the
    current one skipped; from anywhere else, the most urgent. None when nothing else waits."""
    waiting = selectors.matches_waiting_on(member)
    ids = [line.id for line in waiting]
    if after in ids:
        index = ids.index(after)
        waiting = waiting[index + 1 :] + waiting[:index]
    return waiting[0] if waiting else None


def waiting_list(member: Member) -> WaitingList:
    return WaitingList(
        matches=[
            WaitingMatchOut(
                id=line.id,
                name=line.name,
                opponent=line.opponent,
                turn_deadline_at=line.turn_deadline_at,
                url=reverse("match", args=[line.id]),
            )
            for line in selectors.matches_waiting_on(member)
        ]
    )
