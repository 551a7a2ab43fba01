"""A member's declared days away (``Vacation``) and each tournament's allowance of them.

A vacation is whole days in the member's own time zone (their notification settings' zone,
UTC when they have none), kept both as the dates they chose and as the instants those days
began and ended when they declared it, so a later change of zone moves nothing. It is charged
to the tournaments in which the member had a scheduled or live match when they declared it,
and it pauses their turn deadlines in those tournaments' matches only (``pauses.py``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class VacationAllowance(models.Model):
    """How many days away a tournament allows each member (its whole run is one season).

    A tournament without a row allows ``settings.VACATION_DAYS_PER_TOURNAMENT``. Kept here,
    not on ``matches.Tournament``, so the vacation feature owns its own table.
    """

    tournament = models.OneToOneField(
        "matches.Tournament", on_delete=models.CASCADE, related_name="vacation_allowance"
    )
    days = models.PositiveSmallIntegerField()
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.tournament}: {self.days} days"


class Vacation(models.Model):
    """Days away, first to last inclusive; active unless cancelled (only before it starts)."""

    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vacations"
    )
    first_day = models.DateField()
    last_day = models.DateField()
    time_zone = models.CharField(max_length=64)
    # The instants the days began and ended in ``time_zone`` (``ends_at`` exclusive).
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    # The tournaments whose allowance it uses and whose matches it pauses.
    tournaments = models.ManyToManyField("matches.Tournament", related_name="+")
    declared_at = models.DateTimeField()
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["starts_at", "id"]
        indexes = [
            models.Index(
                fields=["member", "ends_at"],
                name="vacation_active_by_member",
                condition=Q(cancelled_at__isnull=True),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(last_day__gte=models.F("first_day")), name="vacation_days_in_order"
            ),
            models.CheckConstraint(
                condition=Q(ends_at__gt=models.F("starts_at")), name="vacation_instants_in_order"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.member}: {self.first_day} to {self.last_day}"

    @property
    def days(self) -> int:
        return (self.last_day - self.first_day).days + 1
