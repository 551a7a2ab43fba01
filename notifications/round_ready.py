"""'Round n is ready: <match>': a Word Skill round dealt, told to each member playing it
(``RoundDealt``), as "your move" is told (chosen with it, by email and by push).

Recorded in the deal's transaction; what it says is built when it is sent, from what
``matches.visibility.rounds`` lets the member see (the match's name and the round: never a
tray), and only while it holds (the round still open, not yet started by them)."""

from __future__ import annotations

from datetime import datetime

from common.events import RoundDealt
from matches.visibility.rounds import round_ready_sight
from notifications.models import Kind, Notice, NotificationSettings
from notifications.notices import Spec, record
from notifications.schemas import NoticeContent
from notifications.wording import Stale, absolute


def ready_key(rounds_match_id: int, number: int, member_id: int) -> str:
    return f"ready:{rounds_match_id}:{number}:{member_id}"


def round_dealt(event: RoundDealt) -> None:
    """Each member playing the match: one notice for the round dealt."""
    record(
        Spec(
            key=ready_key(event.rounds_match_id, event.number, member_id),
            member_id=member_id,
            kind=Kind.READY,
            turn_number=event.number,
            rounds_match_id=event.rounds_match_id,
        )
        for member_id in event.member_ids
    )


def content(notice: Notice, prefs: NotificationSettings, *, now: datetime) -> NoticeContent | Stale:
    """What the notice says while its round is open and the member has not started it."""
    match = notice.rounds_match
    if match is None or notice.turn_number is None:
        return Stale("no rounds match")
    player = match.players.filter(member_id=notice.member_id).first()
    sight = round_ready_sight(
        name=match.name,
        number=notice.turn_number,
        game_state=match.game_state,
        position=None if player is None else player.position,
    )
    if sight is None:
        return Stale("the round is closed or already started")
    return NoticeContent(
        kind="ready",
        subject=f"Round {sight.number} is ready: {sight.name}",
        headline=f"Round {sight.number} is ready",
        lines=[
            (
                f"Round {sight.number} of {sight.name} has been dealt. Press Start round "
                f"{sight.number} when you are ready: your tray shows and your own timer starts."
            )
        ],
        url=absolute(f"/rounds/{match.pk}/"),
        action=f"Start round {sight.number}",
    )
