"""Test helpers: rated fixtures played to an end through the real services."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from typing import Any

import time_machine

from accounts.models import Member
from engine import Pass
from engine.movegen import best_play, legal_moves
from lexicon.lexicon import get_lexicon
from matches import services
from matches.models import Match, Seat
from matches.stored_game import game_of
from tests.matches.helpers import commit_now
from tournaments import services as organising

_ids = itertools.count()


def fixture(
    organiser: Member,
    first: Member | None,
    second: Member | None,
    *,
    rated: bool = True,
    ruleset: str = "word-duel",
    kickoff_at: datetime | None = None,
) -> Match:
    """A fixture through the service; with both players and no kick-off it is live at once."""
    return organising.create_fixture(
        organiser=organiser,
        name=f"Fixture {next(_ids)}",
        first=first,
        second=second,
        rated=rated,
        ruleset=ruleset,
        kickoff_at=kickoff_at,
    )


def _mover(match: Match) -> Any:
    return Seat.objects.get(match=match, position=match.to_move).member


def commit(match: Match, move: Any) -> None:
    """The player to move makes ``move`` through the commit service."""
    match.refresh_from_db()
    commit_now(match, _mover(match), move, assert_accepted=True)


def pass_out(match: Match) -> Match:
    """Passes until six scoreless turns in a row end the game on the board (racks deducted)."""
    for _ in range(6):
        match.refresh_from_db()
        if match.is_over:
            break
        commit(match, Pass())
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED, match.status
    return match


def play_out(match: Match, *, plays: int | None = None) -> Match:
    """Each player makes their highest-scoring play (passing when they have none) until the
    game ends, or for ``plays`` moves only."""
    made = 0
    while plays is None or made < plays:
        match.refresh_from_db()
        if match.is_over:
            break
        game = game_of(match, list(match.seats.order_by("position")))
        lexicon = get_lexicon(match.lexicon, max_len=game.ruleset.lexicon_max_len)
        best = best_play(legal_moves(game, lexicon=lexicon))
        commit(match, best.move if best is not None else Pass())
        made += 1
    match.refresh_from_db()
    return match


def forfeit(match: Match) -> Match:
    """The player to move lets the three days pass: the clock forfeits them."""
    match.refresh_from_db()
    assert match.turn_deadline_at is not None
    services.match_apply_deadlines(
        match_id=match.id, now=match.turn_deadline_at + timedelta(minutes=1)
    )
    match.refresh_from_db()
    assert match.end_reason == Match.EndReason.FORFEIT
    return match


def at(moment: datetime) -> time_machine.travel:
    """The clock stopped at ``moment`` (for creating and playing a match then)."""
    return time_machine.travel(moment, tick=False)
