"""Notices to members, how each reaches them, and what each member asked for.

A :class:`Notice` is one thing to tell one member (your move in match 7 at turn 12), stored
once under a unique ``key``: a retried task, a replayed commit or a sweep run twice finds
the row already there and sends nothing more. Each way it goes out (email, web push) is a
:class:`Delivery`, claimed under a row lock by whichever worker gets it first and marked
sent in the same transaction. Notices hold ids, never text: what a notice says is built
when it is sent, from what ``matches.visibility`` lets its member see.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import models


class Kind(models.TextChoices):
    YOUR_MOVE = "your_move", "Your move"
    FIXTURE = "fixture", "Fixture scheduled or changed"
    KICKOFF = "kickoff", "Kick-off in one hour"
    FORFEIT = "forfeit", "Forfeit warning"
    RESULT = "result", "Result"
    DIGEST = "digest", "Daily digest"
    # ---- organiser changes (notifications/organiser_changes.py): chosen as "fixture"
    MOVED = "moved", "Kick-off moved"
    SUBSTITUTE = "substitute", "Player substituted"
    # ---- end of organiser changes
    # A new round of a Swiss or a knockout (notifications/rounds.py): chosen as "fixture".
    ROUND = "round", "New round paired"
    # Friendly games (notifications/friendlies.py).
    CHALLENGE = "challenge", "A challenge to you"
    REMATCH = "rematch", "A rematch offered"
    # A Word Skill round dealt (notifications/round_ready.py): chosen as "your move".
    READY = "ready", "Round ready"


class Channel(models.TextChoices):
    EMAIL = "email", "Email"
    PUSH = "push", "Web push"


#: The kinds a member turns on or off per channel (the digest follows "your move" by email).
CHOSEN_KINDS = (
    Kind.YOUR_MOVE,
    Kind.FIXTURE,
    Kind.KICKOFF,
    Kind.FORFEIT,
    Kind.RESULT,
    # Friendly games (notifications/friendlies.py).
    Kind.CHALLENGE,
    Kind.REMATCH,
)
DEFAULT_WARNING_HOURS = [24, 2]
#: The forfeit warning that quiet hours never hold back (and any later one).
URGENT_WARNING_HOURS = 2


#: Kinds a member does not choose on their own: each goes by the channels of the kind it
#: belongs to (an organiser's change to a fixture, as the fixture's own notice).
CHOSEN_AS: dict[str, str] = {
    # ---- organiser changes
    Kind.MOVED: Kind.FIXTURE,
    Kind.SUBSTITUTE: Kind.FIXTURE,
    # ---- end of organiser changes
    Kind.ROUND: Kind.FIXTURE,
    Kind.READY: Kind.YOUR_MOVE,
}


def chosen_as(kind: str) -> str:
    """The kind a member's choice for ``kind`` is stored under (itself, if chosen alone)."""
    return CHOSEN_AS.get(kind, kind)


def default_warning_hours() -> list[int]:
    return list(DEFAULT_WARNING_HOURS)


def default_kinds() -> list[str]:
    return [kind.value for kind in CHOSEN_KINDS]


class NotificationSettings(models.Model):
    """One member's choices: which notices by which channel, when, in which time zone."""

    class EmailMode(models.TextChoices):
        AT_ONCE = "at_once", "At once, one email per move"
        DIGEST = "digest", "A daily digest"

    member = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_settings"
    )
    time_zone = models.CharField(max_length=64, default="UTC")
    email_kinds = models.JSONField(default=default_kinds)
    push_kinds = models.JSONField(default=default_kinds)
    email_warning_hours = models.JSONField(default=default_warning_hours)
    push_warning_hours = models.JSONField(default=default_warning_hours)
    your_move_email = models.CharField(
        max_length=8, choices=EmailMode.choices, default=EmailMode.AT_ONCE
    )
    digest_hour = models.PositiveSmallIntegerField(default=8)
    #: "Your move" in a practice game against the computer (off: it answers within seconds,
    #: and a notice after each of its replies is noise).
    practice_your_move = models.BooleanField(default=False)
    # Quiet hours, whole hours of the member's day; equal (or unset) means none.
    quiet_start = models.PositiveSmallIntegerField(null=True, blank=True)
    quiet_end = models.PositiveSmallIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "notification settings"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(digest_hour__lte=23), name="notification_digest_hour"
            ),
        ]

    def __str__(self) -> str:
        return f"notification settings of {self.member}"

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.time_zone)

    def kinds(self, channel: str) -> list[str]:
        return list(self.email_kinds if channel == Channel.EMAIL else self.push_kinds)

    def warning_hours(self, channel: str) -> list[int]:
        hours = self.email_warning_hours if channel == Channel.EMAIL else self.push_warning_hours
        return sorted({int(h) for h in hours}, reverse=True)

    def quiet_until(self, at: datetime) -> datetime | None:
        """When the quiet hours around ``at`` end (the next morning), or None if ``at`` is
        not within them."""
        start, end = self.quiet_start, self.quiet_end
        if start is None or end is None or start == end:
            return None
        local = at.astimezone(self.zone)
        hour = local.hour
        inside = start <= hour < end if start < end else (hour >= start or hour < end)
        if not inside:
            return None
        day = local.date() if hour < end else local.date() + timedelta(days=1)
        wake = datetime(day.year, day.month, day.day, end, tzinfo=self.zone)
        return wake.astimezone(at.tzinfo)


class Notice(models.Model):
    """One thing to tell one member, once (``key`` is unique)."""

    key = models.CharField(max_length=120, unique=True)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    match = models.ForeignKey(
        "matches.Match", null=True, blank=True, on_delete=models.CASCADE, related_name="notices"
    )
    # A challenge addressed to the member (notifications/friendlies.py).
    challenge = models.ForeignKey(
        "challenges.Challenge",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="notices",
    )
    # A Word Skill rounds match's round dealt (its number is ``turn_number``).
    rounds_match = models.ForeignKey(
        "rounds.RoundsMatch",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="notices",
    )
    # The turn it is about (your move, forfeit warnings) and the warning's hours.
    turn_number = models.PositiveIntegerField(null=True, blank=True)
    hours = models.PositiveSmallIntegerField(null=True, blank=True)
    # The organiser's change it tells of (a kick-off moved, a substitution).
    organiser_action = models.ForeignKey(
        "matches.OrganiserAction",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="notices",
    )
    created_at = models.DateTimeField()
    # Set when its deliveries were decided; the sweep picks up any a lost task left undone.
    dispatched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(
                fields=["created_at", "id"],
                name="notice_undispatched",
                condition=models.Q(dispatched_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return self.key


class Delivery(models.Model):
    """One notice by one channel: pending until due, then sent once (or skipped)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENT = "sent", "Sent"
        SKIPPED = "skipped", "Skipped"
        FAILED = "failed", "Failed"

    notice = models.ForeignKey(Notice, on_delete=models.CASCADE, related_name="deliveries")
    channel = models.CharField(max_length=5, choices=Channel.choices)
    status = models.CharField(max_length=7, choices=Status.choices, default=Status.PENDING)
    due_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)
    sent_at = models.DateTimeField(null=True, blank=True)
    # Why it was skipped or failed (no secret and no notice text, only the reason).
    detail = models.CharField(max_length=200, blank=True)

    class Meta:
        verbose_name_plural = "deliveries"
        constraints = [
            models.UniqueConstraint(fields=["notice", "channel"], name="delivery_once_per_channel"),
        ]
        indexes = [
            models.Index(
                fields=["due_at", "id"],
                name="delivery_due",
                condition=models.Q(status="pending"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.notice.key} by {self.channel}"


class PushSubscription(models.Model):
    """One browser's push subscription (its endpoint is unique: one row per browser)."""

    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    user_agent = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_sent_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"push subscription of {self.member}"


def new_calendar_secret() -> str:
    """43 URL-safe characters (256 bits): the part of a feed's address no one can guess."""
    return secrets.token_urlsafe(32)


class CalendarFeed(models.Model):
    """A member's secret calendar address: whoever holds it reads that member's fixtures
    (and members-only tournaments) without signing in, so it can be rotated, and the old
    address then stops working."""

    member = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feed"
    )
    secret = models.CharField(max_length=64, default=new_calendar_secret)
    rotated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"calendar feed of {self.member}"
