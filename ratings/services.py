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
from matches.places import seat_places
from ratings.models import Rating, RatingChange
from ratings.policy import START, GameUpdate, Standing, rate_table

if TYPE_CHECKING:
    from datetime import datetime

#: The results a rating reads places from: a duel's, or a table's places.
_RESULTS = (Match.Result.FIRST, Match.Result.SECOND, Match.Result.DRAW, Match.Result.TABLE)
#: The match facts a rating needs, as ``Match.objects.values`` reads them.
_MATCH_FIELDS = ("id", "ruleset", "result", "finished_at")


def rated_places(match: Match, seats: Sequence[Seat]) -> dict[int, int] | None:
    """The places a rated match is rated on (member id: place), or None when it moves no
    rating: unrated, no result, or fewer than two seated members with a place (a duel's
    no-show has nobody in the other seat to be rated against; an abandoned match has no
    result)."""
    if not match.rated or match.finished_at is None:
        return None
    return seat_places(match, seats)


def is_rated_result(match: Match, seats: Sequence[Seat]) -> bool:
    """A rated match that finished with places between at least two seated members."""
    return rated_places(match, seats) is not None


def _changes(
    match_id: int, ruleset: str, updates: dict[int, GameUpdate], at: datetime
) -> list[RatingChange]:
    """One change per player, in seat order (``updates``' order); a duel's names the
    opponent, a table's none."""
    changes = []
    for member_id, update in updates.items():
        others = [other for other in updates if other != member_id]
        after = update.after.value
        changes.append(
            RatingChange(
                match_id=match_id,
                member_id=member_id,
                opponent_id=others[0] if len(others) == 1 else None,
                opponents=len(others),
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
        )
    return changes


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
    """Move every player's rating by the result of ``match``, once.

    Call it in the transaction that records the result, with the match row locked (as
    ``finish_match`` does). A duel is rated on its result, a table of 3-4 on the pairwise
    results of its places (``Seat.place``: the better place wins, the same place draws),
    each player in one rating period against every other. Locks the players' :class:`Rating`
    rows in the match's ruleset (``select_for_update``, in member order); writes them and a
    :class:`RatingChange` per player. An unrated match, or one without places between two
    members, changes nothing; a match whose changes are recorded already changes nothing
    again (the changes are unique per match and member). Returns the changes made, in seat
    order (or none).
    """
    places = rated_places(match, seats)
    if places is None:
        return ()
    if RatingChange.objects.filter(match_id=match.id).exists():
        return ()
    assert match.finished_at is not None, "rated_places: finished"
    ratings = _locked_ratings(list(places), match.ruleset)
    at = match.finished_at
    updates = rate_table({pk: ratings[pk].standing for pk in places}, places, at=at)
    changes = _changes(match.id, match.ruleset, updates, at)
    RatingChange.objects.bulk_create(changes)
    for member_id, update in updates.items():
        row = ratings[member_id]
        row.set_standing(update.after)
        row.save(update_fields=["rating", "deviation", "volatility", "games", "last_played_at"])
    return tuple(changes)


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

    Every rated match that finished with places between two members or more, in the order
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
        seats: dict[int, list[Seat]] = {}
        for seat in Seat.objects.filter(match_id__in=[m["id"] for m in matches]).order_by(
            "match_id", "position"
        ):
            seats.setdefault(seat.match_id, []).append(seat)
        standings: dict[tuple[int, str], Standing] = {}
        changes: list[RatingChange] = []
        rated = 0
        for facts in matches:
            match = Match(status=Match.Status.FINISHED, rated=True, **facts)
            places = rated_places(match, seats.get(match.id, []))
            if places is None:
                continue  # a no-show: nobody to be rated against
            ruleset, at = match.ruleset, facts["finished_at"]
            updates = rate_table(
                {pk: standings.get((pk, ruleset), Standing()) for pk in places}, places, at=at
            )
            for member_id, update in updates.items():
                standings[(member_id, ruleset)] = update.after
            changes += _changes(match.id, ruleset, updates, at)
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
