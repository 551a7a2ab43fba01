"""Recording the notices of an organiser's change to a fixture, where the change is made.

The organiser services (``tournaments/services/organising.py``) emit ``KickoffMoved`` and
``SeatSubstituted`` under the match lock, in the transaction that makes the change and writes
its ``OrganiserAction``; these subscribe (``Phase.IN_TRANSACTION``), and each notice is
keyed by that action, so the same change never tells anyone twice, and a later change tells
them again. What each says is built when it is sent (``notifications/organiser_content.py``).

- a kick-off moved (rescheduled, or its round postponed): each seated player;
- a substitution: the player replaced, the opponent (``substitute``) and the newcomer (a
  ``fixture`` notice, as for anyone seated in a fixture);
- a cancellation, an adjudication, a void, a withdrawal: the match's end, told to each seated
  player by the result notice (``notices.match_finished``), which names the ruling.
"""

from __future__ import annotations

from common.events import KickoffMoved, SeatSubstituted
from notifications.models import Kind
from notifications.notices import Spec, record


def kickoff_moved(event: KickoffMoved) -> None:
    """The fixture's kick-off moved (a reschedule or a round's postponement): each seated
    player who hears of their matches."""
    record(
        Spec(
            key=f"moved:{event.match_id}:{seat.member_id}:{event.action_id}",
            member_id=seat.member_id,
            kind=Kind.MOVED,
            match_id=event.match_id,
            organiser_action_id=event.action_id,
        )
        for seat in event.seats
        if seat.member_id is not None and seat.told
    )


def seat_substituted(event: SeatSubstituted) -> None:
    """A newcomer took the replaced player's seat: the newcomer has a fixture, the player
    replaced and the opponent are told who plays now."""
    by_position = {seat.position: seat for seat in event.seats}
    incoming, opponent = by_position[event.position], by_position[1 - event.position]
    specs = []
    if incoming.member_id is not None and incoming.told:
        specs.append(
            Spec(
                key=f"fixture:{event.match_id}:{incoming.member_id}:{event.action_id}",
                member_id=incoming.member_id,
                kind=Kind.FIXTURE,
                match_id=event.match_id,
                organiser_action_id=event.action_id,
            )
        )
    for seat in (event.outgoing, opponent):
        if seat.member_id is not None and seat.told:
            specs.append(
                Spec(
                    key=f"substitute:{event.match_id}:{seat.member_id}:{event.action_id}",
                    member_id=seat.member_id,
                    kind=Kind.SUBSTITUTE,
                    match_id=event.match_id,
                    organiser_action_id=event.action_id,
                )
            )
    record(specs)
