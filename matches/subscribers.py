"""What the matches core hears from the apps below it (common/events.py): a member's
sessions ended, so their sockets close; a member is leaving, so their matches are settled."""

from __future__ import annotations

from accounts.models import Member
from common.events import MemberLeaving, Phase, SessionsEnded, subscribe
from matches.news import publish_sign_out
from matches.services.departure import member_leave_matches


def close_their_sockets(event: SessionsEnded) -> None:
    """After commit: every process closes the member's sockets on the sessions that ended."""
    publish_sign_out(member_id=event.member_id, session_key=event.session_key)


def settle_their_matches(event: MemberLeaving) -> None:
    """Resign their live matches and give up their seats in fixtures not yet started, each
    under its own lock, before the account is anonymised."""
    member = Member.objects.get(pk=event.member_id)
    event.settled.extend(member_leave_matches(member=member))


def subscribe_all() -> None:
    """Called once, from ``MatchesConfig.ready()``."""
    subscribe(SessionsEnded, close_their_sockets)
    subscribe(MemberLeaving, settle_their_matches, phase=Phase.IN_TRANSACTION)
