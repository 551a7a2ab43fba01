"""A rounds match from its opening to its start: open, join, start; and a one-to-one game
against Gramma Ana, opened and started at once."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction

from common.errors import SignInRequired
from engine.rounds import RoundsGame
from matches.visibility import is_club_member
from ratings.elo_ratings import elo_rating_of
from rounds.models import (
    MAX_PLAYERS,
    MAX_ROUND_TIME,
    MAX_TURN_TIME,
    MIN_ROUND_TIME,
    MIN_TURN_TIME,
    RoundsMatch,
    RoundsPlayer,
)
from rounds.news import public_item, publish_on_commit
from rounds.payloads import rounds_joined
from rounds.schemas import RoundsJoinedFrame
from rounds.services.common import lexicon_of, locked_match, locked_players, now, store
from rounds.services.errors import (
    HostOnly,
    InvalidRoundsMatch,
    JoinRefused,
    NotEnoughPlayers,
    NotOpen,
    RoundsMembersOnly,
)

SIGN_IN_TO_PLAY = "Sign in to play Word Skill."
GRAMMA_ANA_NAME = "Gramma Ana"


def _require_member(member: Any) -> None:
    if not getattr(member, "is_authenticated", False):
        raise SignInRequired(SIGN_IN_TO_PLAY)
    if not is_club_member(member):
        raise RoundsMembersOnly(RoundsMembersOnly.MESSAGE)


def _check_times(turn_time: timedelta, round_time: timedelta) -> None:
    if not MIN_TURN_TIME <= turn_time <= MAX_TURN_TIME:
        raise InvalidRoundsMatch(
            f"A player's time for a round is from {int(MIN_TURN_TIME.total_seconds())} to "
            f"{int(MAX_TURN_TIME.total_seconds())} seconds."
        )
    if not MIN_ROUND_TIME <= round_time <= MAX_ROUND_TIME or round_time < turn_time:
        raise InvalidRoundsMatch(
            "A round stays open from 10 minutes to 7 days, and at least a player's own time."
        )


def rounds_open(
    *,
    member: Any,
    name: str,
    turn_time: timedelta,
    round_time: timedelta,
    gramma_ana: bool = False,
) -> RoundsMatch:
    """Open a rounds match hosted by ``member`` (its first player; Gramma Ana its second
    with ``gramma_ana``). Locks nothing: the rows are new."""
    _require_member(member)
    name = name.strip()[:120]
    if not name:
        raise InvalidRoundsMatch("Give the match a name.")
    _check_times(turn_time, round_time)
    at = now()
    with transaction.atomic():
        match = RoundsMatch.objects.create(
            name=name, host=member, turn_time=turn_time, round_time=round_time
        )
        RoundsPlayer.objects.create(match=match, position=0, member=member, joined_at=at)
        if gramma_ana:
            RoundsPlayer.objects.create(match=match, position=1, member=None, joined_at=at)
    return match


def rounds_join(*, match_id: int, member: Any) -> RoundsPlayer:
    """``member`` joins an open match as its next player. Locks the match and its players."""
    _require_member(member)
    with transaction.atomic():
        match = locked_match(match_id)
        players = locked_players(match)
        if match.status != RoundsMatch.Status.OPEN:
            raise JoinRefused("This game has already started: it can no longer be joined.")
        if any(player.member_id == member.pk for player in players):
            raise JoinRefused("You have already joined this game.")
        if len(players) >= MAX_PLAYERS:
            raise JoinRefused(f"This game is full ({MAX_PLAYERS} players).")
        player = RoundsPlayer.objects.create(
            match=match, position=len(players), member=member, joined_at=now()
        )
        joined = RoundsJoinedFrame(match_id=match.pk, data=rounds_joined([*players, player]))
        publish_on_commit(match.pk, [public_item(joined)])
        return player


def gramma_rating_for(players: list[RoundsPlayer]) -> int | None:
    """The rating Gramma Ana's cap follows: the one member's Elo one to one, the members'
    mean Elo (rounded) at a table; None when she is not playing."""
    if not any(player.is_gramma_ana for player in players):
        return None
    ratings = [elo_rating_of(player.member_id) for player in players if player.member_id]
    return round(sum(ratings) / len(ratings))


def rounds_start(*, match_id: int, member: Any) -> RoundsMatch:
    """The host starts the game: round 1 is dealt. Locks the match and its players; needs
    at least two players (Gramma Ana counts)."""
    _require_member(member)
    with transaction.atomic():
        match = locked_match(match_id)
        players = locked_players(match)
        if match.host_id != member.pk:
            raise HostOnly(HostOnly.MESSAGE)
        if match.status != RoundsMatch.Status.OPEN:
            raise NotOpen(NotOpen.MESSAGE)
        if len(players) < 2:
            raise NotEnoughPlayers(NotEnoughPlayers.MESSAGE)
        _start(match, players)
        return match


def _start(match: RoundsMatch, players: list[RoundsPlayer]) -> None:
    at = now()
    match.gramma_rating = gramma_rating_for(players)
    match.rated = match.rated and match.gramma_rating is not None and len(players) == 2
    match.status = RoundsMatch.Status.LIVE
    match.started_at = at
    game = RoundsGame.new(
        players=len(players),
        ruleset=match.ruleset,
        seed=bytes.fromhex(match.bag_seed),
        turn_time_ms=int(match.turn_time.total_seconds() * 1000),
        lexicon=lexicon_of(match),
    )
    publish_on_commit(match.pk, store(match, players, None, game, [], at=at))


def rounds_play_gramma_ana(*, member: Any, turn_time: timedelta) -> RoundsMatch:
    """ "Play Gramma Ana": a one-to-one game of ``member`` against her, rated with Word
    Skill's Elo, started at once. Locks nothing before its own new rows."""
    _require_member(member)
    _check_times(turn_time, RoundsMatch.round_time.field.default)
    with transaction.atomic():
        match = rounds_open(
            member=member,
            name=f"{member} v {GRAMMA_ANA_NAME}",
            turn_time=turn_time,
            round_time=RoundsMatch.round_time.field.default,
            gramma_ana=True,
        )
        match = locked_match(match.pk)
        match.rated = True
        _start(match, locked_players(match))
        return match
