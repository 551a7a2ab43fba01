"""Test helpers that read the hidden state directly (tests may; the product may not)."""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass
from itertools import permutations
from typing import Any

from engine import Game, Move, get_ruleset, move_from_dict
from lexicon.lexicon import get_lexicon
from matches import services
from matches import stored_game as position
from matches.integrity import match_problems
from matches.models import Match, Seat, Turn


def title_of(match: Match) -> str:
    """The match's title as every page, email and feed writes it (its label and players)."""
    from matches.visibility import match_title

    return match_title(match, list(match.seats.select_related("member").order_by("position")))


@dataclass(frozen=True)
class Outcome:
    """A commit's answer as a test reads it: accepted or refused, the same either way."""

    accepted: bool
    code: str
    message: str
    ack: dict[str, Any]
    replayed: bool


def commit_move(*, move: dict[str, Any] | Move, **commit: Any) -> Outcome:
    """``services.match_commit`` with a move as the engine's value or its wire dict; the
    answer or the refusal as an :class:`Outcome`."""
    if isinstance(move, dict):
        move = move_from_dict(move)
    try:
        committed = services.match_commit(move=move, **commit)
    except services.MoveRefused as refusal:
        answer = {"code": refusal.code, "message": refusal.message}
        return Outcome(False, refusal.code, refusal.message, answer, refusal.replayed)
    answer = committed.answer.model_dump(mode="json")
    return Outcome(True, "accepted", "", answer, committed.replayed)


def position_of(match: Match) -> str:
    """The position a move names as ``after`` now: the last turn's record hash, or the bag's
    commitment before turn 1 (``match`` read afresh)."""
    match.refresh_from_db()
    return _last_hash(match)


def _last_hash(match: Match) -> str:
    last = Turn.objects.filter(match_id=match.pk, number=match.turn_number)
    return last.values_list("record_hash", flat=True).first() or match.bag_commitment


def commit_now(
    match: Match,
    member: Any,
    move: dict[str, Any] | Move,
    *,
    client_id: str | None = None,
    against: int | None = None,
    after: str | None = None,
    assert_accepted: bool = False,
) -> Outcome:
    """The one way a test makes a move through ``services.match_commit``: against the
    match's turn and position as they stand now (read afresh), or ``against`` and ``after``
    (under ``void`` no position unless ``after``: as every duel's client sends); under a fresh
    client id unless one is given. With ``assert_accepted``, a refusal fails the test, naming
    it."""
    match.refresh_from_db()
    if after is None and match.challenge_rule != "void":
        after = _last_hash(match)
    outcome = commit_move(
        match_id=match.id,
        member=member,
        move=move,
        against_turn=match.turn_number if against is None else against,
        after=after,
        client_id=client_id if client_id is not None else f"test-{uuid.uuid4().hex[:16]}",
    )
    if assert_accepted:
        assert outcome.accepted, outcome
    return outcome


def game_of(match: Match) -> Game:
    """The match's game at its stored position (matches/stored_game.py), read afresh."""
    match.refresh_from_db()
    return position.game_of(match, list(match.seats.order_by("position")))


def assert_tiles_conserved(match: Match) -> None:
    """Board + racks + bag is the ruleset's full set, and the bag's count agrees."""
    game = game_of(match)
    full = sorted(get_ruleset(match.ruleset).full_bag)
    assert game.tiles_in_play() == full
    assert match.bag_count == game.bag_count
    assert match_problems(match) == []


def opening_play(rack: str, *, size: int = 15) -> dict[str, Any]:
    """A legal opening from ``rack``: a two-letter ENABLE word across the star."""
    lexicon = get_lexicon("enable")
    centre = size // 2
    for first, second in permutations(range(len(rack)), 2):
        letters = []
        for index in (first, second):
            tile = rack[index]
            letters.append(("E", True) if tile == "?" else (tile, False))
        word = letters[0][0] + letters[1][0]
        if word in lexicon:
            return {
                "kind": "play",
                "tiles": [
                    {"row": centre, "col": centre + i, "letter": letter, "blank": blank}
                    for i, (letter, blank) in enumerate(letters)
                ],
            }
    raise AssertionError(f"no two-letter word in {rack}")


def rack_of(match: Match, position: int) -> str:
    return Seat.objects.get(match=match, position=position).rack


def counts(rack: str) -> Counter[str]:
    return Counter(rack)


def opening_then_pass(match: Match, first: Any, second: Any, *, ids: tuple[str, str]) -> Match:
    """First plays a two-letter opening, Second passes (client ids ``ids``): two sound moves."""
    commit_move(
        match_id=match.id,
        member=first,
        move=opening_play(rack_of(match, 0)),
        against_turn=0,
        client_id=ids[0],
    )
    commit_move(
        match_id=match.id, member=second, move={"kind": "pass"}, against_turn=1, client_id=ids[1]
    )
    match.refresh_from_db()
    return match
