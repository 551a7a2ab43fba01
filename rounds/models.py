"""A Word Skill rounds match and its players (docs/RULES.md section 19).

The match is stored as matches/stored_game.py stores a fixture, adapted to rounds: the
engine's small position (``RoundsMatch.game_state``: ``RoundsGame.position_json``) beside the
log of actions (``RoundsMatch.actions``: ``engine.rounds.action_to_json`` rows), from which
``engine.rounds.replay`` rebuilds the whole game; each closed round is a ``ClosedRound`` row
(the engine's ``RoundRecord``), the public record of the round once it has closed (its
``drawn`` tiles stay hidden until the end: they are the next tray). The bag's seed is secret
until the end; its SHA-256, the commitment, is public from the start. None of the hidden
fields leaves the server except through ``matches.visibility.rounds``.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

#: A player's own time for a round: the default, and the range a host may choose from.
DEFAULT_TURN_TIME = timedelta(seconds=180)
MIN_TURN_TIME = timedelta(seconds=60)
MAX_TURN_TIME = timedelta(seconds=600)
#: How long a whole round may stay open (then it closes, whoever has not played).
DEFAULT_ROUND_TIME = timedelta(hours=24)
MIN_ROUND_TIME = timedelta(minutes=10)
MAX_ROUND_TIME = timedelta(days=7)
#: The most players a rounds match seats (Gramma Ana included).
MAX_PLAYERS = 8


def new_bag_seed() -> str:
    """The secret 256-bit seed of the match's bag, as hex."""
    return secrets.token_hex(32)


class RoundsMatch(models.Model):
    """A Word Skill match: opened by its host, joined by members, started by the host."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        LIVE = "live", "Live"
        FINISHED = "finished", "Finished"

    name = models.CharField(max_length=120)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_rounds_matches"
    )
    ruleset = models.CharField(max_length=20, default="word-skill")
    lexicon = models.CharField(max_length=40, default="enable")
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    #: Each player's own time for a round, from their start (a submission after it is refused).
    turn_time = models.DurationField(default=DEFAULT_TURN_TIME)
    #: How long a round stays open from its deal, whoever has not started or played.
    round_time = models.DurationField(default=DEFAULT_ROUND_TIME)
    #: A one-to-one game against Gramma Ana, rated with Word Skill's Elo (ratings.elo).
    rated = models.BooleanField(default=False)
    #: The rating Gramma Ana's cap follows (fixed when the game starts; None: she does not play).
    gramma_rating = models.PositiveSmallIntegerField(null=True, blank=True)

    # Public progress.
    round_number = models.PositiveIntegerField(default=0)
    round_opened_at = models.DateTimeField(null=True, blank=True)
    round_deadline_at = models.DateTimeField(null=True, blank=True)
    #: When the open round is due to close by the clock: its deadline, or sooner once every
    #: member has started and the last personal timer ends. Indexed for the sweep.
    closes_at = models.DateTimeField(null=True, blank=True)
    bag_count = models.PositiveSmallIntegerField(default=0)
    end_reason = models.CharField(max_length=12, blank=True, default="")

    # Hidden: never serialised except by matches.visibility.rounds, never logged.
    game_state = models.JSONField(null=True, blank=True, editable=False)
    actions = models.JSONField(default=list, editable=False)
    bag_seed = models.CharField(max_length=64, default=new_bag_seed, editable=False)
    bag_commitment = models.CharField(max_length=64, editable=False, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]
        verbose_name_plural = "rounds matches"
        indexes = [
            models.Index(
                fields=["closes_at", "id"], name="rounds_due_close", condition=Q(status="live")
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(ruleset="word-skill"), name="rounds_match_word_skill"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.bag_commitment:
            self.bag_commitment = hashlib.sha256(bytes.fromhex(self.bag_seed)).hexdigest()
        super().save(*args, **kwargs)

    @property
    def is_over(self) -> bool:
        return self.status == self.Status.FINISHED


class RoundsPlayer(models.Model):
    """One player of a rounds match: a member, or Gramma Ana (no member)."""

    match = models.ForeignKey(RoundsMatch, on_delete=models.CASCADE, related_name="players")
    position = models.PositiveSmallIntegerField()
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="rounds_players",
    )
    joined_at = models.DateTimeField()
    total = models.IntegerField(default=0)
    #: 1 for the winners (level totals share a place), once the match is over.
    place = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="rounds_player_position"),
            models.UniqueConstraint(
                fields=["match", "member"],
                condition=Q(member__isnull=False),
                name="rounds_player_member_once",
            ),
            models.UniqueConstraint(
                fields=["match"],
                condition=Q(member__isnull=True),
                name="rounds_one_gramma_ana",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match} · {self.name}"

    @property
    def is_gramma_ana(self) -> bool:
        return self.member_id is None

    @property
    def name(self) -> str:
        return "Gramma Ana" if self.member is None else str(self.member)


class RoundsReceipt(models.Model):
    """The answer a member's socket request was given, kept under its client id, so that a
    retried request (the same id: its answer was lost on the way) is answered the same and
    changes nothing, as a match's ``CommitReceipt`` does. Holds the member's own tray (a
    start) or play (a submission): only ever returned to them."""

    class Kind(models.TextChoices):
        START = "start", "Start of a round"
        SUBMIT = "submit", "Play or pass"

    match = models.ForeignKey(RoundsMatch, on_delete=models.CASCADE, related_name="receipts")
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    client_id = models.CharField(max_length=64)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    #: The engine's value answered: a start's own round, a submission (``to_json``).
    response = models.JSONField(editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["match", "member", "client_id"], name="rounds_receipt_once_per_id"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match} · {self.client_id}"


class ClosedRound(models.Model):
    """One closed round: the engine's ``RoundRecord`` as JSON (docs/RECORDS.md, "Rounds")."""

    match = models.ForeignKey(RoundsMatch, on_delete=models.CASCADE, related_name="closed_rounds")
    number = models.PositiveIntegerField()
    record = models.JSONField(editable=False)
    closed_at = models.DateTimeField()

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="rounds_closed_once"),
        ]

    def __str__(self) -> str:
        return f"{self.match} · round {self.number}"


class RoundsSeries(models.Model):
    """A Word Skill tournament (a duplicate club's series): its tournament's entrants meet in
    sessions, each one rounds match, scored by total and by percentage of the top."""

    tournament = models.OneToOneField(
        "matches.Tournament", on_delete=models.CASCADE, related_name="rounds_series"
    )
    #: Each session's personal timer and round deadline, set by the organiser.
    turn_time = models.DurationField(default=DEFAULT_TURN_TIME)
    round_time = models.DurationField(default=DEFAULT_ROUND_TIME)

    class Meta:
        verbose_name_plural = "rounds series"

    def __str__(self) -> str:
        return str(self.tournament)


class RoundsSession(models.Model):
    """One session of a series: a kick-off; at it (the beat task ``rounds.open_due_sessions``)
    the rounds match opens with the entrants present and starts, or the session is cancelled."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        OPENED = "opened", "Opened"
        CANCELLED = "cancelled", "Cancelled"

    series = models.ForeignKey(RoundsSeries, on_delete=models.CASCADE, related_name="sessions")
    number = models.PositiveSmallIntegerField()
    kickoff_at = models.DateTimeField()
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.SCHEDULED, db_index=True
    )
    #: The entrants who said they are there before kick-off: the session's players.
    present = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="rounds_sessions_present"
    )
    match = models.OneToOneField(
        RoundsMatch, null=True, blank=True, on_delete=models.PROTECT, related_name="session"
    )
    cancel_reason = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["series", "number"]
        indexes = [
            models.Index(
                fields=["kickoff_at", "id"],
                name="rounds_session_due",
                condition=Q(status="scheduled"),
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["series", "number"], name="rounds_session_number"),
        ]

    def __str__(self) -> str:
        return f"{self.series} · session {self.number}"
