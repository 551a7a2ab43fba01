"""News of a rounds match on the channel layer: one batch a commit, to its group.

Every frame is built from ``matches.visibility.rounds`` output (``rounds.payloads``) and
encoded once here; a private item (a player's own tray) names its member, and the socket
(``rounds.consumer``) hands it to that member's sockets only. Sent only after the commit
(``matches.news.publish_to_groups_on_commit``): a rolled-back change announces nothing.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from matches.news import publish_to_groups_on_commit
from rounds.schemas import RoundStartedFrame, Shape, encode


def rounds_group(match_id: int) -> str:
    """Every socket on the rounds match."""
    return f"rounds.{match_id}"


class RoundsNewsItem(TypedDict):
    """One frame, encoded; ``member_id`` set: for that member's sockets only."""

    kind: str
    member_id: int | None
    text: str


class RoundsNewsBatch(TypedDict):
    type: Literal["rounds.news"]
    match_id: int
    items: list[RoundsNewsItem]


def public_item(frame: Shape) -> RoundsNewsItem:
    kind = str(getattr(frame, "type", "news"))
    return RoundsNewsItem(kind=kind, member_id=None, text=encode(frame))


def private_item(member_id: int, frame: RoundStartedFrame) -> RoundsNewsItem:
    return RoundsNewsItem(kind=frame.type, member_id=member_id, text=encode(frame))


def publish_on_commit(match_id: int, items: list[RoundsNewsItem]) -> None:
    """Send ``items`` to the match's sockets once the transaction commits."""
    if items:
        batch = RoundsNewsBatch(type="rounds.news", match_id=match_id, items=items)
        publish_to_groups_on_commit([(rounds_group(match_id), batch)])
