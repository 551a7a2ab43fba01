"""The API's shapes for challenges and rematches (pydantic, defined once: the OpenAPI document
at ``/api/schema/`` is generated from them)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from matches.schemas import Shape


class ChallengeIn(BaseModel):
    """A challenge to post: every field optional (the word-duel ruleset, unrated, open to any
    member)."""

    model_config = ConfigDict(extra="ignore")

    ruleset: StrictStr = Field(default="word-duel", description="A ruleset's name.")
    rated: StrictBool = Field(default=False, description="Whether the result moves ratings.")
    opponent: StrictStr = Field(
        default="",
        max_length=150,
        description="The username of the one member who may accept; empty for anyone.",
    )


class ChallengeOut(Shape):
    """An open challenge as the caller sees it."""

    id: int
    poster: str
    opponent: str = Field(description="Empty when any member may accept.")
    ruleset: str
    rated: bool
    posted_at: datetime
    expires_at: datetime
    yours: bool = Field(description="The caller posted it (and may withdraw it).")
    can_accept: bool


class ChallengeList(Shape):
    """The open, unexpired challenges the caller may see, newest first."""

    results: list[ChallengeOut]


class ChallengeState(Shape):
    """A challenge after a change: its status, and its match once accepted."""

    id: int
    status: Literal["open", "accepted", "withdrawn"]
    match_id: int | None = None


class RematchOut(Shape):
    """A rematch offer after a change: its status, and the new match once both agreed."""

    match_id: int = Field(description="The finished match the rematch follows.")
    status: Literal["offered", "accepted", "declined"]
    offered_by: str
    rematch_id: int | None = None
