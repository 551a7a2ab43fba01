"""Every message shape, defined once: client frames, server frames, events and API answers.

The consumer parses what a client sends into these models and builds what it sends from
them; :mod:`matches.visibility` returns them; the API (django-ninja) declares them, so its
OpenAPI document at ``/api/schema/`` is generated from here; ``manage.py protocol_schema``
writes the websocket protocol's JSON Schema (``docs/protocol.schema.json``) from here; the
tests validate what they receive against them. Output models forbid extra fields, so a
field that is not declared here cannot leave the server unnoticed.

Field names and values are the wire's: rows and columns are 0-based, seats are 0 (First)
and 1 (Second), a board row is a string (``.`` empty, capitals tiles, lower case blanks).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    WithJsonSchema,
    model_serializer,
)
from pydantic.json_schema import models_json_schema

from engine import BLANK, MAX_TAKES, PlacedTile, StealTake, SwapTake, Take, WordScore

#: The largest text frame accepted, in bytes of UTF-8.
MAX_FRAME_BYTES = 16 * 1024
#: A client id is stored with the answer it got (``CommitReceipt.client_id``).
MAX_CLIENT_ID_LENGTH = 64
#: Turn numbers and squares are small; anything beyond this is not a sane value.
MAX_INT = 2**31 - 1
#: A tile's letter is one character; a little slack lets the engine say what is wrong.
MAX_LETTER_LENGTH = 8


def _iso(value: datetime) -> str:
    return value.isoformat()


#: A moment, written as ISO 8601 with its offset (as ``datetime.isoformat`` writes it).
When = Annotated[
    datetime,
    PlainSerializer(_iso, return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time"}),
]

Seat = Annotated[
    int,
    Field(ge=0, le=3, description="0 is First, 1 is Second (2 Third, 3 Fourth at a table)."),
]
Status = Literal["scheduled", "live", "finished", "abandoned"]
#: ``table``: a table of 3-4, whose result is each seat's ``place``.
Result = Literal["", "first", "second", "draw", "table"]
EndReason = Literal[
    "",
    "played_out",
    "six_scoreless",
    "finish_line",
    "forfeit",
    "no_show",
    "abandoned",
    "resigned",
    "cancelled",
    "adjudicated",
    "voided",
    "withdrawn",
]
MoveKind = Literal["play", "swap", "pass"]
ChallengeRuleName = Literal["void", "single", "double", "five_point", "ten_point"]
#: What a match's ``name`` is, wherever it goes out (matches/visibility/titles.py).
TITLE = "The match's title: its own label and the members seated now (Round 1: alice v bob)."
Visibility = Literal["public", "members"]


class Shape(BaseModel):
    """What the server sends: frozen, and nothing undeclared."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Sparse(Shape):
    """A shape whose optional extras are left out, not sent as null, when they are absent."""

    omitted_when_none: ClassVar[frozenset[str]] = frozenset()

    # Left without a return type on purpose: the JSON Schema then stays the model's own.
    @model_serializer(mode="wrap")
    def _leave_out_absent(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        data: dict[str, Any] = handler(self)
        for name in self.omitted_when_none:
            if data.get(name, 0) is None:
                del data[name]
        return data


# ---------------------------------------------------------------- pieces of a position


class TileView(Shape):
    """A tile on the board: its square and face; ``blank`` when a blank stands for it."""

    row: int
    col: int
    letter: str = Field(pattern="^[A-Z]$")
    blank: bool


class WordView(Shape):
    """A word a play formed, where it starts, what it scored (as the move log keeps it).

    ``word`` is the word in capitals; ``tiles`` is as the board spells it, a blank's letter
    in lower case; ``position`` is GCG's: ``8H`` a word across from row 8, column H, ``H8``
    one going down. The first word of a play is its main word.
    """

    word: str
    tiles: str
    position: str
    score: int

    @classmethod
    def of(cls, word: WordScore) -> WordView:
        return cls(word=word.word, tiles=word.tiles, position=word.position, score=word.score)


class ChallengeView(Shape):
    """How a challenge of a play ended (public once decided)."""

    by: Seat = Field(description="The seat that challenged.")
    phonies: list[str] = Field(description="The play's words not in the lexicon (empty: good).")
    points: int = Field(
        description="The player's score change: minus the play's score when it was withdrawn,"
        " the bonus (0, 5 or 10) when it stood."
    )
    withdrawn: bool


class OpenPlayView(Shape):
    """The last play while it may be challenged: whose it is, who may challenge, until when."""

    turn_number: int = Field(description="The play's turn number (send it with ``challenge``).")
    player: Seat
    challengers: list[Seat]
    until: When | None = Field(description="When the window closes (or the next move, first).")


class TakeView(Shape):
    """Reword: one swap or steal of a take-play, as made (public: both tiles were on the
    board). ``letter``/``blank``: the board tile that went to the rack, as it showed (a blank
    goes back unlettered, ``?``); ``placed``/``placed_blank``: the rack tile a swap put on its
    square (null/false for a steal)."""

    take: Literal["swap", "steal"]
    row: int
    col: int
    letter: str = Field(pattern="^[A-Z]$", description="The board tile taken, as it showed.")
    blank: bool = Field(description="The tile taken was a blank (back on the rack as ?).")
    placed: str | None = Field(
        default=None, pattern="^[A-Z]$", description="A swap: the face of the rack tile put down."
    )
    placed_blank: bool = Field(default=False, description="A swap: it put down a blank.")


class MoveView(Shape):
    """One turn as everyone sees it; a swap is only a count."""

    number: int
    position: Seat
    kind: MoveKind
    tiles: list[TileView]
    swap_count: int
    words: list[WordView]
    score: int
    totals: tuple[int, ...] = Field(description="Every seat's total after the turn, in seat order.")
    bag_count: int
    at: When | None
    #: The turn log's chain (docs/RECORDS.md): the previous turn's record hash (the bag's
    #: commitment for turn 1), and SHA-256 of this turn's canonical public record.
    previous_hash: str = Field(pattern="^[0-9a-f]{64}$")
    record_hash: str = Field(pattern="^[0-9a-f]{64}$")
    challenge: ChallengeView | None = Field(
        default=None, description="The play's challenge, once decided (totals are after it)."
    )
    lost_turn: bool = Field(default=False, description="A turn lost to a wrong double challenge.")
    takes: list[TakeView] = Field(
        default_factory=list,
        description="Reword: the play's swaps and steals from the board, in the order made.",
    )


class SeatView(Shape):
    """Who sits where, their score and how many tiles they hold: public facts."""

    position: Seat
    label: str
    member_id: int | None
    name: str | None
    score: int
    rack_count: int = Field(ge=0)
    place: int | None = Field(default=None, description="1: won (ties share); null until the end.")


class RackAdjustment(Shape):
    """One end-of-game change to a seat's score for the tiles left on a rack.

    The tiles are a count and the points their value: the GCG record's end-of-game lines
    publish the same once the game is over (RECORDS.md); the letters stay with the rack.
    """

    position: Seat = Field(description="The seat whose score changes.")
    rack_owner: Seat = Field(
        description="Whose tiles were counted: the seat itself (a deduction), or the "
        "opponent's when the seat went out and gains them."
    )
    tile_count: int = Field(ge=0, description="How many tiles were left on that rack.")
    points: int = Field(description="Negative: deducted; positive: gained by going out.")
    totals: tuple[int, ...] = Field(description="Every seat's score after this change.")


class FinalScore(Shape):
    """How the final scores were reached: the scores after the last move, each rack's
    adjustment in the order applied, and the final scores (the seats' scores)."""

    before: tuple[int, ...] = Field(description="The scores after the last move.")
    adjustments: list[RackAdjustment] = Field(
        description="Empty when nothing was adjusted (a forfeit, or both racks empty)."
    )
    final: tuple[int, ...]


#: Says when ``final_score`` is filled, wherever it appears.
FINAL_SCORE_NOTE = (
    "How the final scores were reached; null until the game is over (and for a match that "
    "ended before the tiles were dealt)."
)


class UnseenTile(Shape):
    """One kind of tile the viewer has not seen, and how many (``?`` is a blank)."""

    tile: str = Field(pattern="^[A-Z?]$")
    count: int = Field(ge=1)


class UnseenTiles(Shape):
    """The tiles this viewer has not seen, as counts: the whole set less the tiles on the
    board (a blank there counts as a blank, not as its letter) and less the viewer's own
    rack. For a player that is the bag and the opponent's rack together, which the rules
    already make public as counts; for anyone else, the bag and both racks."""

    tiles: list[UnseenTile] = Field(
        description="A to Z, then ? (the blanks); a tile with none left unseen is left out."
    )
    total: int = Field(
        ge=0,
        description="For a player: bag_count plus the opponent's rack_count (once dealt).",
    )
    vowels: int = Field(ge=0, description="A, E, I, O and U.")
    consonants: int = Field(ge=0, description="The other letters (Y among them).")
    blanks: int = Field(ge=0)


#: Says what ``unseen`` holds, wherever it appears.
UNSEEN_NOTE = (
    "The tiles you have not seen: all the tiles less the board and your own rack (a "
    "spectator: less the board only). Before the deal, the whole set."
)


class AwayNotice(Shape):
    """A player's declared vacation in this tournament match (vacations app): not secret, so
    everyone who may watch sees it; their turn deadline pauses for those days."""

    position: Seat
    name: str
    first_day: date
    last_day: date
    away_now: bool = Field(description="True while the vacation is under way.")


class PublicMatch(Shape):
    """Everything about a match that everyone who may watch it may see."""

    match_id: int
    name: str = Field(description=TITLE)
    ruleset: str
    lexicon: str
    board_size: int
    visibility: Visibility
    status: Status
    result: Result
    end_reason: EndReason
    kickoff_at: When | None
    no_show_at: When | None
    turn_deadline_at: When | None
    turn_number: int
    to_move: Seat | None
    bag_count: int
    board: list[str] = Field(
        description="One string a row: '.' empty, capitals tiles, lower case blanks."
    )
    moves: list[MoveView]
    bag_commitment: str
    bag_seed: str | None = Field(description="Null until the match is over.")
    seats: list[SeatView]
    final_score: FinalScore | None = Field(description=FINAL_SCORE_NOTE)
    away: list[AwayNotice] = Field(
        default_factory=list,
        description="The players' declared vacations that have not ended (tournament matches"
        " only); turn_deadline_at already allows for them.",
    )
    seat_count: int = Field(default=2, ge=2, le=4)
    challenge_rule: ChallengeRuleName = "void"
    open_play: OpenPlayView | None = Field(
        default=None, description="The last play while it may be challenged; null otherwise."
    )

    def position(self) -> str:
        """What a move made on this position names as ``after``: the last turn's record hash
        (a challenge rewrites it), or the bag's commitment before turn 1."""
        return self.moves[-1].record_hash if self.moves else self.bag_commitment


class MatchView(PublicMatch):
    """The match as one viewer may see it: the public facts and, for a player, their rack."""

    your_seat: Seat | None
    rack: list[str] | None = Field(description="The viewer's own rack; null if not seated.")
    unseen: UnseenTiles = Field(description=UNSEEN_NOTE)
    can_share: bool
    viewing_key: str | None = Field(description="Only for the players and the organiser.")


class BoardRules(Shape):
    """The public numbers the board page draws with: premium layout, letter values, swap.

    ``layout`` rows use the ruleset's characters (``.`` plain, ``d`` DL, ``t`` TL, ``D`` DW,
    ``T`` TW); the page needs them for squares a tile covers now but not earlier in a replay.
    """

    layout: list[str]
    values: dict[str, int]
    rack_size: int
    swap_whole_rack: bool
    takes_allowed: bool = Field(
        default=False, description="Reword: a play may swap and steal tiles from the board first."
    )


class Contribution(Shape):
    """A seat's random value for the bag (null until given)."""

    position: Seat
    value: str | None


class BagProof(Shape):
    """The bag's commitment, each seat's value, and the seed once the match is over."""

    commitment: str = Field(pattern="^[0-9a-f]{64}$")
    seed: str | None = Field(description="Null until the match is over.")
    contributions: list[Contribution]


class TurnTiles(Shape):
    """One turn's tiles, public once the match is over: the rack its mover held before it,
    the tiles they drew after it, and the letters a swap returned (blanks as ``?``)."""

    number: int
    position: Seat
    rack_before: str
    drawn: str
    swapped: str = Field(description="Empty unless the turn was a swap.")


class FairnessRecord(Shape):
    """What "Check this game's bag" reads, for anyone who may watch a finished match: the
    public record (seed, contributions, the chained move log) and, since the whole record is
    public after the end, every seat's tiles. The same for every viewer. docs/RECORDS.md,
    "Checking a game in the browser", says what is checked."""

    match_id: int
    ruleset: str
    tiles: dict[str, int] = Field(description="The ruleset's full set of tiles, by face.")
    rack_size: int
    commitment: str = Field(pattern="^[0-9a-f]{64}$")
    seed: str = Field(pattern="^[0-9a-f]{64}$")
    contributions: list[str] = Field(description="Each seat's value in hex, in seat order.")
    moves: list[MoveView]
    turn_tiles: list[TurnTiles] = Field(description="Every turn's tiles, in turn order.")
    final_racks: list[str] = Field(description="Each seat's rack at the end, in seat order.")


# ---------------------------------------------------------------- news (events)


class TurnNews(Shape):
    """A move was made: the move, the totals, the counts, who is next and until when."""

    move: MoveView
    turn_number: int
    to_move: Seat | None
    bag_count: int
    turn_deadline_at: When | None = Field(description="The deadline of the turn now to play.")
    seats: list[SeatView]
    open_play: OpenPlayView | None = None


class ChallengeNews(Shape):
    """A play was challenged and adjudicated: the outcome, the play's turn as it now stands
    (its record hash recomputed with the challenge), the board, who is next and until when."""

    move: MoveView
    challenge: ChallengeView
    board: list[str]
    turn_number: int
    to_move: Seat | None
    bag_count: int
    turn_deadline_at: When | None
    seats: list[SeatView]


class RackNews(Shape):
    """A seat's own rack: only ever sent to that seat's member."""

    position: Seat
    rack: list[str]
    turn_number: int


class SeatsNews(Shape):
    """Someone sat down."""

    seats: list[SeatView]


class ResultNews(Shape):
    """How the match ended."""

    status: Status
    result: Result
    end_reason: EndReason
    scores: list[int]
    places: list[int | None] = Field(default_factory=list, description="Each seat's place.")
    finished_at: When | None
    final_score: FinalScore | None = Field(description=FINAL_SCORE_NOTE)
    bag_seed: str | None = Field(
        default=None, description="The bag's seed, public now that the match is over."
    )


class RematchNews(Shape):
    """The rematch of a finished friendly as it now stands: only ever sent to its two players
    (the offer is theirs to answer). ``offered_by`` is the seat of the player who offered."""

    state: Literal["offered", "accepted", "declined"]
    offered_by: Seat
    rematch_id: int | None = Field(description="The new match, once the rematch is accepted.")


class NoNews(Shape):
    """An event that carries nothing but its kind (``key_rotated``)."""


EventKind = Literal[
    "seat_taken",
    "opened",
    "turn",
    "challenge_result",
    "ended",
    "key_rotated",
    "fixture_changed",
    "fairness",
]
#: What each public event carries.
EVENT_DATA: dict[str, type[Shape]] = {
    "seat_taken": SeatsNews,
    "opened": PublicMatch,
    "turn": TurnNews,
    "challenge_result": ChallengeNews,
    "ended": ResultNews,
    "key_rotated": NoNews,
    "fixture_changed": NoNews,
    "fairness": FairnessRecord,
}
#: News for one member only (a rack, their own bag check, the rematch they may answer).
PrivateKind = Literal["rack", "fairness", "rematch"]


# ---------------------------------------------------------------- answers to requests


class CommitAccepted(Shape):
    """The mover's acknowledgement of an accepted move: the score and their new rack."""

    code: Literal["accepted"] = "accepted"
    score: int
    words: list[WordView]
    turn_number: int
    rack: list[str]


class Refusal(Shape):
    """Why a request was refused (nothing changed); ``message`` is the text for people."""

    code: str
    message: str


class Challenged(Shape):
    """Your challenge was adjudicated (the ``challenge_result`` event tells everyone)."""

    code: Literal["challenged"] = "challenged"
    turn_number: int = Field(description="The challenged play's turn number.")
    challenge: ChallengeView


class Seated(Shape):
    """You took this seat."""

    code: Literal["seated"] = "seated"
    position: Seat


# ---------------------------------------------------------------- client frames


class Request(BaseModel):
    """A frame from a client. Unknown fields and loose types are refused (see ``protocol``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


#: The most tiles a move can name: the largest rack a ruleset deals (classic-nine's 9); the
#: engine refuses more than the match's own rack holds.
MAX_RACK_TILES = 9
#: The most tiles a play can name: a full rack and the four tiles Reword's takes can add.
MAX_PLAY_TILES = MAX_RACK_TILES + MAX_TAKES
ClientId = Annotated[str, Field(min_length=1, max_length=MAX_CLIENT_ID_LENGTH)]
TurnNumber = Annotated[int, Field(ge=0, le=MAX_INT)]
#: The position a move was made on (docs/PROTOCOL.md, "after"): the record hash of the last
#: turn the client holds, or the bag's commitment before turn 1.
Position = Annotated[
    str,
    Field(
        pattern="^[0-9a-f]{64}$",
        description="The position the move was made on: the record_hash of the last turn "
        "(bag_commitment before turn 1). Required under a challenge rule; ignored under void.",
    ),
]


Square = Annotated[int, Field(ge=-MAX_INT, le=MAX_INT)]


class TileIn(Request):
    """A tile put on a square; ``letter`` is a blank's chosen letter when ``blank``."""

    row: Square
    col: Square
    letter: Annotated[str, Field(max_length=MAX_LETTER_LENGTH)] | None = None
    blank: bool = False

    def placed(self) -> PlacedTile:
        """The engine's tile (a blank without a letter is the engine's to refuse, in order)."""
        return PlacedTile(self.row, self.col, self.letter or "", self.blank)


class SwapTakeIn(Request):
    """Reword: put a rack tile on the board tile at ``row``, ``col`` (``letter`` its face
    there, a blank's chosen letter with ``blank``); the board tile goes to the rack."""

    take: Literal["swap"]
    row: Square
    col: Square
    letter: Annotated[str, Field(max_length=MAX_LETTER_LENGTH)] | None = None
    blank: bool = False

    def engine_take(self) -> Take:
        """The engine's take (its letter is the engine's to judge)."""
        return SwapTake(self.row, self.col, self.letter or "", self.blank)


class StealTakeIn(Request):
    """Reword: take the end letter at ``row``, ``col`` of a word of three letters or more."""

    take: Literal["steal"]
    row: Square
    col: Square

    def engine_take(self) -> Take:
        """The engine's take."""
        return StealTake(self.row, self.col)


TakeIn = Annotated[SwapTakeIn | StealTakeIn, Field(discriminator="take")]


class SyncRequest(Request):
    """Ask for a fresh snapshot (after a gap, a reconnect, or any doubt)."""

    type: Literal["sync"]
    id: ClientId | None = None


class TakeSeatRequest(Request):
    """Sit down in a free seat: 0 (First), 1 (Second), 2-3 at a table, or null (any)."""

    type: Literal["take_seat"]
    id: ClientId
    position: Seat | None = None


class PlayRequest(Request):
    """Place tiles, made against turn ``turn`` on the position ``after``; under Reword, after
    the swaps and steals ``takes`` (in order; ``tiles`` then plays every tile taken)."""

    type: Literal["play"]
    id: ClientId
    turn: TurnNumber
    after: Position | None = None
    tiles: Annotated[list[TileIn], Field(max_length=MAX_PLAY_TILES)]
    takes: Annotated[list[TakeIn], Field(max_length=MAX_TAKES)] = Field(
        default_factory=list,
        description="Reword: swaps and steals from the board before the play, in order.",
    )


class SwapRequest(Request):
    """Return these tiles (``?`` for a blank) to the bag, made against turn ``turn`` on the
    position ``after``."""

    type: Literal["swap"]
    id: ClientId
    turn: TurnNumber
    after: Position | None = None
    tiles: Annotated[
        list[Annotated[str, Field(max_length=MAX_LETTER_LENGTH)]], Field(max_length=MAX_RACK_TILES)
    ] = Field(description=f"Letters A-Z, or {BLANK} for a blank.")


class PassRequest(Request):
    """Give up the turn ``turn``, on the position ``after``."""

    type: Literal["pass"]
    id: ClientId
    turn: TurnNumber
    after: Position | None = None


class ResignRequest(Request):
    """Resign the match, on any turn (yours or not): the opponent wins."""

    type: Literal["resign"]
    id: ClientId


class ChallengeRequest(Request):
    """Challenge the last play, the one made as turn ``turn`` (any other seated player, while
    it is open: see ``open_play``)."""

    type: Literal["challenge"]
    id: ClientId
    turn: TurnNumber


CommitRequest = PlayRequest | SwapRequest | PassRequest
ClientFrame = Annotated[
    SyncRequest
    | TakeSeatRequest
    | PlayRequest
    | SwapRequest
    | PassRequest
    | ResignRequest
    | ChallengeRequest,
    Field(discriminator="type"),
]


# ---------------------------------------------------------------- server frames


class SnapshotFrame(Sparse):
    """The whole match as this viewer may see it: on connect, on ``sync``, after a seat."""

    omitted_when_none = frozenset({"id"})

    type: Literal["snapshot"] = "snapshot"
    reason: Literal["connect", "sync"]
    snapshot: MatchView
    id: str | None = None


class ErrorFrame(Sparse):
    """A request that never reached a service: a bad frame, not signed in, too many."""

    omitted_when_none = frozenset({"id"})

    type: Literal["error"] = "error"
    code: str
    message: str
    id: str | None = None


class AcceptedAck(CommitAccepted):
    """The answer to a commit that was applied."""

    type: Literal["ack"] = "ack"
    id: str
    accepted: Literal[True] = True
    replayed: bool


class RefusedAck(Refusal, Sparse):
    """The answer to a request its service refused; a stale client gets a fresh snapshot."""

    omitted_when_none = frozenset({"snapshot"})

    type: Literal["ack"] = "ack"
    id: str
    accepted: Literal[False] = False
    replayed: bool
    snapshot: MatchView | None = None


class SeatedAck(Seated):
    """The answer to ``take_seat``, with the snapshot as the new player sees it."""

    type: Literal["ack"] = "ack"
    id: str
    accepted: Literal[True] = True
    replayed: bool
    snapshot: MatchView


class ResignedAck(Shape):
    """The answer to ``resign`` that was applied: the match is over, the opponent won (the
    ``ended`` event follows, to everyone)."""

    type: Literal["ack"] = "ack"
    id: str
    accepted: Literal[True] = True
    replayed: bool
    code: Literal["resigned"] = "resigned"


class ChallengedAck(Challenged):
    """The answer to ``challenge`` that was adjudicated (the outcome; the
    ``challenge_result`` event follows, to everyone)."""

    type: Literal["ack"] = "ack"
    id: str
    accepted: Literal[True] = True
    replayed: bool


class _Event(Shape):
    match_id: int


class TurnFrame(_Event):
    type: Literal["turn"] = "turn"
    data: TurnNews


class ChallengeResultFrame(_Event):
    """A play was challenged: the outcome, for every watcher."""

    type: Literal["challenge_result"] = "challenge_result"
    data: ChallengeNews


class RackFrame(_Event):
    type: Literal["rack"] = "rack"
    data: RackNews


class OpenedFrame(_Event):
    type: Literal["opened"] = "opened"
    data: PublicMatch


class SeatTakenFrame(_Event):
    type: Literal["seat_taken"] = "seat_taken"
    data: SeatsNews


class EndedFrame(_Event):
    type: Literal["ended"] = "ended"
    data: ResultNews


class KeyRotatedFrame(_Event):
    type: Literal["key_rotated"] = "key_rotated"
    data: NoNews


class FixtureChangedFrame(_Event):
    """An organiser changed the fixture (its kick-off, or who sits in a seat that has not
    moved): send ``sync`` for the new state."""

    type: Literal["fixture_changed"] = "fixture_changed"
    data: NoNews


class FairnessFrame(_Event):
    """The record "Check this game's bag" reads, once the match is over: every watcher gets
    the public one (``your_seat`` null), then each player privately their own, which adds
    their racks and draws."""

    type: Literal["fairness"] = "fairness"
    data: FairnessRecord


class RematchFrame(_Event):
    """A rematch offered, accepted or declined on this finished friendly (its players only)."""

    type: Literal["rematch"] = "rematch"
    data: RematchNews


EVENT_FRAMES: dict[str, type[_Event]] = {
    "turn": TurnFrame,
    "challenge_result": ChallengeResultFrame,
    "opened": OpenedFrame,
    "seat_taken": SeatTakenFrame,
    "ended": EndedFrame,
    "key_rotated": KeyRotatedFrame,
    "fixture_changed": FixtureChangedFrame,
    "fairness": FairnessFrame,
}
#: The frame of each kind of private news.
PRIVATE_FRAMES: dict[str, type[_Event]] = {
    "rack": RackFrame,
    "fairness": FairnessFrame,
    "rematch": RematchFrame,
}
AckFrame = AcceptedAck | RefusedAck | SeatedAck | ResignedAck | ChallengedAck
ServerFrame = (
    SnapshotFrame
    | ErrorFrame
    | AcceptedAck
    | RefusedAck
    | SeatedAck
    | ResignedAck
    | ChallengedAck
    | TurnFrame
    | ChallengeResultFrame
    | RackFrame
    | OpenedFrame
    | SeatTakenFrame
    | EndedFrame
    | KeyRotatedFrame
    | FixtureChangedFrame
    | FairnessFrame
    | RematchFrame
)


def encode(frame: Shape) -> str:
    """A frame as compact JSON text, as it goes on the wire."""
    return frame.model_dump_json()


def event_frame(kind: str, match_id: int, data: Shape) -> _Event:
    """The frame of a public event of the match."""
    frame: Any = EVENT_FRAMES[kind]  # each event's frame takes that event's data
    result: _Event = frame(match_id=match_id, data=data)
    return result


def private_frame(kind: str, match_id: int, data: Shape) -> _Event:
    """The frame of one member's private news about the match."""
    frame: Any = PRIVATE_FRAMES[kind]
    result: _Event = frame(match_id=match_id, data=data)
    return result


# ---------------------------------------------------------------- HTTP answers


class ApiError(Sparse):
    """Every refusal of the API: ``error`` is the text for people, ``code`` for programs."""

    omitted_when_none = frozenset({"allowed", "turn_count"})

    error: str
    code: str
    allowed: list[str] | None = Field(default=None, description="For 405: the methods.")
    turn_count: int | None = Field(default=None, description="For bad_turn: turns played.")


class SeatRow(Shape):
    """A seat in a list of matches."""

    position: Seat
    label: str
    member_id: int | None
    name: str | None
    score: int


class MatchRow(Shape):
    """One match of the API's list: public facts only."""

    id: int
    name: str = Field(description=TITLE)
    status: Status
    visibility: Visibility
    ruleset: str
    kickoff_at: When | None
    finished_at: When | None
    tournament_id: int | None
    round_number: int | None
    result: Result
    end_reason: EndReason
    turn_number: int
    to_move: Seat | None
    seats: list[SeatRow]


class MatchList(Shape):
    """A page of matches, newest first."""

    count: int
    limit: int
    offset: int
    results: list[MatchRow]


class StandingRow(Shape):
    """One player's line of a tournament's table, in the table's order (RULES.md section 12)."""

    rank: int = Field(description="1 for the top line; every line has its own.")
    member_id: int
    username: str
    name: str
    played: int
    won: int = Field(description="Duels won; table games placed first alone.")
    drawn: int = Field(description="Duels drawn; table games placed first, shared.")
    lost: int = Field(description="Duels lost; table games not placed first.")
    points: float = Field(
        description="A win 1, a draw 0.5; a table game as its Swiss's table_points say."
    )
    spread: int
    byes: int = Field(
        description="A Swiss's byes, counted in played, won/drawn/lost, points and spread as "
        "the tournament's bye score says."
    )
    separated_by: Literal["", "head-to-head", "opponents' scores", "Buchholz", "member number"] = (
        Field(
            description="The tie-break that placed this player above the next one, when points "
            "and spread did not (the tournament's chosen order: RULES.md section 12)."
        )
    )


class TournamentStandings(Shape):
    """A tournament's table, as its page shows it."""

    tournament_id: int
    name: str
    tie_break_order: list[str] = Field(description="The keys of the order, first to last.")
    standings: list[StandingRow]


# ---------------------------------------------------------------- the club formats


class MemberRef(Shape):
    """A member as the formats' answers name one: id, username and the name shown."""

    member_id: int
    username: str
    name: str


Zone = Literal["promotion", "relegation", "none"]


class SwissByeView(Shape):
    """A round's bye: who had it and what it counts for in the standings."""

    member: MemberRef
    points: float = Field(description="A win 1, a draw 0.5, a loss 0.")
    spread: int


class SwissRoundView(Shape):
    """One round as paired: its bye, its Gibsonized player and how it was paired."""

    number: int
    bye: SwissByeView | None
    gibson: MemberRef | None = Field(
        description="The leader certain of first place, paired away from the prize places."
    )
    paired: Literal["automatically", "by_organiser", "forced"] = Field(
        description="automatically: when the round before was complete (round 1: at "
        "creation); by_organiser: by hand, the round before complete; forced: by hand "
        "before the round before was complete (``unfinished`` games played on)."
    )
    unfinished: int = Field(description="For a forced round: the earlier games left to play.")


class TableRules(Shape):
    """The table every fixture of a format is played at (docs/RULES.md sections 3 and 18)."""

    seat_count: int = Field(
        description="The most players a game seats: 2 (duels), or 3-4 (a Swiss of tables)."
    )
    challenge_rule: Literal["void", "single", "double", "five_point", "ten_point"]
    challenge_window_seconds: int | None = Field(
        description="How long a play stays open to a challenge; null: the next move's deadline."
    )
    finish_line: int | None = Field(description="The score that ends a game; null: off.")
    table_points: Literal["places", "wins"] = Field(
        description="What a table game scores: places, N-1 for first ... 0 for last, ties "
        "sharing the average (the same as one per player placed below, a half per tie); "
        "wins, 1 for first place, shared equally on a tie. A duel scores 1, 0.5, 0 either way."
    )


class SwissRounds(Shape):
    """A Swiss as its tournament page shows it (docs/RULES.md section 3)."""

    tournament_id: int
    name: str
    rounds: int = Field(description="The rounds the Swiss will have.")
    paired: int = Field(description="The rounds paired so far.")
    next_round: int | None = Field(description="The next round to pair; null after the last.")
    unfinished: int = Field(description="Games of the paired rounds not yet finished.")
    bye_points: float
    bye_spread: int
    prize_places: int
    gibsonization: bool
    pair_automatically: bool
    table: TableRules
    round_list: list[SwissRoundView]


class BracketSideView(Shape):
    """One side of a tie: null member with a null seed is a bye (round 1) or a place not yet
    decided."""

    seed: int | None
    member: MemberRef | None
    won: bool


class BracketGameView(Shape):
    """A game of a tie; scores from the tie's top side, null before kick-off."""

    match_id: int
    number: int
    status: Status
    top_score: int | None
    bottom_score: int | None
    result: str = Field(description="The match's result in words, or its status before then.")


class TieScoreView(Shape):
    """A tie's points by its counted games (a draw half each)."""

    top: float
    bottom: float
    spread: int = Field(description="From the top's side.")
    games: int


class BracketTieView(Shape):
    """One tie of the bracket: its two sides, its games, where it stands and its winner."""

    slot: int
    top: BracketSideView
    bottom: BracketSideView
    games: list[BracketGameView]
    score: TieScoreView | None = Field(description="Null before a game has a result.")
    winner: Literal["top", "bottom"] | None
    bye: bool
    walkover: bool = Field(description="Decided without its games: the other left the club.")


class BracketRoundView(Shape):
    number: int
    name: str = Field(description="Final, Semi-final, Quarter-final, else Round N.")
    ties: list[BracketTieView]


class Bracket(Shape):
    """A knockout's bracket as its tournament page draws it (docs/RULES.md section 3)."""

    tournament_id: int
    name: str
    best_of: int
    seeding: Literal["rating", "order"]
    current_round: int
    rounds: list[BracketRoundView]
    champion: MemberRef | None


class LeagueSettings(Shape):
    """What the organiser chose for every season."""

    division_size: int
    movers: int = Field(
        description="Up from each division but the top, down from each but the bottom."
    )
    ruleset: str
    lexicon: str
    visibility: Visibility
    interval_seconds: int = Field(description="Between one round of a division and the next.")
    double: bool = Field(description="Each pair meets twice, seats swapped.")
    rated: bool


class LeagueTableRow(StandingRow):
    """A division's table line: the standings' line, its zone, and whether the player leaves
    the league after this season."""

    zone: Zone
    leaving: bool


class LeagueDivision(Shape):
    """A division of the current season: its tournament and its table in order."""

    rank: int = Field(description="1 is the top division.")
    tournament_id: int
    name: str
    unfinished: int = Field(description="Fixtures of the division not yet finished.")
    table: list[LeagueTableRow]


class PastDivision(Shape):
    """An earlier season's division and who went up and down from it."""

    rank: int
    tournament_id: int
    name: str
    promoted: list[MemberRef]
    relegated: list[MemberRef]


class PastSeason(Shape):
    number: int
    start: When
    closed_at: When | None
    divisions: list[PastDivision]


class LeagueView(Shape):
    """A league as its page shows it: the current season's tables, the earlier seasons'
    movements."""

    league_id: int
    name: str
    settings: LeagueSettings
    season: int = Field(description="The current season's number.")
    season_start: When
    season_closed_at: When | None
    divisions: list[LeagueDivision]
    previous: list[PastSeason] = Field(description="Earlier seasons, latest first.")


class MatchState(MatchView):
    """The API's match: the caller's snapshot (as on the page) and the bag's proof."""

    bag: BagProof


class BestPlayView(Shape):
    """The highest-scoring play the engine finds from a rack: its tiles, its words (main word
    first, as a move's) and its score."""

    tiles: list[TileView]
    words: list[WordView]
    score: int
    bingo: bool


class TurnAnalysis(Shape):
    """After the game, for the player who held the rack: the turn made from a replay step's
    board with the rack shown there, and the best play the engine finds from that rack."""

    number: int = Field(description="The turn analysed: the one made from this board.")
    position: Seat
    kind: MoveKind = Field(description="What was played then.")
    score: int = Field(description="What the turn scored.")
    best: BestPlayView | None = Field(description="None: the rack had no play at all.")


class ReviewedMove(Shape):
    """One of the player's own turns beside the best play the engine finds from the same
    rack on the same board, and the points that turn left on the board."""

    number: int = Field(description="The turn's number in the match.")
    kind: MoveKind
    rack: str = Field(description="The player's own rack the turn was made from.")
    words: list[WordView] = Field(description="What the turn formed (a play only).")
    swap_count: int = Field(ge=0, description="How many tiles a swap returned (else 0).")
    score: int = Field(description="What the turn scored.")
    best: BestPlayView | None = Field(description="None: the rack had no play at all.")
    points_lost: int = Field(
        ge=0,
        description="The best play's score less the turn's (0 when the turn scored as much); "
        "a swap or a pass loses the best play's whole score.",
    )


class MovesReview(Shape):
    """After the game, for a player only: each of their own turns beside the engine's
    highest-scoring play from the same rack (score alone: the tiles kept are not weighed,
    so a wise swap still shows the points it gave up)."""

    match_id: int
    position: Seat = Field(description="The caller's seat: the turns reviewed are its own.")
    moves: list[ReviewedMove] = Field(description="The caller's turns, in the order played.")
    scored: int = Field(description="What those turns scored together.")
    best_total: int = Field(description="What the best plays would have scored together.")
    points_left: int = Field(
        ge=0, description="Points left on the board: the sum of every turn's points_lost."
    )


class Replay(Shape):
    """The position after ``turn`` turns: the public facts and the caller's own rack; once
    the match is over, every seat's rack and every turn's tiles too."""

    match_id: int
    name: str = Field(description=TITLE)
    ruleset: str
    lexicon: str
    board_size: int
    visibility: Visibility
    turn: int
    turn_count: int
    final: bool
    status: Status
    result: Result
    end_reason: EndReason
    turn_number: int
    to_move: Seat | None
    bag_count: int
    board: list[str]
    moves: list[MoveView]
    bag_commitment: str
    bag_seed: str | None
    seats: list[SeatView]
    your_seat: Seat | None
    rack: list[str] | None = Field(description="The caller's own rack at this step.")
    racks: list[list[str]] | None = Field(
        description="Once the match is over (the whole record is public): every seat's rack "
        "at this step, in seat order. Null while the match is played."
    )
    turn_tiles: list[TurnTiles] | None = Field(
        description="Once the match is over: the tiles of each turn shown (the rack before "
        "it, the tiles drawn after it, a swap's letters). Null while the match is played."
    )
    final_score: FinalScore | None = Field(
        description="On the final step only (``final``): how the final scores were reached."
    )
    analysis: TurnAnalysis | None = Field(
        description="Once the match is over, to the player who made the next turn "
        "(``turn`` + 1) only: that turn and the best play from the rack it was made from."
    )


class ContributionIn(BaseModel):
    """A seated player's random value: 16 to 32 bytes as hex (an even number of digits)."""

    model_config = ConfigDict(extra="ignore")

    # The pattern is documentation (and what generators aim at): a value that misses it is
    # refused by the service with its own message, as a bad value rather than a bad body.
    value: str = Field(
        description="16 to 32 random bytes as hex (an even number of digits, 32 to 64).",
        json_schema_extra={"pattern": "^([0-9a-fA-F]{2}){16,32}$"},
    )


class Contributed(Shape):
    """The value now part of the seat's record."""

    position: Seat
    value: str


# ---------------------------------------------------------------- the word checker


class WordVerdict(Shape):
    """One word, in capitals, and whether the board would accept it."""

    word: str = Field(pattern="^[A-Z]+$")
    accepted: bool


class WordCheckAnswer(Shape):
    """The board's verdict on each word asked about (in the order asked, each once), for a
    match of ``ruleset`` using the word list ``lexicon``; a word longer than ``max_length``
    never fits that board."""

    lexicon: str
    ruleset: str
    max_length: int
    words: list[WordVerdict]


# ---------------------------------------------------------------- the organisers' pickers


class MemberOption(Shape):
    """An approved member a picker offers: the username (what a form takes) and the name
    shown."""

    username: str
    name: str


class MemberOptions(Shape):
    """Approved members whose username or display name starts with the prefix asked for, by
    username, at most ``limit`` of them."""

    limit: int
    results: list[MemberOption]


def json_schema_of(models: dict[str, Any]) -> dict[str, Any]:
    """One JSON Schema document (draft 2020-12) defining each of ``models`` by name."""
    _, schema = models_json_schema(
        [(model, "serialization") for model in models.values()],
        ref_template="#/$defs/{model}",
    )
    return schema
