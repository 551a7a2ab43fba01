"""The shapes notices travel in: what a notice says, the push payload, a browser's
subscription as it arrives. Defined once, validated both ways (pydantic)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import AnyHttpUrl, BaseModel, ConfigDict, Field

NoticeKind = Literal[
    "your_move",
    "fixture",
    "kickoff",
    "forfeit",
    "result",
    "digest",
    # ---- organiser changes (notifications/organiser_content.py)
    "moved",
    "substitute",
    # ---- a new round of a Swiss or a knockout (notifications/rounds.py)
    "round",
    # ---- friendly games (notifications/friendlies.py)
    "challenge",
    "rematch",
    # ---- a Word Skill round dealt (notifications/round_ready.py)
    "ready",
]


class NoticeContent(BaseModel):
    """What one notice says to its member, built from what visibility lets them see.

    Public facts only (names, scores, deadlines, results): no field can hold a rack or
    anything about the bag.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: NoticeKind
    match_id: int | None = None
    subject: str
    headline: str
    lines: list[str]
    url: str
    action: str
    # A fixture's kick-off and name, for its calendar attachment.
    kickoff_at: datetime | None = None
    match_name: str | None = None
    # The attachment's SEQUENCE and whether it cancels the event (organiser changes).
    calendar_sequence: int = 0
    calendar_cancelled: bool = False


class PushPayload(BaseModel):
    """The JSON a browser's service worker receives (encrypted by the push service's
    protocol) and shows as a notification."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: NoticeKind
    title: str
    body: str
    url: str
    tag: str

    @classmethod
    def of(cls, content: NoticeContent) -> PushPayload:
        tag = f"wordduel-{content.kind}-{content.match_id or 0}"
        return cls(
            kind=content.kind,
            title=content.subject,
            body=" ".join(content.lines),
            url=content.url,
            tag=tag,
        )


class SubscriptionKeys(BaseModel):
    model_config = ConfigDict(extra="ignore")

    p256dh: str = Field(min_length=20, max_length=200, pattern=r"^[A-Za-z0-9_\-=]+$")
    auth: str = Field(min_length=8, max_length=100, pattern=r"^[A-Za-z0-9_\-=]+$")


class SubscriptionIn(BaseModel):
    """``PushSubscription.toJSON()`` as a browser sends it."""

    model_config = ConfigDict(extra="ignore")

    endpoint: AnyHttpUrl
    keys: SubscriptionKeys


class EndpointIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    endpoint: AnyHttpUrl


class Answer(BaseModel):
    """The push endpoints' answer: ``ok``, or a refusal's code and message."""

    ok: bool
    code: str = ""
    message: str = ""


class WaitingMatchOut(BaseModel):
    """One match waiting on the member's move, as the match page's script reads it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int
    name: str
    opponent: str | None
    turn_deadline_at: datetime | None
    url: str


class WaitingList(BaseModel):
    """Every match waiting on the member's move, most urgent first (``/notifications/waiting/``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    matches: list[WaitingMatchOut]
