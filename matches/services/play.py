"""A move: play, swap or pass, made against a turn number (and, where a challenge can change
the position, against the last turn's record hash), applied at most once."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from common.events import TurnRecorded, emit
from engine import (
    Game,
    MatchOver,
    Move,
    MoveError,
    NotKickedOff,
    NotYourTurn,
    StaleTurn,
    SwapTake,
    TakePlay,
    TurnRecord,
)
from lexicon.lexicon import get_lexicon
from matches import visibility
from matches.chain import record_hash
from matches.models import CommitReceipt, Match, Seat, Turn
from matches.news import Event, PrivateEvent, PublicEvent, publish_on_commit
from matches.schemas import CommitAccepted, Refusal, TakeView, WordView
from matches.services.common import locked_match, seat_facts
from matches.services.common import now as _now
from matches.services.errors import MoveRefused
from matches.services.lifecycle import (
    apply_deadlines,
    finish_played_game,
    open_ending_deadline,
)
from matches.services.locked_reads import locked_seats_for_a_move
from matches.services.receipts import keep_receipt, receipt_row, replayed_answer
from matches.services.rows_at_once import RowsAtOnce
from matches.stored_game import SEAT_FIELDS, changed_seats, game_of

#: What a move that does not end the match changes on its row.
MOVE_FIELDS = [
    "game_state",
    "turn_number",
    "bag_count",
    "to_move",
    "turn_started_at",
    "turn_deadline_at",
]


class PositionChanged(StaleTurn):
    """Rule 3 under a challenge rule: the turn is still the one the move names, but a challenge
    decided since rewrote the last turn (a play withdrawn, a bonus, a lost turn to come), so
    the move was made on a position that is gone. The client redraws, like any stale move."""

    default_message = "A challenge was decided meanwhile. Board updated."


class PositionUnnamed(MoveError):
    """Rule 3 under a challenge rule: the move does not name the position it was made on
    (``after``), so a challenge decided meanwhile could not be told from none."""

    code = "position_required"
    default_message = "This game has challenges: a move must name the board it was made on."


@dataclass(frozen=True)
class Committed:
    """An accepted move's acknowledgement (the mover's own rack), and whether it is the
    stored answer to a repeated client id."""

    answer: CommitAccepted
    replayed: bool = False


def _replay_of(receipt: CommitReceipt) -> Committed:
    """The answer given the first time this client id was sent (raises if it was a refusal)."""
    response = replayed_answer(receipt, kind=CommitReceipt.Kind.MOVE, refused=MoveRefused.replay)
    return Committed(CommitAccepted.model_validate(response), replayed=True)


def match_commit(
    *,
    match_id: int,
    member: Any,
    move: Move,
    against_turn: int,
    client_id: str,
    after: str | None = None,
    now: datetime | None = None,
) -> Committed:
    """Apply a play, swap or pass made against turn ``against_turn``. Locks the match and
    its seats; writes the turn, the mirrors and the sender's receipt in one transaction.

    ``after`` names the position the move was made on: the record hash of the last turn
    (the bag's commitment before turn 1). Under a challenge rule it is required and must
    still be the last turn's hash, since a challenge rewrites that turn without moving the
    turn number on (``position_required``, ``stale_turn``); under ``void`` it is ignored.

    The checks run in RULES.md's order; the first that fails is the answer
    (:class:`MoveRefused`, raised after the transaction) and nothing changes, except a
    deadline that had already passed, which stands. A repeated ``client_id`` from the same
    member answers what it answered the first time.
    """
    refusal: MoveRefused | None = None
    with transaction.atomic():
        match = locked_match(match_id)
        # The seats, with this member's receipt for the client id and the last turn's hash
        # read in the same statement: one round trip instead of three.
        seats, receipt_pk, last_hash = locked_seats_for_a_move(
            match_id=match.pk,
            member_id=member.pk,
            client_id=client_id,
            last_turn=match.turn_number,
        )
        assert [seat.position for seat in seats] == list(range(match.seat_count)), "seats"
        if receipt_pk is not None:
            return _replay_of(CommitReceipt.objects.get(pk=receipt_pk))
        now = now or _now()
        events = apply_deadlines(match, seats, now=now)
        seat = next((s for s in seats if s.member_id == member.pk), None)
        try:
            position = last_hash or match.bag_commitment
            game = _checked_move(match, seats, seat, move, against_turn, after, position)
        except MoveError as error:
            refusal = MoveRefused.from_engine(error)
            if seat is not None:
                refused = Refusal(code=refusal.code, message=refusal.message)
                keep_receipt(
                    match=match,
                    member=member,
                    kind=CommitReceipt.Kind.MOVE,
                    client_id=client_id,
                    accepted=False,
                    response=refused.model_dump(),
                )
        else:
            assert seat is not None
            rows = RowsAtOnce()  # the move's rows, written together below
            turn, recorded = _record_turn(
                match, seats, game, rows=rows, client_id=client_id, now=now, last_hash=last_hash
            )
            events += recorded
            answer = visibility.commit_accepted(match, seat, turn)
            rows.insert(
                receipt_row(
                    match=match,
                    member=member,
                    kind=CommitReceipt.Kind.MOVE,
                    client_id=client_id,
                    accepted=True,
                    response=answer.model_dump(mode="json"),
                )
            )
            rows.write()
        publish_on_commit(events)
    if refusal is not None:
        raise refusal
    return Committed(answer)


def _checked_move(
    match: Match,
    seats: list[Seat],
    seat: Seat | None,
    move: Move,
    against_turn: int,
    after: str | None,
    position: str,
) -> Game:
    """The game after ``move``, or the MoveError of the first rule it breaks (RULES.md order:
    kicked off and not over, your turn, the latest board (its turn, then under a challenge
    rule its ``position``, the last turn's hash), then the engine's rules 4-9)."""
    if match.status == Match.Status.SCHEDULED:
        raise NotKickedOff
    if match.is_over:
        raise MatchOver
    if seat is None or seat.position != match.to_move:
        raise NotYourTurn
    if against_turn != match.turn_number:
        raise StaleTurn
    if match.challenge_rule != "void":
        if after is None:
            raise PositionUnnamed
        if after != position:
            raise PositionChanged
    game = game_of(match, seats)  # the position only: no earlier turn is read
    lexicon = get_lexicon(match.lexicon, max_len=game.ruleset.lexicon_max_len)
    return game.apply(move, player=seat.position, lexicon=lexicon)


def turn_row(
    match: Match, record: TurnRecord, *, number: int, bag_count: int, client_id: str, now: datetime
) -> Turn:
    """The log's row of one engine turn record (its hash is set by the caller)."""
    move = record.move.to_dict()
    kind = Turn.Kind.PLAY if isinstance(record.move, TakePlay) else record.kind
    swapped = "".join(move["tiles"]) if kind == Turn.Kind.SWAP else ""
    turn = Turn(
        match=match,
        number=number,
        position=record.player,
        kind=kind,
        placement=move["tiles"] if kind == Turn.Kind.PLAY else [],
        takes=take_views(record),
        swap_count=len(swapped),
        words=[WordView.of(word).model_dump() for word in record.words],
        score=record.score,
        bag_count=bag_count,
        rack_before="".join(record.rack_before),
        swapped=swapped,
        drawn="".join(record.drawn),
        client_id="" if record.lost_turn else client_id,
        created_at=now,
        challenge=None if record.challenge is None else record.challenge.to_json(),
        lost_turn=record.lost_turn,
    )
    turn.set_totals(record.totals)
    return turn


def take_views(record: TurnRecord) -> list[dict[str, Any]]:
    """Reword: a take-play's swaps and steals as the log keeps them (``schemas.TakeView``):
    each with the board tile it took (``record.taken``: a blank in lower case); [] for any
    other move."""
    if not isinstance(record.move, TakePlay):
        return []
    views = []
    for take, face in zip(record.move.takes, record.taken, strict=True):
        swap = take if isinstance(take, SwapTake) else None
        view = TakeView(
            take="swap" if swap is not None else "steal",
            row=take.row,
            col=take.col,
            letter=face.upper(),
            blank=face.islower(),
            placed=None if swap is None else swap.letter,
            placed_blank=swap is not None and swap.blank,
        )
        views.append(view.model_dump())
    return views


def new_turn_rows(
    match: Match, game: Game, *, client_id: str, now: datetime, last_hash: str | None
) -> list[Turn]:
    """The rows of the turns ``game`` holds beyond the match's stored turn number (a move,
    and any lost turns taken after it), chained to ``last_hash`` (None before turn 1)."""
    count = game.turn_number - match.turn_number
    records = game.turns[len(game.turns) - count :]
    rows = []
    previous = last_hash or match.bag_commitment
    for offset, record in enumerate(records, start=1):
        # Each row's bag count is the bag after it (only the move itself drew).
        turn = turn_row(
            match,
            record,
            number=match.turn_number + offset,
            bag_count=game.bag_count,
            client_id=client_id,
            now=now,
        )
        turn.record_hash = record_hash(turn, previous)
        previous = turn.record_hash
        rows.append(turn)
    return rows


def _record_turn(
    match: Match,
    seats: list[Seat],
    game: Game,
    *,
    rows: RowsAtOnce,
    client_id: str,
    now: datetime,
    last_hash: str | None,
) -> tuple[Turn, list[Event]]:
    """Write the turn just applied to ``game`` (and any lost turns taken after it), move the
    clock on, and say what happened. ``last_hash`` is the record hash of the turn before it
    (None before the first). The rows of a move that does not end the match are left in
    ``rows`` for the caller to write with its receipt; a move that ends it writes them
    before the match is finished. A play that ends the game while it is open to a challenge
    leaves the match live with nobody to move until its window closes."""
    turns = new_turn_rows(match, game, client_id=client_id, now=now, last_hash=last_hash)
    mover_record = game.turns[len(game.turns) - len(turns)]
    for changed in changed_seats(match, seats, game):
        rows.update(changed, SEAT_FIELDS)
    for turn in turns:
        rows.insert(turn)
    events: list[Event] = []
    if game.is_over and game.open_play is None:
        _turn_recorded(match, seats, mover=mover_record.player, rows=None)
        rows.write()  # (the last move's rows, before the match is finished)
        ended = finish_played_game(match, seats, game, now=now)
    else:
        ended = []
        match.turn_started_at = now
        match.turn_deadline_at = (
            open_ending_deadline(match, now=now) if game.is_over else now + match.time_per_move
        )
        rows.update(match, MOVE_FIELDS)  # not the ~30 columns a move leaves alone
        _turn_recorded(match, seats, mover=mover_record.player, rows=rows)  # (its notice joins)
    # The news is built after the clock moved on: it names the deadline of the turn now to
    # play. It reads the seats locked above, with their members: no query of its own.
    previous = last_hash or match.bag_commitment
    for turn in turns:
        news = visibility.turn_news(match, turn, seats, previous_hash=previous)
        events.append(PublicEvent(match.id, "turn", news))
        previous = turn.record_hash
    mover = seats[mover_record.player]
    if mover.member_id is not None:
        events.append(
            PrivateEvent(match.id, mover.member_id, "rack", visibility.rack_news(match, mover))
        )
    events += ended
    return turns[0], events


def _turn_recorded(match: Match, seats: list[Seat], *, mover: int, rows: RowsAtOnce | None) -> None:
    """Tell the subscribers (the next player's notice, the computer's turn) of the move."""
    emit(
        TurnRecorded(
            match_id=match.id,
            turn_number=match.turn_number,
            mover=mover,
            to_move=None if rows is None else match.to_move,
            seats=seat_facts(seats),
            rows=rows,
        )
    )
