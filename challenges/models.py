"""A posted challenge and a rematch offer: each a row that one service locks to decide it.

Both end in an ordinary fixture (``matches.Match``) made at the moment both sides have agreed,
never before: until then nothing exists that a clock or a pairing could see.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q

#: How long a posted challenge stays open. Nothing sweeps it: past this it is simply neither
#: listed nor acceptable (the row stays, ``open`` in the database, as a record).
CHALLENGE_LIFETIME = timedelta(days=7)


def challenge_expiry(posted_at: datetime) -> datetime:
    return posted_at + CHALLENGE_LIFETIME


class Challenge(models.Model):
    """A member's offer of a friendly game to any member, or to one (``opponent``)."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ACCEPTED = "accepted", "Accepted"
        WITHDRAWN = "withdrawn", "Withdrawn"

    poster = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_posted"
    )
    #: Only this member may accept; anyone (but the poster) when empty.
    opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="challenges_received",
    )
    ruleset = models.CharField(max_length=20, default="word-duel")
    lexicon = models.CharField(max_length=40, default="enable")
    rated = models.BooleanField(default=False)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.OPEN)
    posted_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    match = models.OneToOneField(
        "matches.Match",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="challenge",
    )

    class Meta:
        ordering = ["-posted_at", "-id"]
        indexes = [models.Index(fields=["status", "expires_at"], name="challenge_open")]
        constraints = [
            models.CheckConstraint(
                condition=~Q(opponent=models.F("poster")), name="challenge_not_to_oneself"
            ),
        ]

    def __str__(self) -> str:
        return f"Challenge {self.pk} by {self.poster_id} ({self.status})"

    def is_open_at(self, now: datetime) -> bool:
        """Open and not yet expired: listed, and acceptable."""
        return self.status == Challenge.Status.OPEN and self.expires_at > now


class RematchOffer(models.Model):
    """One player's offer of a rematch of a finished friendly; one offer per match."""

    class Status(models.TextChoices):
        OFFERED = "offered", "Offered"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"

    original = models.OneToOneField(
        "matches.Match", on_delete=models.CASCADE, related_name="rematch_offer"
    )
    offered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OFFERED)
    offered_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    rematch = models.OneToOneField(
        "matches.Match",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rematch_of",
    )

    def __str__(self) -> str:
        return f"Rematch offer on match {self.original_id} ({self.status})"
