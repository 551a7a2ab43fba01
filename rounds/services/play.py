"""A round: a player starts it, plays or passes; Gramma Ana plays; the round closes (when
every player has finished, or by the clock: ``close_due_rounds``, Celery beat's sweep).

Time is data: each service first applies a close that has come due (``apply_due``), so a
late request finds the round already closed (``stale_round``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from engine import Move, MoveError, Pass, Play, get_ruleset
from engine.gramma_ana import round_move
from engine.rounds import Close, RoundAction, RoundsGame, Start, Submission, Submit
from lexicon.difficulty import word_difficulty
from matches.visibility.rounds import OwnRoundSight, own_round, submission_for
from rounds.models import RoundsMatch, RoundsPlayer, RoundsReceipt
from rounds.news import RoundsNewsItem, private_item, publish_on_commit
from rounds.payloads import own_round_view
from rounds.schemas import RoundStartedFrame
from rounds.services.common import (
    game_of,
    lexicon_of,
    locked_match,
    locked_players,
    ms,
    now,
    store,
)
from rounds.services.errors import NotLive, RequestIdTaken, RoundRefused, StaleRound
from rounds.services.lifecycle import _require_member


@dataclass(frozen=True)
class RoundStarted:
    """The caller's own round, now that they started it (their tray, their clock)."""

    own: OwnRoundSight
    match: RoundsMatch


@dataclass(frozen=True)
class Submitted:
    """The caller's play or pass as taken (their own acknowledgement)."""

    submission: Submission
    match: RoundsMatch


def _position_of(players: list[RoundsPlayer], member: Any) -> int:
    player = next((p for p in players if p.member_id == member.pk), None)
    if player is None:
        raise RoundRefused(RoundRefused.NOT_A_PLAYER, code="not_seated")
    return player.position


def _gramma(players: list[RoundsPlayer]) -> RoundsPlayer | None:
    return next((p for p in players if p.is_gramma_ana), None)


def _gramma_submission(
    match: RoundsMatch, players: list[RoundsPlayer], game: RoundsGame, *, start_ms: int, at_ms: int
) -> tuple[RoundsGame, list[RoundAction]]:
    """Gramma Ana starts the open round at ``start_ms`` and submits her capped move at
    ``at_ms`` (within her own time). Nothing when she is not playing or already has."""
    gramma = _gramma(players)
    current = game.current
    if gramma is None or current is None or match.gramma_rating is None:
        return game, []
    if current.submission_of(gramma.position) is not None:
        return game, []
    lexicon = lexicon_of(match)
    actions: list[RoundAction] = []
    if current.started[gramma.position] is None:
        game = game.start(player=gramma.position, at_ms=start_ms)
        actions.append(Start(gramma.position, start_ms))
    started = game.current.started[gramma.position] if game.current else None
    assert started is not None
    at_ms = max(started, min(at_ms, started + (game.turn_time_ms or 0)))
    move = round_move(
        game, lexicon=lexicon, difficulty=word_difficulty(lexicon), rating=match.gramma_rating
    )
    game = game.submit(move, player=gramma.position, at_ms=at_ms, lexicon=lexicon)
    actions.append(Submit(gramma.position, move, at_ms))
    return game, actions


def apply_due(
    match: RoundsMatch, players: list[RoundsPlayer], *, at: datetime
) -> list[RoundsNewsItem]:
    """Close the open round if it has come due by the clock (the caller holds the locks):
    Gramma Ana plays first if she has not (her own time taken whole, so she loses a tie on
    speed), then the round closes as the engine closes it. Nothing when not due."""
    if match.status != RoundsMatch.Status.LIVE or match.closes_at is None or match.closes_at > at:
        return []
    before = game_of(match)
    at_ms = ms(at)
    turn_ms = int(match.turn_time.total_seconds() * 1000)
    game, actions = _gramma_submission(
        match, players, before, start_ms=max(0, at_ms - turn_ms), at_ms=at_ms
    )
    if game.current is not None and game.current.number == before.round_number:
        game = game.close_round(lexicon=lexicon_of(match))
        actions.append(Close())
    return store(match, players, before, game, actions, at=at)


def _receipt(
    match: RoundsMatch, member: Any, client_id: str | None, kind: str
) -> RoundsReceipt | None:
    """The receipt of an earlier request under ``client_id`` (the caller holds the match's
    lock): None for a new id; RequestIdTaken for an id first sent for another kind."""
    if client_id is None:
        return None
    receipt = RoundsReceipt.objects.filter(
        match=match, member_id=member.pk, client_id=client_id
    ).first()
    if receipt is not None and receipt.kind != kind:
        raise RequestIdTaken(RequestIdTaken.MESSAGE)
    return receipt


def _keep(
    match: RoundsMatch, member: Any, client_id: str | None, kind: str, response: dict[str, Any]
) -> None:
    if client_id is not None:
        RoundsReceipt.objects.create(
            match=match, member_id=member.pk, client_id=client_id, kind=kind, response=response
        )


def rounds_start_round(
    *, match_id: int, member: Any, round_number: int, client_id: str | None = None
) -> RoundStarted:
    """``member`` starts round ``round_number``: their tray shows, their timer runs from the
    server's now. Locks the match and its players. With ``client_id`` (a socket request's
    id) the answer is kept: the same id again answers the same and changes nothing."""
    _require_member(member)
    with transaction.atomic():
        match = locked_match(match_id)
        players = locked_players(match)
        at = now()
        items = apply_due(match, players, at=at)
        refusal: Exception | None = None
        own: OwnRoundSight | None = None
        try:
            receipt = _receipt(match, member, client_id, RoundsReceipt.Kind.START)
            if receipt is not None:
                publish_on_commit(match.pk, items)
                kept = receipt.response
                own = OwnRoundSight(
                    number=int(kept["number"]),
                    tray=tuple(kept["tray"]),
                    started_at_ms=int(kept["started_at_ms"]),
                    submission=None,
                )
                return RoundStarted(own=own, match=match)
            position = _check_round(match, players, member, round_number)
            before = game_of(match)
            game = before.start(player=position, at_ms=ms(at))
            items += store(match, players, before, game, [Start(position, ms(at))], at=at)
            own = own_round(game.current, position)
            assert own is not None
            kept = {
                "number": own.number,
                "tray": "".join(own.tray),
                "started_at_ms": own.started_at_ms,
            }
            _keep(match, member, client_id, RoundsReceipt.Kind.START, kept)
            frame = RoundStartedFrame(
                match_id=match.pk, data=own_round_view(own, turn_time=match.turn_time)
            )
            items.append(private_item(member.pk, frame))
        except MoveError as error:
            refusal = RoundRefused.from_engine(error)
        except (RoundRefused, StaleRound, NotLive, RequestIdTaken) as error:
            refusal = error
        publish_on_commit(match.pk, items)
    if refusal is not None:
        raise refusal
    assert own is not None
    return RoundStarted(own=own, match=match)


def _check_round(
    match: RoundsMatch, players: list[RoundsPlayer], member: Any, round_number: int
) -> int:
    if match.status == RoundsMatch.Status.OPEN:
        raise NotLive(NotLive.MESSAGE)
    position = _position_of(players, member)
    if match.status == RoundsMatch.Status.FINISHED:
        raise RoundRefused(RoundRefused.OVER, code="match_over")
    if round_number != match.round_number:
        raise StaleRound(StaleRound.MESSAGE)
    return position


def rounds_submit(
    *, match_id: int, member: Any, round_number: int, move: Move, client_id: str | None = None
) -> Submitted:
    """``member`` plays or passes in round ``round_number`` (refused before they started it,
    after their own time, twice). Locks the match and its players. The last submission closes
    the round; after the commit, Gramma Ana plays if she has not yet (``gramma_ana_play``).
    With ``client_id`` the answer is kept: the same id again answers the same, changing
    nothing (even once the round has closed)."""
    _require_member(member)
    with transaction.atomic():
        match = locked_match(match_id)
        players = locked_players(match)
        at = now()
        items = apply_due(match, players, at=at)
        refusal: Exception | None = None
        submission: Submission | None = None
        try:
            receipt = _receipt(match, member, client_id, RoundsReceipt.Kind.SUBMIT)
            if receipt is not None:
                publish_on_commit(match.pk, items)
                rules = get_ruleset(match.ruleset)
                kept_submission = Submission.from_json(receipt.response, rules=rules)
                return Submitted(submission=kept_submission, match=match)
            position = _check_round(match, players, member, round_number)
            before = game_of(match)
            game = before.submit(move, player=position, at_ms=ms(at), lexicon=lexicon_of(match))
            assert isinstance(move, Play | Pass)  # (the engine refused anything else)
            submission = _submission_in(game, position, round_number)
            _keep(match, member, client_id, RoundsReceipt.Kind.SUBMIT, submission.to_json())
            items += store(match, players, before, game, [Submit(position, move, ms(at))], at=at)
            if game.current is not None and _gramma(players) is not None:
                transaction.on_commit(
                    lambda: gramma_ana_play(match_id=match_id, round_number=round_number),
                    robust=True,
                )
        except MoveError as error:
            refusal = RoundRefused.from_engine(error)
        except (RoundRefused, StaleRound, NotLive, RequestIdTaken) as error:
            refusal = error
        publish_on_commit(match.pk, items)
    if refusal is not None:
        raise refusal
    assert submission is not None
    return Submitted(submission=submission, match=match)


def _submission_in(game: RoundsGame, position: int, number: int) -> Submission:
    """The player's submission of round ``number``: in the open round, or in its record."""
    if game.current is not None and game.current.number == number:
        found = game.current.submission_of(position)
    else:
        record = next(r for r in game.rounds if r.number == number)
        found = record.submission_of(position)
    assert found is not None
    shown = submission_for(found, viewer_position=position)
    assert shown is not None
    return shown


def gramma_ana_play(*, match_id: int, round_number: int) -> bool:
    """Gramma Ana plays round ``round_number`` now, if it is still open and she has not:
    she starts it when the first member to submit did (her time runs alongside theirs, so
    she is never the faster on a level score) and submits her capped move. Locks the match
    and its players. Whether she played."""
    with transaction.atomic():
        match = locked_match(match_id)
        players = locked_players(match)
        at = now()
        items = apply_due(match, players, at=at)
        if match.status != RoundsMatch.Status.LIVE or match.round_number != round_number:
            publish_on_commit(match.pk, items)
            return False
        before = game_of(match)
        current = before.current
        assert current is not None
        first = current.submissions[0] if current.submissions else None
        start_ms = first.started_at_ms if first is not None else ms(at)
        game, actions = _gramma_submission(match, players, before, start_ms=start_ms, at_ms=ms(at))
        if actions:
            items += store(match, players, before, game, actions, at=at)
        publish_on_commit(match.pk, items)
        return bool(actions)


SWEEP_BATCH = 50


def close_due_rounds(
    *, match_ids: list[int] | None = None, at: datetime | None = None
) -> list[int]:
    """Close every round that has come due (all its players finished, or its deadline
    passed): the sweep Celery beat runs. Selects by state (live, ``closes_at`` passed; only
    ``match_ids`` when given), each match in a transaction of its own, locked rows skipped
    (another sweep has them); the condition is checked again under the lock, so a rerun or
    two sweeps at once close a round once. The ids of the matches changed."""
    at = at or now()
    due = RoundsMatch.objects.filter(status=RoundsMatch.Status.LIVE, closes_at__lte=at)
    if match_ids is not None:
        due = due.filter(pk__in=match_ids)
    changed: list[int] = []
    for match_id in list(
        due.order_by("closes_at", "pk").values_list("pk", flat=True)[:SWEEP_BATCH]
    ):
        with transaction.atomic():
            match = (
                RoundsMatch.objects.select_for_update(skip_locked=True).filter(pk=match_id).first()
            )
            if match is None:
                continue
            items = apply_due(match, locked_players(match), at=at)
            publish_on_commit(match.pk, items)
        if items:
            changed.append(match_id)
    return changed


def rounds_apply_due(*, match_id: int) -> None:
    """Apply a close that has come due before a read (pages, the API, a socket's connect):
    locks the match only when one has."""
    at = now()
    match = RoundsMatch.objects.filter(pk=match_id).only("status", "closes_at").first()
    if match is None or match.status != RoundsMatch.Status.LIVE:
        return
    if match.closes_at is None or match.closes_at > at:
        return
    close_due_rounds(match_ids=[match_id], at=at)
