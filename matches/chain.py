"""The hash-chained turn log: each turn's public record names the hash of the one before.

A turn's *public record* is the canonical JSON (below) of the fields every viewer sees in the
move log, plus ``previous``: the record hash of the turn before, or for turn 1 the bag's
commitment (``sha256(seed)``, public before the first tile is drawn). Its *record hash* is
the SHA-256 of those bytes, in lower-case hex. The hash is published with the turn (turn
news, replay, API, GCG ``#turn-hash``), so a turn changed afterwards no longer matches what
was published, and breaks every later link. docs/RECORDS.md, "The turn log's chain", is the
reference; ``matches/static/fairness.js`` computes the same bytes in the browser.

Canonical JSON: keys sorted, no whitespace (``","`` and ``":"``), non-ASCII written as
``\\uXXXX`` (lower-case hex), integers in decimal, ``true``/``false``. The fields::

    bag_count   the tiles left in the bag after the turn
    kind        "play", "swap" or "pass"
    number      the turn's number, from 1
    position    the mover's seat, 0 (First) or 1 (Second)
    previous    the previous record's hash, or the bag's commitment for turn 1
    score       the points the turn scored
    swap_count  how many tiles a swap returned (0 otherwise)
    tiles       a play's placed tiles as {"blank", "col", "letter", "row"} in the order
                the log keeps them ([] otherwise)
    totals      [First's total, Second's total] after the turn (at a table of 3-4, every
                seat's total in seat order)
    words       a play's words as {"position", "score", "tiles", "word"} ([] otherwise)

Only at a table or under a challenge rule, and only when they apply (so every duel's record
and hash is as it always was)::

    challenge   the play's adjudicated challenge {"by", "phonies", "points"}; the turn's
                totals are then those after it (the challenged turn is always the last
                one, so its hash is recomputed once, before any turn chains on it)
    lost_turn   true: a turn lost to a wrong double challenge (a pass nobody made)

Only under Reword, and only for a play with swaps and steals (so every other record and
hash is as it always was)::

    takes       the play's takes in order, each {"blank", "col", "letter", "placed",
                "placed_blank", "row", "take"} (``schemas.TakeView``: the board tile
                taken, and for a swap the rack tile put down; ``placed`` null for a steal)

Private facts (a rack, a draw, a swap's letters) and the time are not in it: the rack and
draws are checked against the seed instead (the bag check), and a swap's letters stay
private for good.

This module is plain functions over plain values: the migration that backfilled the chain
imports it, so a change to the format needs a new migration, not an edit here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

TILE_KEYS = ("blank", "col", "letter", "row")
WORD_KEYS = ("position", "score", "tiles", "word")
TAKE_KEYS = ("blank", "col", "letter", "placed", "placed_blank", "row", "take")


class TurnFields(Protocol):
    """What a turn row (a model instance, current or historical) offers the chain."""

    number: int
    position: int
    kind: str
    placement: Any
    swap_count: int
    words: Any
    score: int
    first_total: int
    second_total: int
    bag_count: int


def canonical_json(value: object) -> bytes:
    """The one byte string a JSON value is hashed as (see the module docstring)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode(
        "ascii"
    )


def _picked(items: Iterable[Mapping[str, Any]], keys: Sequence[str]) -> list[dict[str, Any]]:
    return [{key: item[key] for key in keys} for item in items]


def public_record(turn: TurnFields, previous: str) -> dict[str, Any]:
    """The turn's public record as a JSON value (not yet bytes)."""
    play = turn.kind == "play"
    extra_totals = [
        total
        for total in (getattr(turn, "third_total", None), getattr(turn, "fourth_total", None))
        if total is not None
    ]
    record = {
        "bag_count": turn.bag_count,
        "kind": turn.kind,
        "number": turn.number,
        "position": turn.position,
        "previous": previous,
        "score": turn.score,
        "swap_count": turn.swap_count if turn.kind == "swap" else 0,
        "tiles": _picked(turn.placement, TILE_KEYS) if play else [],
        "totals": [turn.first_total, turn.second_total, *extra_totals],
        "words": _picked(turn.words, WORD_KEYS) if play else [],
    }
    challenge = getattr(turn, "challenge", None)
    if challenge is not None:
        record["challenge"] = {key: challenge[key] for key in ("by", "phonies", "points")}
    if getattr(turn, "lost_turn", False):
        record["lost_turn"] = True
    takes = getattr(turn, "takes", None)
    if takes:
        record["takes"] = _picked(takes, TAKE_KEYS)
    return record


def record_hash(turn: TurnFields, previous: str) -> str:
    """SHA-256 (hex) of the turn's canonical public record chained to ``previous``."""
    return hashlib.sha256(canonical_json(public_record(turn, previous))).hexdigest()


def chain_hashes(turns: Sequence[TurnFields], commitment: str) -> list[str]:
    """The record hash each of ``turns`` (in order, from turn 1) should carry."""
    hashes: list[str] = []
    previous = commitment
    for turn in turns:
        previous = record_hash(turn, previous)
        hashes.append(previous)
    return hashes


def chain_problems(turns: Sequence[Any], commitment: str) -> list[str]:
    """Where the stored chain breaks: the first turn whose stored ``record_hash`` is not the
    hash of its public record chained to the one before (recomputed), naming the turn.

    A turn changed after it was made is named; when its hash was rewritten to match, the next
    turn is (its record still names the old hash), so the earliest break is the edit.
    """
    previous = commitment
    for turn in turns:
        expected = record_hash(turn, previous)
        if turn.record_hash != expected:
            return [
                (
                    f"turn {turn.number}'s public record does not match its published hash "
                    f"(the turn, or one before it, was changed after it was made)"
                )
            ]
        previous = turn.record_hash
    return []
