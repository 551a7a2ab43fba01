"""A classic table of 2-4 seated through the services, and moves for it (tests may read the
hidden state; the product may not)."""

from __future__ import annotations

import hashlib
import uuid
from datetime import timedelta
from typing import Any

from django.db import transaction

from engine import PlacedTile, Play, best_play, legal_plays
from lexicon.lexicon import get_lexicon
from matches import services
from matches.models import Match, Seat
from tests.matches.helpers import commit_now, game_of


def table_match(
    organiser: Any,
    members: list[Any],
    *,
    seed: int = 1,
    challenge: str = "void",
    window: timedelta | None = None,
    finish_line: int | None = None,
    ruleset: str = "classic",
) -> Match:
    """A live classic table of ``len(members)`` seats, its bag fixed by ``seed``, each member
    seated in order through the service (the last one opens it)."""
    with transaction.atomic():
        match = services.create_match(
            name=f"Table {seed}",
            organiser=organiser,
            kickoff_at=None,
            ruleset=ruleset,
            lexicon="enable",
            visibility_=Match.Visibility.PUBLIC,
            no_show_window=None,
            seat_count=len(members),
            challenge_rule=challenge,
            challenge_window=window,
            finish_line=finish_line,
        )
    bag_seed = hashlib.sha256(f"word-duel-table-{seed}".encode()).hexdigest()
    Match.objects.filter(pk=match.pk).update(
        bag_seed=bag_seed, bag_commitment=hashlib.sha256(bytes.fromhex(bag_seed)).hexdigest()
    )
    for position in range(len(members)):
        Seat.objects.filter(match=match, position=position).update(
            contribution=hashlib.sha256(f"{seed}-{position}".encode()).hexdigest()[:32]
        )
    for position, member in enumerate(members):
        services.match_take_seat(match_id=match.pk, member=member, position=position)
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    return match


def member_to_move(match: Match, members: list[Any]) -> Any:
    match.refresh_from_db()
    assert match.to_move is not None
    return members[match.to_move]


def good_play(match: Match) -> Play:
    """The best play for the seat to move (a real word, or words, of the lexicon)."""
    game = game_of(match)
    rack = game.racks[game.to_move]
    moves = legal_plays(game.board, rack, ruleset=game.ruleset, lexicon=get_lexicon("enable"))
    best = best_play(moves)
    assert best is not None, f"no play from {rack}"
    assert isinstance(best.move, Play)
    return best.move


def phony_opening(match: Match) -> Play:
    """An opening of two of the mover's tiles across the star that is not a word."""
    game = game_of(match)
    rack = [tile for tile in game.racks[game.to_move] if tile != "?"]
    lexicon = get_lexicon("enable")
    centre = game.board.size // 2
    for index, first in enumerate(rack):
        for second in rack[:index] + rack[index + 1 :]:
            if first + second not in lexicon:
                return Play(
                    (
                        PlacedTile(centre, centre, first, False),
                        PlacedTile(centre, centre + 1, second, False),
                    )
                )
    raise AssertionError(f"every pair of {rack} is a word")


def play_now(match: Match, members: list[Any], move: Any) -> None:
    """The seat to move makes ``move``; it must be accepted."""
    commit_now(match, member_to_move(match, members), move, assert_accepted=True)


def challenge_now(match: Match, member: Any, *, turn: int | None = None) -> Any:
    """``member`` challenges the last play through the service (the answer, or the refusal
    as the exception it raised)."""
    match.refresh_from_db()
    try:
        return services.match_challenge(
            match_id=match.pk,
            member=member,
            client_id=f"challenge-{uuid.uuid4().hex[:12]}",
            expected_turn=match.turn_number if turn is None else turn,
        )
    except services.ServiceError as refusal:
        return refusal
