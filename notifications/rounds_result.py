"""'You won: <match>' / 'You came second of 4: <match>': a Word Skill rounds match ended
(``RoundsMatchEnded``), told to each member who played it with the final table, as a table's
result is told (a ``result`` notice: chosen with the other results, by email and by push).

Recorded in the end's transaction; what it says is built when it is sent, from what
``matches.visibility.rounds`` lets the member see (names, totals, places: public once the
match is over)."""

from __future__ import annotations

from datetime import datetime

from common.events import RoundsMatchEnded
from matches.visibility.rounds import FinalPlayer, rounds_result_sight
from notifications.models import Kind, Notice, NotificationSettings
from notifications.notices import Spec, record
from notifications.schemas import NoticeContent
from notifications.wording import Stale, absolute, place_outcome

#: Why a rounds match ended, in words (RULES.md section 19).
_ENDINGS = {
    "supply_low": "fewer than seven tiles were left for a tray",
    "no_play": "no tray dealt had a play on the board",
    "no_words": "three rounds in a row placed no word",
}


def result_key(rounds_match_id: int, member_id: int) -> str:
    return f"rounds_result:{rounds_match_id}:{member_id}"


def rounds_match_ended(event: RoundsMatchEnded) -> None:
    """Each member who played the match (not Gramma Ana): one result notice."""
    record(
        Spec(
            key=result_key(event.rounds_match_id, member_id),
            member_id=member_id,
            kind=Kind.RESULT,
            rounds_match_id=event.rounds_match_id,
        )
        for member_id, _place in event.places
    )


def content(notice: Notice, prefs: NotificationSettings, *, now: datetime) -> NoticeContent | Stale:
    """The member's place and the final table, once the match is over."""
    match = notice.rounds_match
    if match is None:
        return Stale("no rounds match")
    players = [
        FinalPlayer(
            position=p.position,
            name=p.name,
            total=p.total,
            place=p.place,
            member_id=p.member_id,
        )
        for p in match.players.select_related("member").order_by("position")
    ]
    sight = rounds_result_sight(
        name=match.name,
        over=match.is_over,
        end_reason=match.end_reason,
        rounds=match.round_number,
        players=players,
        member_id=notice.member_id,
    )
    if sight is None:
        return Stale("the match is not over, or the member did not play it")
    headline = place_outcome(sight.place, shared=sight.shared, count=len(sight.table))
    table = ", ".join(
        f"{line.place}. {line.name} {line.total}{' (you)' if line.you else ''}"
        for line in sight.table
    )
    ending = _ENDINGS.get(sight.end_reason, "")
    over = f"{sight.name} is over after {sight.rounds} round{'s' if sight.rounds != 1 else ''}"
    return NoticeContent(
        kind="result",
        subject=f"{headline}: {sight.name}",
        headline=headline,
        lines=[f"{over}{': ' + ending if ending else ''}.", f"Final table: {table}."],
        url=absolute(f"/rounds/{match.pk}/"),
        action="See the final table",
    )
