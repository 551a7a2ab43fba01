"""The shapes of ``rounds.schemas`` built from what ``matches.visibility.rounds`` lets a
viewer see (a ``RoundsSight``, a public record, an own round): nothing else goes in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engine import Play
from engine.rounds import RoundRecord, Submission
from matches.schemas import TileView, WordView
from matches.visibility.rounds import OwnRoundSight, RoundsSight
from rounds.models import RoundsMatch, RoundsPlayer
from rounds.schemas import (
    OwnRound,
    PlayerRound,
    RoundProgress,
    RoundReady,
    RoundResult,
    RoundsEnded,
    RoundsJoined,
    RoundsPlayerView,
    RoundsSettings,
    RoundsView,
    SubmissionView,
)


def moment(at_ms: int) -> datetime:
    """A time of the game's clock (ms since the epoch) as a moment."""
    return datetime.fromtimestamp(at_ms / 1000, tz=UTC)


def submission_view(submission: Submission) -> SubmissionView:
    move = submission.move
    tiles = (
        [TileView(row=t.row, col=t.col, letter=t.letter.upper(), blank=t.blank) for t in move.tiles]
        if isinstance(move, Play)
        else []
    )
    return SubmissionView(
        player=submission.player,
        kind="play" if isinstance(move, Play) else "pass",
        tiles=tiles,
        words=[WordView.of(word) for word in submission.words],
        score=submission.score,
        bingo=submission.bingo,
        elapsed_ms=submission.elapsed_ms,
    )


def own_round_view(own: OwnRoundSight, *, turn_time: timedelta) -> OwnRound:
    started = moment(own.started_at_ms)
    return OwnRound(
        number=own.number,
        tray="".join(own.tray),
        started_at=started,
        ends_at=started + turn_time,
        submission=None if own.submission is None else submission_view(own.submission),
    )


def round_result(record: RoundRecord, *, drawn_public: bool) -> RoundResult:
    """A closed round (already a public record: ``visibility.rounds.public_record``)."""
    players = []
    for player, score in enumerate(record.scores):
        submission = record.submission_of(player)
        players.append(
            PlayerRound(
                player=player,
                status=record.status_of(player),
                score=score,
                submission=None if submission is None else submission_view(submission),
            )
        )
    return RoundResult(
        number=record.number,
        tray="".join(record.tray),
        players=players,
        placed=record.placed,
        decided_by=record.decided_by,
        drawn_among=list(record.drawn_among),
        totals=list(record.totals),
        drawn="".join(record.drawn) if drawn_public else None,
        redealt=["".join(tray) for tray in record.redealt],
    )


def settings_view(match: RoundsMatch, gramma_cap: int | None) -> RoundsSettings:
    return RoundsSettings(
        turn_seconds=int(match.turn_time.total_seconds()),
        round_seconds=int(match.round_time.total_seconds()),
        rated=match.rated,
        gramma_cap=gramma_cap,
    )


def winners_of(players: list[RoundsPlayer]) -> list[int]:
    return [player.position for player in players if player.place == 1]


def player_view(
    player: RoundsPlayer, *, started: tuple[bool, ...], submitted: tuple[bool, ...]
) -> RoundsPlayerView:
    """One player as everyone sees them (``started``/``submitted``: ``progress``)."""
    return RoundsPlayerView(
        position=player.position,
        name=player.name,
        member_id=player.member_id,
        gramma_ana=player.is_gramma_ana,
        total=player.total,
        place=player.place,
        started=started[player.position] if player.position < len(started) else False,
        submitted=submitted[player.position] if player.position < len(submitted) else False,
    )


def rounds_joined(players: list[RoundsPlayer]) -> RoundsJoined:
    """Every player of an open match (nobody has started a round: there is none)."""
    return RoundsJoined(players=[player_view(p, started=(), submitted=()) for p in players])


def rounds_view(
    match: RoundsMatch,
    players: list[RoundsPlayer],
    sight: RoundsSight,
    *,
    viewer_position: int | None,
    gramma_cap: int | None,
) -> RoundsView:
    """The whole match as the viewer of ``sight`` may see it."""
    started = sight.started or (False,) * len(players)
    submitted = sight.submitted or (False,) * len(players)
    return RoundsView(
        id=match.pk,
        name=match.name,
        status=match.status,
        host=str(match.host),
        settings=settings_view(match, gramma_cap),
        players=[player_view(player, started=started, submitted=submitted) for player in players],
        round_number=sight.round_number,
        round_deadline_at=match.round_deadline_at if not match.is_over else None,
        board=list(sight.board),
        bag_count=sight.bag_count,
        bag_commitment=match.bag_commitment,
        bag_seed=sight.bag_seed,
        your_position=viewer_position,
        your_round=(
            None
            if sight.own_round is None
            else own_round_view(sight.own_round, turn_time=match.turn_time)
        ),
        rounds=[round_result(r, drawn_public=sight.drawn_public) for r in sight.closed],
        redealt=["".join(tray) for tray in sight.redealt],
        unplayable=["".join(tray) for tray in sight.unplayable],
        end_reason=match.end_reason,
        winners=winners_of(players),
    )


def round_ready(match: RoundsMatch) -> RoundReady:
    assert match.round_deadline_at is not None
    return RoundReady(number=match.round_number, deadline_at=match.round_deadline_at)


def round_progress(
    number: int, started: tuple[bool, ...], submitted: tuple[bool, ...]
) -> RoundProgress:
    return RoundProgress(number=number, started=list(started), submitted=list(submitted))


def rounds_ended(match: RoundsMatch, players: list[RoundsPlayer], *, bag_seed: str) -> RoundsEnded:
    """The end, once the match is over (``bag_seed``: ``RoundsSight.bag_seed``, public now)."""
    return RoundsEnded(
        end_reason=match.end_reason,
        totals=[player.total for player in players],
        places=[player.place for player in players],
        winners=winners_of(players),
        bag_seed=bag_seed,
        bag_commitment=match.bag_commitment,
    )
