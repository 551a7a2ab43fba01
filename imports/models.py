"""An imported game: a member's own GCG record and its checked, analysed replay.

Not a match: no seats, no bag, no clock, no tournament, so nothing that reads matches
(standings, the home page, the API's match routes) ever sees one. The record is kept as
uploaded (decoded text) and the replay as built then (``imports.schemas.Replay``), so the
page shows what the import showed even if the lexicon's list changes later.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ImportedGame(models.Model):
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

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.title
