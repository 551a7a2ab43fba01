"""Every message shape of Word Skill rounds, defined once: the socket's frames, the API's
answers and bodies (docs/PROTOCOL.md, "Word Skill rounds", is checked against these).

Output models forbid extra fields (``matches.schemas.Shape``); client frames refuse unknown
fields and loose types (``matches.schemas.Request``). Players are numbered from 0 in the
order they joined (the host is 0); a board row is a string (``.`` empty, capitals tiles,
lower case blanks); a tray is a string of letters, ``?`` for a blank.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from matches.schemas import (
    MAX_INT,
    MAX_RACK_TILES,
    ClientId,
    ErrorFrame,
    Request,
    Shape,
    Sparse,
    TileIn,
    TileView,
    When,
    WordView,
)

RoundsStatus = Literal["open", "live", "finished"]
PlayerStatus = Literal["played", "passed", "timed_out", "absent"]
DecidedBy = Literal["score", "speed", "order", "draw"]
RoundsEndReason = Literal["", "supply_low", "no_play", "no_words"]
Player = Annotated[int, Field(ge=0, le=15, description="A player's number: 0 is the host.")]
RoundNumber = Annotated[int, Field(ge=1, le=MAX_INT)]
#: A duration in whole seconds, as a body gives it (the service checks the match's range).
Seconds = Annotated[int, Field(ge=1, le=30 * 24 * 3600)]
Tray = Annotated[str, Field(pattern=r"^[A-Z?]{0,7}$", description="Letters, ? for a blank.")]


# ---------------------------------------------------------------- pieces


class RoundsSettings(Shape):
    """The match's settings: each player's own time for a round, the round's whole time."""

    turn_seconds: int = Field(description="A player's own time for a round, from their start.")
    round_seconds: int = Field(description="How long a round stays open from its deal.")
    rated: bool = Field(description="A one-to-one game against Gramma Ana, rated with Elo.")
    gramma_cap: int | None = Field(
        description="The highest word difficulty Gramma Ana plays (null: she is not playing)."
    )


class RoundsPlayerView(Shape):
    """One player, as everyone sees them: whether they started and finished the open round
    (never what they played, before it closes)."""

    position: Player
    name: str
    member_id: int | None
    gramma_ana: bool
    total: int
    place: int | None = Field(description="1: won (level totals share); null until the end.")
    started: bool = Field(description="Started the open round.")
    submitted: bool = Field(description="Played or passed in the open round.")


class SubmissionView(Shape):
    """A play or a pass for a round: its tiles, words and score, how long it took."""

    player: Player
    kind: Literal["play", "pass"]
    tiles: list[TileView]
    words: list[WordView]
    score: int
    bingo: bool
    elapsed_ms: int = Field(description="From the player's start of the round to this.")


class PlayerRound(Shape):
    """What one player did in a closed round, and what it scored."""

    player: Player
    status: PlayerStatus
    score: int
    submission: SubmissionView | None


class RoundResult(Shape):
    """A closed round: every play revealed, the one placed and why, the totals after it."""

    number: RoundNumber
    tray: Tray
    players: list[PlayerRound]
    placed: Player | None = Field(description="Whose play was placed (null: no word).")
    decided_by: DecidedBy | None
    drawn_among: list[Player] = Field(description="The players a draw chose among.")
    totals: list[int]
    drawn: Tray | None = Field(
        description="The tiles drawn for the next tray: public once the match is over."
    )
    redealt: list[Tray] = Field(
        description="Trays dealt for this round before its tray and put back: no play possible."
    )


class OwnRound(Shape):
    """The open round as its player sees it once they started: their tray and their clock."""

    number: RoundNumber
    tray: Tray
    started_at: When
    ends_at: When
    submission: SubmissionView | None


class RoundsView(Sparse):
    """The whole rounds match as this viewer may see it."""

    id: int
    name: str
    status: RoundsStatus
    host: str
    settings: RoundsSettings
    players: list[RoundsPlayerView]
    round_number: int = Field(description="The open round (the last one, once over; 0 before).")
    round_deadline_at: When | None
    board: list[str]
    bag_count: int
    bag_commitment: str = Field(pattern="^[0-9a-f]{64}$")
    bag_seed: str | None = Field(description="The bag's seed: public once the match is over.")
    your_position: Player | None
    your_round: OwnRound | None = Field(
        description="Your tray and clock, once you started the open round."
    )
    rounds: list[RoundResult]
    redealt: list[Tray] = Field(
        description="Trays dealt for the open round before its tray and put back: no play possible."
    )
    unplayable: list[Tray] = Field(
        description="At a no_play end: every tray dealt for the round that never opened."
    )
    end_reason: RoundsEndReason
    winners: list[Player]


class RoundReady(Shape):
    """Round ``number`` was dealt: press "Start round" to see its tray."""

    number: RoundNumber
    deadline_at: When


class RoundProgress(Shape):
    """Who has started and who has finished the open round (never what they played)."""

    number: RoundNumber
    started: list[bool]
    submitted: list[bool]


class RoundsJoined(Shape):
    """A member joined the open match: every player now, in order (public)."""

    players: list[RoundsPlayerView]


class RoundsEnded(Shape):
    """The match is over: the totals, the winners, the bag's seed to check it."""

    status: Literal["finished"] = "finished"
    end_reason: RoundsEndReason
    totals: list[int]
    places: list[int | None]
    winners: list[Player]
    bag_seed: str = Field(pattern="^[0-9a-f]{64}$")
    bag_commitment: str = Field(pattern="^[0-9a-f]{64}$")


# ---------------------------------------------------------------- client frames


class RoundsSyncRequest(Request):
    """Ask for a fresh snapshot."""

    type: Literal["sync"]
    id: ClientId | None = None


class StartRoundRequest(Request):
    """Start round ``round``: your tray shows and your timer runs."""

    type: Literal["start_round"]
    id: ClientId
    round: RoundNumber


class RoundPlayRequest(Request):
    """Play these tiles from the tray in round ``round``."""

    type: Literal["play"]
    id: ClientId
    round: RoundNumber
    tiles: Annotated[list[TileIn], Field(min_length=1, max_length=MAX_RACK_TILES)]


class RoundPassRequest(Request):
    """Pass in round ``round`` (it scores 0)."""

    type: Literal["pass"]
    id: ClientId
    round: RoundNumber


RoundsClientFrame = Annotated[
    RoundsSyncRequest | StartRoundRequest | RoundPlayRequest | RoundPassRequest,
    Field(discriminator="type"),
]
ROUNDS_REQUESTS = TypeAdapter(RoundsClientFrame)
ROUNDS_REQUEST_TYPES = ("sync", "start_round", "play", "pass")


# ---------------------------------------------------------------- server frames


class RoundsSnapshotFrame(Sparse):
    """The match as this viewer may see it: on connect and on ``sync``."""

    omitted_when_none = frozenset({"id"})

    type: Literal["snapshot"] = "snapshot"
    reason: Literal["connect", "sync"]
    snapshot: RoundsView
    id: str | None = None


class StartedAck(Shape):
    """Your start of the round was taken: your tray and your clock."""

    type: Literal["ack"] = "ack"
    id: str
    accepted: Literal[True] = True
    code: Literal["started"] = "started"
    round: OwnRound


class SubmittedAck(Shape):
    """Your play or pass was taken (nobody else sees it before the round closes)."""

    type: Literal["ack"] = "ack"
    id: str
    accepted: Literal[True] = True
    code: Literal["submitted"] = "submitted"
    submission: SubmissionView


class RoundsRefusedAck(Shape):
    """A request its service refused: nothing changed."""

    type: Literal["ack"] = "ack"
    id: str
    accepted: Literal[False] = False
    code: str
    message: str


class _RoundsEvent(Shape):
    match_id: int


class RoundReadyFrame(_RoundsEvent):
    type: Literal["round_ready"] = "round_ready"
    data: RoundReady


class RoundStartedFrame(_RoundsEvent):
    """Private, to the player who started (each of their sockets): their tray and clock."""

    type: Literal["round_started"] = "round_started"
    data: OwnRound


class RoundProgressFrame(_RoundsEvent):
    type: Literal["progress"] = "progress"
    data: RoundProgress


class RoundClosedFrame(_RoundsEvent):
    type: Literal["round_closed"] = "round_closed"
    data: RoundResult


class RoundsJoinedFrame(_RoundsEvent):
    type: Literal["joined"] = "joined"
    data: RoundsJoined


class RoundsEndedFrame(_RoundsEvent):
    type: Literal["ended"] = "ended"
    data: RoundsEnded


RoundsEventFrame = (
    RoundsJoinedFrame | RoundReadyFrame | RoundProgressFrame | RoundClosedFrame | RoundsEndedFrame
)
RoundsServerFrame = (
    RoundsSnapshotFrame
    | ErrorFrame
    | StartedAck
    | SubmittedAck
    | RoundsRefusedAck
    | RoundsJoinedFrame
    | RoundReadyFrame
    | RoundStartedFrame
    | RoundProgressFrame
    | RoundClosedFrame
    | RoundsEndedFrame
)
ROUNDS_SERVER_TYPES = (
    "snapshot",
    "error",
    "ack",
    "joined",
    "round_ready",
    "round_started",
    "progress",
    "round_closed",
    "ended",
)


# ---------------------------------------------------------------- HTTP bodies


class RoundsOpenIn(Request):
    """Open a rounds match (you are its host and first player)."""

    name: Annotated[str, Field(min_length=1, max_length=120)]
    turn_seconds: Seconds = 180
    round_seconds: Seconds = 24 * 3600
    gramma_ana: bool = Field(default=False, description="Gramma Ana plays too.")


class GrammaAnaIn(Request):
    """Play Gramma Ana one to one (rated with Word Skill's Elo), started at once."""

    turn_seconds: Seconds = 180


class StartRoundIn(Request):
    round: RoundNumber


class SubmitIn(Request):
    """A play (``tiles``) or a pass (``pass_``: ``{"round": 3, "pass": true}``)."""

    round: RoundNumber
    tiles: Annotated[list[TileIn], Field(max_length=MAX_RACK_TILES)] = Field(default_factory=list)
    pass_: bool = Field(default=False, alias="pass")


class RoundsAnswer(Shape):
    """An API change's answer: the match as the caller now sees it."""

    code: Literal["opened", "joined", "started", "round_started", "submitted"]
    state: RoundsView


def encode(frame: Shape) -> str:
    """A frame as compact JSON text, as it goes on the wire."""
    return frame.model_dump_json()
