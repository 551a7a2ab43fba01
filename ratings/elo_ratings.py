"""Word Skill's Elo, stored: a member's rating against Gramma Ana, and each rated game's
change (``EloRating``, ``EloChange``; the math is :mod:`ratings.elo`). Apart from Glicko-2:
nothing here reads or writes a ``Rating``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from common.events import RoundsMatchEnded
from ratings import elo
from ratings.models import EloChange, EloRating


def elo_rating_of(member_id: int) -> int:
    """The member's Elo now (``elo.START`` before their first rated game)."""
    row = EloRating.objects.filter(member_id=member_id).values_list("rating", flat=True).first()
    return elo.START if row is None else int(row)


def outcome_against_gramma(place: int, gramma_place: int) -> elo.Outcome:
    """The member's outcome from the two places (level totals share a place)."""
    if place == gramma_place:
        return "tie"
    return "win" if place < gramma_place else "loss"


def rate_rounds_game(event: RoundsMatchEnded) -> None:
    """A rated one-to-one game against Gramma Ana ended: the member's Elo moves by the seed's
    numbers (±16, a tie nothing, clamped to 800-2,000). Run in the ending's transaction;
    a game is rated once (``EloChange`` is unique per game and member)."""
    if not event.rated or event.gramma_place is None or len(event.places) != 1:
        return
    ((member_id, place),) = event.places
    if EloChange.objects.filter(
        rounds_match_id=event.rounds_match_id, member_id=member_id
    ).exists():
        return
    at = timezone.now()
    row = EloRating.objects.select_for_update().filter(member_id=member_id).first()
    before = elo.START if row is None else row.rating
    outcome = outcome_against_gramma(place, event.gramma_place)
    after = elo.rate_against_gramma_ana(before, outcome)
    if row is None:
        row = EloRating(member_id=member_id, rating=after, games=1, updated_at=at)
    else:
        row.rating, row.games, row.updated_at = after, row.games + 1, at
    row.save()
    EloChange.objects.create(
        rounds_match_id=event.rounds_match_id,
        member_id=member_id,
        outcome=outcome,
        rating_before=before,
        rating_after=after,
        played_at=at,
    )


@dataclass(frozen=True)
class EloChangeLine:
    """One rated game against Gramma Ana, as the player page lists it."""

    played_at: datetime
    match_name: str
    outcome: str
    before: int
    after: int

    @property
    def change(self) -> int:
        return self.after - self.before


@dataclass(frozen=True)
class EloLine:
    """A member's Word Skill Elo and their rated games against Gramma Ana, newest first."""

    rating: int
    games: int
    changes: list[EloChangeLine]


def elo_line(member_id: int, *, limit: int = 20) -> EloLine | None:
    """The member's Word Skill Elo for their player page (None: no rated game yet)."""
    row = EloRating.objects.filter(member_id=member_id).first()
    if row is None:
        return None
    changes = (
        EloChange.objects.filter(member_id=member_id)
        .select_related("rounds_match")
        .order_by("-played_at", "-id")[:limit]
    )
    return EloLine(
        rating=row.rating,
        games=row.games,
        changes=[
            EloChangeLine(
                played_at=change.played_at,
                match_name=change.rounds_match.name,
                outcome=change.get_outcome_display(),
                before=change.rating_before,
                after=change.rating_after,
            )
            for change in changes
        ],
    )
