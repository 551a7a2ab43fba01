"""Which seats of a match the computer holds, and how it plays there."""

from django.db import models

from matches.models import Match

LEVELS = [("easy", "Easy"), ("normal", "Normal"), ("hard", "Hard")]


class ComputerOpponent(models.Model):
    """The computer in one seat of a practice match: its level (changeable while the match
    is live) and the cap on its words' difficulty (100: every word). A duel has one; a
    practice table of 3-4 has one to three, each in its own seat under its own account."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="computers")
    position = models.PositiveSmallIntegerField()
    level = models.CharField(max_length=6, choices=LEVELS, default="normal")
    vocabulary_cap = models.PositiveSmallIntegerField(default=100)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(position__in=[0, 1, 2, 3]), name="computer_one_of_four_seats"
            ),
            models.UniqueConstraint(fields=["match", "position"], name="computer_once_per_seat"),
            models.CheckConstraint(
                condition=models.Q(vocabulary_cap__gte=1, vocabulary_cap__lte=100),
                name="computer_cap_1_to_100",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match} · the computer ({self.level})"
