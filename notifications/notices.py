"""Recording notices where their cause happens, and queuing them after its commit.

The match services call these under the match lock, inside the transaction that makes the
change; each writes its notice rows there (unique keys: a replayed commit, a retried task or
a sweep run twice adds nothing) and queues their delivery with ``transaction.on_commit``, so
a change that rolls back tells nobody anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from notifications.batching import dispatch_soon
from notifications.models import Kind, Notice

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class Spec:
    """A notice to record: its unique key and what it is about."""

    key: str
    member_id: int
    kind: str
    match_id: int | None = None
    turn_number: int | None = None
    hours: int | None = None
    organiser_action_id: int | None = None  # an organiser's change (organiser_changes.py)
    challenge_id: int | None = None
    rounds_match_id: int | None = None  # a Word Skill round dealt (round_ready.py)


def your_move_key(match_id: int, turn_number: int, member_id: int) -> str:
    return f"your_move:{match_id}:{turn_number}:{member_id}"


def fixture_key(match_id: int, member_id: int) -> str:
    """A fixture's notice to one player (a new round's shares it: notifications/rounds.py)."""
    return f"fixture:{match_id}:{member_id}"


def record(specs: Iterable[Spec], *, now: datetime | None = None) -> list[str]:
    """Write the notices (those not written before) and queue their delivery after commit."""
    rows = unwritten(specs, now=now)
    if not rows:
        return []
    # One statement for them all; a key written before is left as it is, so a replay or a
    # rerun adds nothing.
    Notice.objects.bulk_create(rows, ignore_conflicts=True)
    return [row.key for row in rows]


def unwritten(specs: Iterable[Spec], *, now: datetime | None = None) -> list[Notice]:
    """The notices' rows, for the caller to write (a key written before left as it is:
    ``ignore_conflicts``) in this transaction; their delivery is queued after its commit."""
    specs = list(specs)
    if not specs:
        return []
    now = now or timezone.now()
    rows = [
        Notice(
            key=spec.key,
            member_id=spec.member_id,
            kind=spec.kind,
            match_id=spec.match_id,
            turn_number=spec.turn_number,
            hours=spec.hours,
            organiser_action_id=spec.organiser_action_id,
            challenge_id=spec.challenge_id,
            rounds_match_id=spec.rounds_match_id,
            created_at=now,
        )
        for spec in specs
    ]
    keys = [spec.key for spec in specs]
    transaction.on_commit(lambda: queue_dispatch(keys), robust=True)
    return rows


def queue_dispatch(keys: list[str]) -> None:
    """Hand the notices to a Celery worker, with the others of this process's short window
    (:mod:`notifications.batching`; at once in the quick start). A notice whose task is lost
    is dispatched by the next sweep."""
    dispatch_soon(keys)


# ---------------------------------------------------------------- the services' hooks


def your_move(*, match_id: int, turn_number: int, member_id: int) -> None:
    """At kick-off, or after a move that did not end the match: the player to move."""
    record(_your_move_specs(match_id=match_id, turn_number=turn_number, member_id=member_id))


def your_move_rows(*, match_id: int, turn_number: int, member_id: int) -> list[Notice]:
    """:func:`your_move`'s notice, unwritten: for a move that writes its rows together."""
    return unwritten(
        _your_move_specs(match_id=match_id, turn_number=turn_number, member_id=member_id)
    )


def _your_move_specs(*, match_id: int, turn_number: int, member_id: int) -> list[Spec]:
    return [
        Spec(
            key=your_move_key(match_id, turn_number, member_id),
            member_id=member_id,
            kind=Kind.YOUR_MOVE,
            match_id=match_id,
            turn_number=turn_number,
        )
    ]


def match_finished(*, match_id: int, member_ids: Iterable[int]) -> None:
    """The result, to each seated player who hears of their matches."""
    record(
        Spec(
            key=f"result:{match_id}:{member_id}",
            member_id=member_id,
            kind=Kind.RESULT,
            match_id=match_id,
        )
        for member_id in member_ids
    )


def fixture_scheduled(match_id: int, member_ids: Iterable[int | None]) -> None:
    """A fixture scheduled with these members seated."""
    record(
        Spec(
            key=fixture_key(match_id, member_id),
            member_id=member_id,
            kind=Kind.FIXTURE,
            match_id=match_id,
        )
        for member_id in member_ids
        if member_id is not None
    )
