"""A new round of a Swiss or a knockout, told to each player in it (``RoundPaired``).

Every match of the round was already announced to its players by its own
``FixtureScheduled`` (a ``fixture`` notice keyed ``fixture:<match>:<member>``), earlier in
the same transaction. So that no player hears twice of the same new match, the round's
notice takes that notice's place: the same key, its kind changed to ``round`` before
anything was sent (the delivery is queued after the commit), and written afresh only where
the fixture notice is missing. One notice a player a new match, saying which round it is
(what it says: ``content.round_content``).
"""

from __future__ import annotations

from common.events import RoundPaired
from notifications.models import Kind, Notice
from notifications.notices import Spec, fixture_key, record


def round_paired(event: RoundPaired) -> None:
    """Each seated player who hears of their matches: one ``round`` notice a new match."""
    specs = [
        Spec(
            key=fixture_key(paired.match_id, seat.member_id),
            member_id=seat.member_id,
            kind=Kind.ROUND,
            match_id=paired.match_id,
        )
        for paired in event.matches
        for seat in paired.seats
        if seat.member_id is not None and seat.told
    ]
    keys = [spec.key for spec in specs]
    Notice.objects.filter(key__in=keys, kind=Kind.FIXTURE).update(kind=Kind.ROUND)
    written = set(Notice.objects.filter(key__in=keys).values_list("key", flat=True))
    record(spec for spec in specs if spec.key not in written)
