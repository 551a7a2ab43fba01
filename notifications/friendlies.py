"""Notices of friendly games: a challenge addressed to a member, a rematch offered, and
"your move" in a practice game against the computer (sent only to members who ask for it).

The challenge services record these where their cause happens (in its transaction, queued
after its commit, like every notice: :mod:`notifications.notices`); what each says is built
when it is sent, and one that no longer holds (the challenge was accepted, withdrawn or has
expired; the rematch was answered) is not sent.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from django.urls import reverse

from common.events import ChallengePosted, RematchOffered
from matches import visibility
from notifications.models import Kind, Notice, NotificationSettings
from notifications.notices import Spec, record
from notifications.schemas import NoticeContent
from notifications.wording import Stale, absolute, local_time

if TYPE_CHECKING:
    pass


# ---------------------------------------------------------------- heard from the services (events)


def challenge_posted(event: ChallengePosted) -> None:
    """A challenge addressed to one member: that member is told (one open to anyone, no one)."""
    if event.opponent_id is None:
        return
    record(
        [
            Spec(
                key=f"challenge:{event.challenge_id}:{event.opponent_id}",
                member_id=event.opponent_id,
                kind=Kind.CHALLENGE,
                challenge_id=event.challenge_id,
            )
        ]
    )


def rematch_offered(event: RematchOffered) -> None:
    """A rematch offered to the other player: once per match."""
    record(
        [
            Spec(
                key=f"rematch:{event.match_id}:{event.member_id}",
                member_id=event.member_id,
                kind=Kind.REMATCH,
                match_id=event.match_id,
            )
        ]
    )


# ---------------------------------------------------------------- who wants what


def against_the_computer(match_id: int | None) -> bool:
    """Whether the computer holds a seat of the match (a practice game, or a bye filler)."""
    from practice.models import ComputerOpponent  # noqa: PLC0415 (practice imports us)

    return match_id is not None and ComputerOpponent.objects.filter(match_id=match_id).exists()


def wanted(notice: Notice, prefs: NotificationSettings) -> bool:
    """Whether the member wants this notice at all, whatever the channel: "your move" in a
    game against the computer only with ``practice_your_move`` on."""
    if notice.kind != Kind.YOUR_MOVE or prefs.practice_your_move:
        return True
    return not against_the_computer(notice.match_id)


# ---------------------------------------------------------------- what they say


def challenge(notice: Notice, prefs: NotificationSettings, *, now: datetime):
    """A challenge addressed to the member, while it is still theirs to accept."""
    from challenges.models import Challenge  # noqa: PLC0415 (challenges imports us)

    if notice.challenge_id is None:
        return Stale("no challenge")
    found = Challenge.objects.select_related("poster").filter(pk=notice.challenge_id).first()
    if found is None or not found.is_open_at(now) or found.opponent_id != notice.member_id:
        return Stale("the challenge is no longer open to the member")
    if not visibility.is_club_member(notice.member):
        return Stale("the member is not an approved member")
    poster = found.poster.label
    rated = "rated" if found.rated else "unrated"
    return NoticeContent(
        kind="challenge",
        subject=f"{poster} challenges you to a game",
        headline="A challenge to you",
        lines=[
            f"{poster} challenges you to a game ({found.ruleset}, {rated}).",
            (
                f"Accept it on the Challenges page by {local_time(found.expires_at, prefs.zone)}: "
                f"the match begins at once, {poster} First and you Second."
            ),
        ],
        url=absolute(reverse("challenges:list")),
        action="See the challenge",
    )


def rematch(notice: Notice, access: visibility.MatchAccess, zone: ZoneInfo, now: datetime):
    """The other player's rematch offer on a finished friendly, while it is unanswered."""
    from challenges.models import RematchOffer  # noqa: PLC0415 (challenges imports us)

    match = access.match
    offer = RematchOffer.objects.filter(original_id=match.id).first()
    if (
        offer is None
        or offer.status != RematchOffer.Status.OFFERED
        or offer.offered_by_id == notice.member_id
    ):
        return Stale("no rematch is waiting for the member's answer")
    line = visibility.match_line(match, member_id=access.viewer.member_id)
    opponent = line.opponent or "Your opponent"
    return NoticeContent(
        kind="rematch",
        match_id=match.id,
        subject=f"{opponent} offers a rematch: {line.name}",
        headline="A rematch offered",
        lines=[
            f"{opponent} offers a rematch of {line.name}, with the seats swapped.",
            "Accept or decline it on the match page.",
        ],
        url=absolute(reverse("match", args=[match.id])),
        action="Answer on the match page",
    )
