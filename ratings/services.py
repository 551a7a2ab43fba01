"""Changes to ratings: a rated match's result applied once, and the whole log rebuilt.

:func:`apply_match_result` runs inside the transaction that records a match's result
(``matches.services.lifecycle.finish_match``, under the match's row lock), so a result and
its rating changes commit together or not at all. :func:`rebuild_ratings` recomputes every
rating from the matches alone, in the order they finished; it gives what the live updates
gave whenever matches sharing a player finished in the order they committed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import connection, transaction

from matches.models import Match, Seat
from ratings.models import Rating, RatingChange
from ratings.policy import START, GameUpdate, Standing, rate_game

if TYPE_CHECKING:
    from datetime import datetime

_RESULTS = (Match.Result.FIRST, Match.Result.SECOND, Match.Result.DRAW)
#: The match facts a rating needs, as ``Match.objects.values`` reads them.
_MATCH_FIELDS = ("id", "ruleset", "result", "finished_at")


def is_rated_result(match: Match, seats: Sequence[Seat]) -> bool:
    """A rated match that finished with a result between two seated members.

    A no-show has nobody in the other seat, so no opponent to be rated against; an
    abandoned match has no result. Neither changes a rating.
    """
    return (
        match.rated
        and match.status == Match.Status.FINISHED
        and match.result in _RESULTS
        and match.finished_at is not None
        and len(seats) == 2
        and all(seat.member_id is not None for seat in seats)
    )


def _change(
    match_id: int,
    ruleset: str,
    member_id: int,
    opponent_id: int,
    update: GameUpdate,
    at: datetime,
) -> RatingChange:
    after = update.after.value
    return RatingChange(
        match_id=match_id,
        member_id=member_id,
        opponent_id=opponent_id,
        ruleset=ruleset,
        score=update.score,
        rating_before=update.before.rating,
        deviation_before=update.before.deviation,
        volatility_before=update.before.volatility,
        rating_after=after.rating,
        deviation_after=after.deviation,
        volatility_after=after.volatility,
        played_at=at,
    )


def _locked_ratings(member_ids: Sequence[int], ruleset: str) -> dict[int, Rating]:
    """The members' rating rows in ``ruleset``, created at the start if missing, locked
    (``select_for_update``) in member order so two results never wait on each other in a
    circle."""
    Rating.objects.bulk_create(
        [
            Rating(
                member_id=member_id,
                ruleset=ruleset,
                rating=START.rating,
                deviation=START.deviation,
                volatility=START.volatility,
            )
            for member_id in member_ids
        ],
        ignore_conflicts=True,  # a row made already, by another result or before
    )
    rows = (
        Rating.objects.select_for_update()
        .filter(member_id__in=member_ids, ruleset=ruleset)
        .order_by("member_id")
    )
    return {row.member_id: row for row in rows}


def apply_match_result(*, match: Match, seats: Sequence[Seat]) -> tuple[RatingChange, ...]:
    """Move both players' ratings by the result of ``match``, once.

    Call it in the transaction that records the result, with the match row locked (as
    ``finish_match`` does). Locks both players' :class:`Rating` rows in the match's ruleset
    (``select_for_update``); writes the two rows and the two :class:`RatingChange` rows. An
    unrated match, or one with no result between two members, changes nothing; a match
    whose changes are recorded already changes nothing again (the changes are unique per
    match and member). Returns the changes made, First's then Second's (or none).
    """
    if not is_rated_result(match, seats):
        return ()
    if RatingChange.objects.filter(match_id=match.id).exists():
        return ()
    first_id, second_id = (seat.member_id for seat in seats)
    assert first_id is not None, "is_rated_result: both seats held"
    assert second_id is not None, "is_rated_result: both seats held"
    assert match.finished_at is not None, "is_rated_result: finished"
    ratings = _locked_ratings([first_id, second_id], match.ruleset)
    first, second = ratings[first_id], ratings[second_id]
    at = match.finished_at
    first_update, second_update = rate_game(
        first.standing, second.standing, result=match.result, at=at
    )
    changes = (
        _change(match.id, match.ruleset, first_id, second_id, first_update, at),
        _change(match.id, match.ruleset, second_id, first_id, second_update, at),
    )
    RatingChange.objects.bulk_create(changes)
    for row, update in ((first, first_update), (second, second_update)):
        row.set_standing(update.after)
        row.save(update_fields=["rating", "deviation", "volatility", "games", "last_played_at"])
    return changes


@dataclass(frozen=True)
class Rebuilt:
    """What a rebuild recomputed."""

    matches: int
    ratings: int


def _lock_tables() -> None:
    """Keep results from being rated while the log is rebuilt: on PostgreSQL the two tables
    are locked against writers (a result waits, then applies on top of the rebuilt log); on
    SQLite the rebuild's write transaction already holds the only write lock."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                f"LOCK TABLE {Rating._meta.db_table}, {RatingChange._meta.db_table} "
                "IN EXCLUSIVE MODE"
            )


def rebuild_ratings() -> Rebuilt:
    """Recompute every rating and rating change from the matches alone.

    Every rated match that finished with a result between two members, in the order
    they finished (then by id), is rated exactly as :func:`apply_match_result` rates it.
    One transaction: the old rows go and the new ones come together, with both tables
    locked against writers meanwhile (see :func:`_lock_tables`). Deterministic: the same
    matches give the same numbers, bit for bit.
    """
    with transaction.atomic():
        _lock_tables()
        matches = list(
            Match.objects.filter(
                rated=True,
                status=Match.Status.FINISHED,
                result__in=_RESULTS,
                finished_at__isnull=False,
            )
            .order_by("finished_at", "id")
            .values(*_MATCH_FIELDS)
        )
        members: dict[int, dict[int, int | None]] = {}
        for seat in Seat.objects.filter(match_id__in=[m["id"] for m in matches]).values(
            "match_id", "position", "member_id"
        ):
            members.setdefault(seat["match_id"], {})[seat["position"]] = seat["member_id"]
        standings: dict[tuple[int, str], Standing] = {}
        changes: list[RatingChange] = []
        rated = 0
        for match in matches:
            first_id, second_id = (members.get(match["id"], {}).get(p) for p in (0, 1))
            if first_id is None or second_id is None:
                continue  # a no-show: nobody to be rated against
            ruleset, at = match["ruleset"], match["finished_at"]
            first_key, second_key = (first_id, ruleset), (second_id, ruleset)
            first_update, second_update = rate_game(
                standings.get(first_key, Standing()),
                standings.get(second_key, Standing()),
                result=match["result"],
                at=at,
            )
            standings[first_key], standings[second_key] = first_update.after, second_update.after
            changes += [
                _change(match["id"], ruleset, first_id, second_id, first_update, at),
                _change(match["id"], ruleset, second_id, first_id, second_update, at),
            ]
            rated += 1
        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        rows = []
        for (member_id, ruleset), standing in standings.items():
            row = Rating(member_id=member_id, ruleset=ruleset)
            row.set_standing(standing)
            rows.append(row)
        Rating.objects.bulk_create(rows)
        RatingChange.objects.bulk_create(changes)
    return Rebuilt(matches=rated, ratings=len(rows))
