"""What one viewer may see of a Word Skill rounds match (docs/RULES.md section 19).

The one door out for rounds data, as the rest of this package is for matches: the rounds app
hands in the engine's game and the closed rounds, and builds its pages, API answers, socket
frames and notices only from what these functions return. The policy, written once:

- a player's **tray** shows only to that player, and only once they have started the round
  (their own timer runs from then); nobody else sees it before the round closes;
- a **play or pass** is seen by its player alone until the round closes; then every
  submission of the round is public, with the play placed and why;
- who has **started** and who has **finished** the open round is public (never what);
- the **tiles drawn** for the next tray (``RoundRecord.drawn``, ``returned``) would tell
  the next tray: hidden until the match is over;
- the **bag's seed** only once the match is over (its commitment from the start);
- a **tray put back** because it had no play (``OpenRound.redealt``, ``RoundRecord.redealt``,
  ``RoundsGame.unplayable``) is public as soon as it is rejected: it went back to the bag and
  tells nothing of the tray dealt after it.

Pure: engine values in, engine values out; no model, no query (the caller reads the rows
consistently, under its own transaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.rounds import OpenRound, RoundRecord, RoundsGame, Submission


@dataclass(frozen=True)
class OwnRoundSight:
    """The open round as its player sees it, once they started it."""

    number: int
    tray: tuple[str, ...]
    started_at_ms: int
    submission: Submission | None


@dataclass(frozen=True)
class RoundsSight:
    """Everything one viewer may see of a rounds match now."""

    board: tuple[str, ...]
    bag_count: int
    round_number: int
    #: Per player: started the open round, finished it (public facts, no content).
    started: tuple[bool, ...]
    submitted: tuple[bool, ...]
    own_round: OwnRoundSight | None
    closed: tuple[RoundRecord, ...]
    bag_seed: str | None
    #: Whether the closed rounds' ``drawn`` tiles are shown (once the match is over).
    drawn_public: bool
    #: Trays dealt for the open round and put back, none with a play (public).
    redealt: tuple[tuple[str, ...], ...] = ()
    #: At a ``no_play`` end, every tray dealt for the round that never opened (public).
    unplayable: tuple[tuple[str, ...], ...] = ()


def own_round(current: OpenRound | None, position: int | None) -> OwnRoundSight | None:
    """The open round's tray and the player's own submission: for its player only, and only
    once they started it."""
    if current is None or position is None or not 0 <= position < len(current.started):
        return None
    started_at = current.started[position]
    if started_at is None:
        return None
    return OwnRoundSight(
        number=current.number,
        tray=current.tray,
        started_at_ms=started_at,
        submission=current.submission_of(position),
    )


def public_record(record: RoundRecord, *, over: bool) -> RoundRecord:
    """A closed round as everyone may see it: every play, but the tiles drawn for the next
    tray (and any returned to the bag) only once the match is over."""
    if over:
        return record
    return replace(record, drawn=(), returned=())


def progress(current: OpenRound | None) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """Who started and who finished the open round: public, without what they played."""
    if current is None:
        return (), ()
    submitted = {s.player for s in current.submissions}
    return (
        tuple(at is not None for at in current.started),
        tuple(player in submitted for player in range(len(current.started))),
    )


def rounds_sight(
    *,
    game: RoundsGame | None,
    closed: tuple[RoundRecord, ...],
    over: bool,
    bag_seed: str,
    viewer_position: int | None,
) -> RoundsSight:
    """What a viewer (the player at ``viewer_position``, or None: a spectator, a visitor)
    may see of the match: ``game`` is its stored position (None before the start)."""
    current = game.current if game is not None else None
    started, submitted = progress(current)
    return RoundsSight(
        board=tuple(game.board.rows()) if game is not None else (),
        bag_count=game.bag_count if game is not None else 0,
        round_number=game.round_number if game is not None else 0,
        started=started,
        submitted=submitted,
        own_round=own_round(current, viewer_position),
        closed=tuple(public_record(record, over=over) for record in closed),
        bag_seed=bag_seed_for(over=over, bag_seed=bag_seed),
        drawn_public=over,
        redealt=current.redealt if current is not None else (),
        unplayable=game.unplayable if game is not None else (),
    )


def bag_seed_for(*, over: bool, bag_seed: str) -> str | None:
    """The bag's seed: public once the match is over, to nobody before."""
    return bag_seed if over else None


def submission_for(submission: Submission, *, viewer_position: int | None) -> Submission | None:
    """A submission of the open round: its own player's only (an acknowledgement)."""
    return submission if viewer_position == submission.player else None


@dataclass(frozen=True)
class RoundReadySight:
    """What a "Round n is ready" notice may say: the match's name and the round (public)."""

    name: str
    number: int


def round_ready_sight(
    *, name: str, number: int, game_state: dict[str, Any] | None, position: int | None
) -> RoundReadySight | None:
    """The notice of round ``number`` to the player at ``position`` (the stored position
    ``game_state`` read here, the one door), while it still holds: the round is the open one
    and they have not started it (None: stale, not sent). No tray, no play."""
    if game_state is None or position is None:
        return None
    current = RoundsGame.from_json(game_state).current
    if current is None or current.number != number or not 0 <= position < len(current.started):
        return None
    if current.started[position] is not None:
        return None
    return RoundReadySight(name=name, number=number)


@dataclass(frozen=True)
class TableLine:
    """One player's line of a finished match's final table (public once it is over)."""

    name: str
    total: int
    place: int
    you: bool


@dataclass(frozen=True)
class RoundsResultSight:
    """What a rounds match's result notice may say to one of its members: their place, the
    final table, why it ended (all public once the match is over)."""

    name: str
    place: int
    shared: bool
    table: tuple[TableLine, ...]
    end_reason: str
    rounds: int


@dataclass(frozen=True)
class FinalPlayer:
    """A player of a finished match as the caller read it: position, name, total, place."""

    position: int
    name: str
    total: int
    place: int | None
    member_id: int | None


def rounds_result_sight(
    *,
    name: str,
    over: bool,
    end_reason: str,
    rounds: int,
    players: Sequence[FinalPlayer],
    member_id: int,
) -> RoundsResultSight | None:
    """The result told to member ``member_id``: only once the match is over, and only to a
    member who played it (None: not sent). No tray, no bag, no play."""
    if not over:
        return None
    mine = next((p for p in players if p.member_id == member_id), None)
    if mine is None or mine.place is None:
        return None
    ordered = sorted(players, key=lambda p: (p.place or len(players) + 1, p.position))
    return RoundsResultSight(
        name=name,
        place=mine.place,
        shared=sum(1 for p in players if p.place == mine.place) > 1,
        table=tuple(
            TableLine(name=p.name, total=p.total, place=p.place or 0, you=p is mine)
            for p in ordered
        ),
        end_reason=end_reason,
        rounds=rounds,
    )
