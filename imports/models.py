"""An imported game: a member's own GCG record and its checked, analysed replay.

Not a match: no seats, no bag, no clock, no tournament, so nothing that reads matches
(standings, the home page, the API's match routes) ever sees one. The record is kept as
uploaded (decoded text) and the replay as built then (``imports.schemas.Replay``), so the
page shows what the import showed even if the lexicon's list changes later.

The import's request checks the record and keeps it with its checked replay at once
(``QUEUED``); a Celery task (``imports.tasks``) then runs the move generator and stores the
analysed replay (``RUNNING``, then ``DONE``, or ``FAILED`` with the checked replay kept).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ImportedGame(models.Model):
    class Status(models.TextChoices):
        """Where the analysis (the best play of each rack) stands."""

        QUEUED = "queued", "Waiting to be analysed"
        RUNNING = "running", "Being analysed"
        DONE = "done", "Analysed"
        FAILED = "failed", "Analysis failed"

    #: The states that hold up the member's next import (one at a time).
    IN_PROGRESS = (Status.QUEUED, Status.RUNNING)

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="imported_games"
    )
    title = models.CharField(max_length=200)
    ruleset = models.CharField(max_length=32)
    lexicon = models.CharField(max_length=64)
    #: The uploaded file's name (empty when the record was pasted).
    file_name = models.CharField(max_length=255, blank=True)
    #: The record as read (decoded by its pragma or ISO-8859-1), and the codec used.
    record_text = models.TextField()
    encoding = models.CharField(max_length=32, blank=True)
    #: ``imports.schemas.Replay`` as JSON.
    replay = models.JSONField()
    #: The secret of the share link; None while the game is private to its owner.
    share_key = models.CharField(max_length=64, null=True, blank=True, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.DONE)
    #: When its analysis task was last queued, started (by the worker running it) and ended.
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    analysed_at = models.DateTimeField(null=True, blank=True)
    #: How many times a worker has taken its analysis (a task that keeps dying gives up).
    attempts = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # A member's imports in progress (one at a time) and the sweep's stalled ones.
            models.Index(
                fields=["status", "owner"],
                name="imported_game_in_progress",
                condition=models.Q(status__in=["queued", "running"]),
            )
        ]

    def __str__(self) -> str:
        return self.title
