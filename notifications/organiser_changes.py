"""Recording the notices of an organiser's change to a fixture, where the change is made.

The organiser services (``tournaments/services/organising.py``) call these under the match lock,
in the transaction that makes the change and writes its ``OrganiserAction``; each notice is
keyed by that action, so the same change never tells anyone twice, and a later change tells
them again. What each says is built when it is sent (``notifications/organiser_content.py``).

- a kick-off moved (rescheduled, or its round postponed): each seated player;
- a substitution: the player replaced, the opponent (``substitute``) and the newcomer (a
  ``fixture`` notice, as for anyone seated in a fixture);
- a cancellation, an adjudication, a void, a withdrawal: the match's end, told to each seated
  player by the result notice (``notices.match_finished``), which names the ruling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifications.models import Kind
from notifications.notices import Spec, record

if TYPE_CHECKING:
    from accounts.models import Member
    from matches.models import Match, OrganiserAction, Seat


def _told(member: Member | None) -> bool:
    """A member who hears of their matches (not the computer's account, which cannot sign in)."""
    return member is not None and member.is_active


def kickoff_moved(match: Match, seats: list[Seat], action: OrganiserAction) -> None:
    """The fixture's kick-off moved (``action``: a reschedule or a round's postponement)."""
    record(
        Spec(
            key=f"moved:{match.id}:{seat.member_id}:{action.pk}",
            member_id=seat.member_id,
            kind=Kind.MOVED,
            match_id=match.id,
            organiser_action_id=action.pk,
        )
        for seat in seats
        if seat.member_id is not None and _told(seat.member)
    )


def seat_substituted(
    match: Match, seats: list[Seat], action: OrganiserAction, *, outgoing: Member
) -> None:
    """``action`` put a newcomer in ``outgoing``'s seat: the newcomer has a fixture, the
    player replaced and the opponent are told who plays now."""
    position = int(action.details["position"])
    incoming, opponent = seats[position].member, seats[1 - position].member
    specs = []
    if incoming is not None and _told(incoming):
        specs.append(
            Spec(
                key=f"fixture:{match.id}:{incoming.pk}:{action.pk}",
                member_id=incoming.pk,
                kind=Kind.FIXTURE,
                match_id=match.id,
                organiser_action_id=action.pk,
            )
        )
    for member in (outgoing, opponent):
        if member is not None and _told(member):
            specs.append(
                Spec(
                    key=f"substitute:{match.id}:{member.pk}:{action.pk}",
                    member_id=member.pk,
                    kind=Kind.SUBSTITUTE,
                    match_id=match.id,
                    organiser_action_id=action.pk,
                )
            )
    record(specs)
