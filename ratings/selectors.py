"""Read-only questions about ratings: the leaderboard, a player's ratings and history, what a
match changed, where players stood at a moment, and seeding by rating.

Ratings are shown as they stand when asked: the deviation grown over the time since the
member's last rated game (:meth:`ratings.policy.Standing.at`). Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from accounts.models import Member
from matches.models import Match, Tournament
from ratings.glicko2 import Glicko2
from ratings.models import Rating, RatingChange
from ratings.policy import START, Standing, is_provisional

if TYPE_CHECKING:
    from django.db.models import QuerySet

P = TypeVar("P", bound=Member)


def shown(value: float, deviation: float) -> str:
    """A rating as pages write it: whole points, ``?`` after a provisional one (``1500?``)."""
    return f"{round(value)}{'?' if is_provisional(deviation) else ''}"


@dataclass(frozen=True)
class RatingLine:
    """A member's rating in a ruleset as it stands now."""

    member_id: int
    username: str
    name: str
    ruleset: str
    rating: float
    deviation: float
    games: int
    last_played_at: datetime | None
    #: Whether the member has a player's page to link to (approved members only).
    has_page: bool = True

    @property
    def provisional(self) -> bool:
        return is_provisional(self.deviation)

    @property
    def shown(self) -> str:
        return shown(self.rating, self.deviation)

    @property
    def rounded(self) -> int:
        return round(self.rating)

    @property
    def rounded_deviation(self) -> int:
        return round(self.deviation)


def _line(row: Rating, now: datetime) -> RatingLine:
    value = row.standing.at(now)
    return RatingLine(
        member_id=row.member_id,
        username=row.member.username,
        name=row.member.label,
        ruleset=row.ruleset,
        rating=value.rating,
        deviation=value.deviation,
        games=row.games,
        last_played_at=row.last_played_at,
        has_page=row.member.is_club_member,
    )


@dataclass(frozen=True)
class Leaderboard:
    """One ruleset's table: members with a settled rating, best first, then the
    provisional ones (too few games, or too long away, to rank yet)."""

    ruleset: str
    settled: list[RatingLine]
    provisional: list[RatingLine]

    @property
    def ranked(self) -> list[RatingLine]:
        """The table's lines: the settled ratings; while nobody's is settled (a club's first
        season), the provisional ones, ranked as they stand and marked, not nothing."""
        return self.settled or self.provisional

    @property
    def unranked(self) -> list[RatingLine]:
        """The provisional ratings listed after the table (none when they are the table)."""
        return self.provisional if self.settled else []


def rated_rulesets() -> list[str]:
    """The rulesets anyone holds a rating in, by name."""
    return sorted(set(Rating.objects.values_list("ruleset", flat=True)))


def leaderboard(ruleset: str, *, now: datetime) -> Leaderboard:
    """The ruleset's members by rating as it stands ``now`` (ties: more games, then name)."""
    rows = Rating.objects.filter(ruleset=ruleset).select_related("member")
    lines = sorted(
        (_line(row, now) for row in rows),
        key=lambda line: (-line.rating, -line.games, line.username.lower()),
    )
    return Leaderboard(
        ruleset=ruleset,
        settled=[line for line in lines if not line.provisional],
        provisional=[line for line in lines if line.provisional],
    )


def player_ratings(member: Member, *, now: datetime) -> list[RatingLine]:
    """The member's rating in every ruleset they have played rated matches in."""
    rows = Rating.objects.filter(member=member).select_related("member").order_by("ruleset")
    return [_line(row, now) for row in rows]


def halves(score: float) -> str:
    """A score in halves as a club writes it: ``2½``, ``½``, ``3``."""
    whole, half = divmod(round(score * 2), 2)
    return f"{whole or ''}½" if half else str(whole)


@dataclass(frozen=True)
class HistoryLine:
    """One rated match in a player's history."""

    match_id: int
    match_name: str
    played_at: datetime
    opponent_username: str
    opponent: str
    score: float
    before: Glicko2
    after: Glicko2
    opponent_has_page: bool = True
    #: 1 in a duel; at a table of 3-4 the players rated against (``opponent`` then names
    #: the table and ``score`` is the pairwise results summed).
    opponents: int = 1

    @property
    def outcome(self) -> str:
        if self.opponents == 1:
            return {1.0: "won", 0.5: "drew", 0.0: "lost"}[self.score]
        return f"{halves(self.score)} of {self.opponents} pairwise"

    @property
    def change(self) -> int:
        """The change as pages show it: the difference of the two ratings shown."""
        return round(self.after.rating) - round(self.before.rating)

    @property
    def before_shown(self) -> str:
        return shown(self.before.rating, self.before.deviation)

    @property
    def after_shown(self) -> str:
        return shown(self.after.rating, self.after.deviation)


def history(member: Member, ruleset: str) -> list[HistoryLine]:
    """The member's rated matches in ``ruleset`` in the order they were rated (so each
    game's "before" is the last one's "after"), with what each changed."""
    changes = (
        RatingChange.objects.filter(member=member, ruleset=ruleset)
        .select_related("match", "opponent")
        .order_by("id")
    )
    return [
        HistoryLine(
            match_id=change.match_id,
            match_name=change.match.name,
            played_at=change.played_at,
            opponent_username=change.opponent.username if change.opponent else "",
            opponent=(
                change.opponent.label if change.opponent else f"a table of {change.opponents + 1}"
            ),
            score=change.score,
            before=change.before,
            after=change.after,
            opponent_has_page=change.opponent is not None and change.opponent.is_club_member,
            opponents=change.opponents,
        )
        for change in changes
    ]


@dataclass(frozen=True)
class ChangeLine:
    """What a rated match did to one player's rating."""

    username: str
    name: str
    before: str
    after: str
    change: int
    has_page: bool = True

    @property
    def change_text(self) -> str:
        return f"{self.change:+d}" if self.change else "±0"


@dataclass(frozen=True)
class MatchRatings:
    """Whether a match is rated and, once its result is in, what it did to each rating."""

    rated: bool
    changes: list[ChangeLine]


def match_ratings(match: Match) -> MatchRatings:
    """The rating changes of ``match`` in seat order (none if unrated or not over).

    Whoever may see the match may see these: a change says no more than the result does.
    """
    changes = RatingChange.objects.filter(match=match).select_related("member")
    seat_of = {seat.member_id: seat.position for seat in match.seats.all()}
    lines = sorted(changes, key=lambda change: seat_of.get(change.member_id, 4))
    return MatchRatings(
        rated=match.rated,
        changes=[
            ChangeLine(
                username=change.member.username,
                name=change.member.label,
                before=shown(change.rating_before, change.deviation_before),
                after=shown(change.rating_after, change.deviation_after),
                change=round(change.rating_after) - round(change.rating_before),
                has_page=change.member.is_club_member,
            )
            for change in lines
        ],
    )


def ratings_at(member_ids: Sequence[int], ruleset: str, when: datetime) -> dict[int, Glicko2]:
    """Each member's rating in ``ruleset`` as it stood at ``when``, read from the log (the
    last change before then, its deviation grown to ``when``; a newcomer's start)."""
    last: dict[int, RatingChange] = {}
    changes: QuerySet[RatingChange] = RatingChange.objects.filter(
        member_id__in=member_ids, ruleset=ruleset, played_at__lte=when
    ).order_by("played_at", "match_id")
    for change in changes:
        last[change.member_id] = change
    return {
        member_id: (
            Standing(value=last[member_id].after, last_played_at=last[member_id].played_at).at(when)
            if member_id in last
            else START
        )
        for member_id in member_ids
    }


def current_ratings(
    member_ids: Sequence[int], ruleset: str, *, now: datetime
) -> dict[int, Glicko2]:
    """Each member's rating in ``ruleset`` as it stands ``now`` (a newcomer's start)."""
    rows = Rating.objects.filter(member_id__in=member_ids, ruleset=ruleset)
    stood = {row.member_id: row.standing.at(now) for row in rows}
    return {member_id: stood.get(member_id, START) for member_id in member_ids}


def seeded_by_rating(players: Sequence[P], *, ruleset: str, at: datetime) -> list[P]:
    """``players`` by rating in ``ruleset`` as it stands ``at``, highest first; equal
    ratings keep the order they were given in."""
    ratings = current_ratings([player.pk for player in players], ruleset, now=at)
    return sorted(players, key=lambda player: -ratings[player.pk].rating)


@dataclass(frozen=True)
class Entrant:
    """A tournament player and their rating when the tournament was created."""

    username: str
    name: str
    rating: Glicko2
    has_page: bool = True

    @property
    def shown(self) -> str:
        return shown(self.rating.rating, self.rating.deviation)

    @property
    def rounded_deviation(self) -> int:
        return round(self.rating.deviation)


@dataclass(frozen=True)
class Entrants:
    """A tournament's players by their rating at its start, in its fixtures' ruleset."""

    ruleset: str
    rated: bool
    players: list[Entrant]


def tournament_entrants(tournament: Tournament) -> Entrants:
    """Each player's rating when ``tournament`` was created (when it was seeded), best first."""
    first = tournament.matches.order_by("id").values_list("ruleset", flat=True).first()
    ruleset = first or "word-duel"
    players = list(tournament.players.all())
    at_start = ratings_at([player.pk for player in players], ruleset, tournament.created_at)
    ordered = sorted(
        players, key=lambda player: (-at_start[player.pk].rating, player.username.lower())
    )
    return Entrants(
        ruleset=ruleset,
        rated=tournament.rated,
        players=[Entrant(p.username, p.label, at_start[p.pk], p.is_club_member) for p in ordered],
    )
