"""A member's rating in a ruleset, and the change each rated match made to it.

``RatingChange`` is the log (one row per player per rated match, unique, so a match is
applied once); ``Rating`` is where the log leaves each member, kept for the leaderboard and
as the row a result locks. ``manage.py ratings --rebuild`` recomputes both from the matches.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from ratings.glicko2 import Glicko2
from ratings.policy import Standing


class Rating(models.Model):
    """Where a member stands in one ruleset after their last rated game there."""

    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    ruleset = models.CharField(max_length=20)
    rating = models.FloatField()
    deviation = models.FloatField()
    volatility = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    last_played_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["ruleset", "-rating", "member_id"]
        constraints = [
            models.UniqueConstraint(fields=["member", "ruleset"], name="rating_once_per_ruleset"),
        ]

    def __str__(self) -> str:
        return f"{self.member} · {self.ruleset} · {self.rating:.0f}"

    @property
    def standing(self) -> Standing:
        return Standing(
            value=Glicko2(self.rating, self.deviation, self.volatility),
            games=self.games,
            last_played_at=self.last_played_at,
        )

    def set_standing(self, standing: Standing) -> None:
        self.rating = standing.value.rating
        self.deviation = standing.value.deviation
        self.volatility = standing.value.volatility
        self.games = standing.games
        self.last_played_at = standing.last_played_at


class RatingChange(models.Model):
    """What one rated match did to one player's rating: before (as it stood going in, the
    deviation grown over the idle time) and after; at a table, against every other player
    at once (one rating period, the pairwise results)."""

    match = models.ForeignKey(
        "matches.Match", on_delete=models.CASCADE, related_name="rating_changes"
    )
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    #: A duel's opponent; None at a table of 3-4 (the match lists who sat there).
    opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", null=True
    )
    #: How many players the member was rated against: 1 in a duel, 2-3 at a table.
    opponents = models.PositiveSmallIntegerField(default=1)
    ruleset = models.CharField(max_length=20)
    #: The pairwise results summed: a duel's 1, ½ or 0; at a table one for each player
    #: placed below, a half for each tie (docs/RATINGS.md, "Tables").
    score = models.FloatField()
    rating_before = models.FloatField()
    deviation_before = models.FloatField()
    volatility_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_after = models.FloatField()
    volatility_after = models.FloatField()
    played_at = models.DateTimeField()

    class Meta:
        ordering = ["played_at", "match_id", "member_id"]
        indexes = [
            models.Index(fields=["member", "ruleset", "played_at"], name="rating_change_history"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["match", "member"], name="rating_change_once"),
            models.CheckConstraint(
                condition=Q(score__gte=0.0, score__lte=models.F("opponents")),
                name="rating_change_score_of_its_opponents",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match_id} · {self.member} · {self.change:+.0f}"

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before

    @property
    def after(self) -> Glicko2:
        return Glicko2(self.rating_after, self.deviation_after, self.volatility_after)

    @property
    def before(self) -> Glicko2:
        return Glicko2(self.rating_before, self.deviation_before, self.volatility_before)


class EloRating(models.Model):
    """A member's Word Skill Elo (ratings.elo): games against Gramma Ana only, kept apart
    from the Glicko-2 ratings above. A member with no row stands at ``elo.START``."""

    member = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="elo_rating"
    )
    rating = models.PositiveSmallIntegerField()
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(rating__gte=800, rating__lte=2000), name="elo_rating_clamped"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.member} · Elo {self.rating}"


class EloChange(models.Model):
    """What one rated Word Skill game against Gramma Ana did to a member's Elo (once a game)."""

    class Outcome(models.TextChoices):
        WIN = "win", "Win"
        LOSS = "loss", "Loss"
        TIE = "tie", "Tie"

    rounds_match = models.ForeignKey(
        "rounds.RoundsMatch", on_delete=models.CASCADE, related_name="elo_changes"
    )
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="elo_changes"
    )
    outcome = models.CharField(max_length=4, choices=Outcome.choices)
    rating_before = models.PositiveSmallIntegerField()
    rating_after = models.PositiveSmallIntegerField()
    played_at = models.DateTimeField()

    class Meta:
        ordering = ["played_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["rounds_match", "member"], name="elo_change_once"),
        ]

    def __str__(self) -> str:
        return f"{self.rounds_match_id} · {self.member} · {self.change:+d}"

    @property
    def change(self) -> int:
        return self.rating_after - self.rating_before
