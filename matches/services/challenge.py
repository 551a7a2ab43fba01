"""A challenge: a seated player disputes the last play, adjudicated at once on the lexicon.

Under a challenge rule other than ``void`` a play stands provisionally, open to a challenge
from any other seat until the next player commits a move or the window passes
(:mod:`matches.challenge_window`). The challenge takes the same row lock as a move and
names the turn it disputes (``expected_turn``), so a challenge raced against the next move
has one winner: whichever takes the lock first; the other finds the turn moved on
(``stale_turn``) or the play closed. docs/RULES.md, "Challenges", is the reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from common.errors import NotAllowed, SignInRequired
from common.events import PlayChallenged, emit
from engine import (
    AlreadyChallenged,
    ChallengeAfterEnd,
    ChallengeRefused,
    ChallengesOff,
    Game,
    MoveError,
    NoPlayToChallenge,
    NotKickedOff,
    StaleTurn,
)
from lexicon.lexicon import get_lexicon
from matches import visibility
from matches.chain import record_hash
from matches.challenge_window import challenge_until
from matches.models import CommitReceipt, Match, Seat, Turn
from matches.news import Event, PrivateEvent, PublicEvent, publish_on_commit
from matches.schemas import Challenged, Refusal
from matches.services.common import locked_match, locked_seats, seat_facts
from matches.services.common import now as _now
from matches.services.errors import MoveRefused
from matches.services.lifecycle import apply_deadlines, finish_played_game
from matches.services.play import new_turn_rows
from matches.services.receipts import keep_receipt, receipt_for, replayed_answer
from matches.stored_game import game_of, store_position

SIGN_IN_TO_CHALLENGE = "Sign in to challenge a play."
ONLY_PLAYERS_CHALLENGE = "Only a player seated in this match can challenge a play."


class ChallengeWindowClosed(ChallengeRefused):
    """The play's challenge window has passed (the next move has not come yet)."""

    code = "challenge_window_closed"
    default_message = "The time to challenge that play has passed."


@dataclass(frozen=True)
class ChallengeDecided:
    """The challenger's answer; ``replayed`` when it answers a repeated request id."""

    answer: Challenged
    replayed: bool = False


def match_challenge(
    *,
    match_id: int,
    member: Any,
    client_id: str,
    expected_turn: int,
    now: datetime | None = None,
) -> ChallengeDecided:
    """Challenge the play made as turn ``expected_turn`` (the last one) for ``member``'s seat.

    Locks the match and its seats, like a move. Refusals (:class:`MoveRefused`, raised after
    the transaction; nothing changes but a deadline that had passed): ``not_kicked_off``,
    ``challenges_off``, ``challenge_after_end``, ``stale_turn`` (the play is no longer the
    last turn), ``already_challenged``, ``no_play_to_challenge``,
    ``challenge_window_closed``, ``own_play``. A stranger is refused with ``NotAllowed``.
    A phony is withdrawn (tiles back on the player's rack, their draw back in the bag); a
    good play stands with the rule's outcome. The answer is kept under ``client_id``.
    """
    if not getattr(member, "is_authenticated", False):
        raise SignInRequired(SIGN_IN_TO_CHALLENGE)
    refusal: MoveRefused | None = None
    stranger = False
    with transaction.atomic():
        match = locked_match(match_id)
        receipt = receipt_for(match_id=match.pk, member_id=member.pk, client_id=client_id)
        if receipt is not None:
            response = replayed_answer(
                receipt, kind=CommitReceipt.Kind.CHALLENGE, refused=MoveRefused.replay
            )
            return ChallengeDecided(Challenged.model_validate(response), replayed=True)
        now = now or _now()
        seats = locked_seats(match)
        events = apply_deadlines(match, seats, now=now)
        seat = next((s for s in seats if s.member_id == member.pk), None)
        answer: Challenged | None = None
        if seat is None:
            stranger = True
        else:
            try:
                game, challenged_turn = _checked_challenge(match, seats, seat, expected_turn, now)
            except MoveError as error:
                refusal = MoveRefused.from_engine(error)
            else:
                answer, decided = _record_challenge(
                    match, seats, game, challenged_turn, client_id=client_id, now=now
                )
                events += decided
            response = (
                answer.model_dump(mode="json")
                if answer is not None
                else Refusal(code=refusal.code, message=refusal.message).model_dump()  # type: ignore[union-attr]
            )
            keep_receipt(
                match=match,
                member=member,
                kind=CommitReceipt.Kind.CHALLENGE,
                client_id=client_id,
                accepted=answer is not None,
                response=response,
            )
        publish_on_commit(events)
    if stranger:
        raise NotAllowed(ONLY_PLAYERS_CHALLENGE)
    if refusal is not None:
        raise refusal
    assert answer is not None
    return ChallengeDecided(answer)


def _last_play(match: Match) -> Turn | None:
    """The last turn that was not a lost turn (the play a challenge would dispute)."""
    return (
        Turn.objects.filter(match=match, number__lte=match.turn_number, lost_turn=False)
        .order_by("-number")
        .first()
    )


def _checked_challenge(
    match: Match, seats: list[Seat], seat: Seat, expected_turn: int, now: datetime
) -> tuple[Game, Turn]:
    """The game after ``seat``'s challenge and the challenged turn's row, or the MoveError
    of the first check that fails (in the order the docstring above lists them)."""
    if match.status == Match.Status.SCHEDULED:
        raise NotKickedOff
    if match.challenge_rule == "void":
        raise ChallengesOff
    if match.is_over:
        raise ChallengeAfterEnd
    if expected_turn != match.turn_number:
        raise StaleTurn
    game = game_of(match, seats)
    last = _last_play(match)
    if game.open_play is None or last is None or last.number != match.turn_number:
        if last is not None and last.challenge is not None:
            raise AlreadyChallenged
        raise NoPlayToChallenge
    until = challenge_until(match)
    if until is not None and until <= now:
        raise ChallengeWindowClosed
    lexicon = get_lexicon(match.lexicon, max_len=game.ruleset.lexicon_max_len)
    return game.challenge(by=seat.position, lexicon=lexicon), last


def _record_challenge(
    match: Match, seats: list[Seat], game: Game, turn: Turn, *, client_id: str, now: datetime
) -> tuple[Challenged, list[Event]]:
    """Write the decided challenge: the challenged turn's outcome and totals (its hash
    recomputed: no turn chains on it yet), any lost turns taken after it, the position, the
    clock; and say what happened."""
    record = game.turns[len(game.turns) - 1 - (game.turn_number - match.turn_number)]
    assert record.challenge is not None, "the engine adjudicated the play"
    previous = (
        Turn.objects.filter(match=match, number=turn.number - 1)
        .values_list("record_hash", flat=True)
        .first()
        or match.bag_commitment
    )
    turn.challenge = record.challenge.to_json()
    turn.set_totals(record.totals)
    turn.bag_count = len(game.bag)  # a withdrawn play's draw is back in the bag
    turn.record_hash = record_hash(turn, previous)
    turn.save(
        update_fields=[
            "challenge",
            "first_total",
            "second_total",
            "third_total",
            "fourth_total",
            "bag_count",
            "record_hash",
        ]
    )
    lost = new_turn_rows(match, game, client_id=client_id, now=now, last_hash=turn.record_hash)
    Turn.objects.bulk_create(lost)
    was_to_move = match.to_move
    store_position(match, seats, game)
    events: list[Event] = []
    if game.is_over and game.open_play is None:
        ended = finish_played_game(match, seats, game, now=now)
    else:
        ended = []
        if lost or was_to_move is None:  # the turn moved on, or an ended game resumed
            match.turn_started_at = now
            match.turn_deadline_at = now + match.time_per_move
        match.save()
    turns = list(Turn.objects.filter(match=match).order_by("number"))
    events.append(
        PublicEvent(
            match.id,
            "challenge_result",
            visibility.challenge_news(match, turn, seats, turns, previous_hash=previous),
        )
    )
    chained = turn.record_hash
    for lost_turn in lost:
        news = visibility.turn_news(match, lost_turn, seats, previous_hash=chained)
        events.append(PublicEvent(match.id, "turn", news))
        chained = lost_turn.record_hash
    player = seats[record.player]
    if record.withdrawn and player.member_id is not None:
        events.append(
            PrivateEvent(match.id, player.member_id, "rack", visibility.rack_news(match, player))
        )
    emit(
        PlayChallenged(
            match_id=match.id,
            turn_number=turn.number,
            player=record.player,
            by=record.challenge.by,
            withdrawn=record.withdrawn,
            to_move=match.to_move,
            seats=seat_facts(seats),
            turn_now=match.turn_number,
            moved_on=bool(lost) or (was_to_move is None and match.to_move is not None),
        )
    )
    return visibility.challenged(turn), events + ended
