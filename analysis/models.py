"""The best play of a turn's rack, worked out once and kept: a finished game never changes."""

from django.db import models

from matches.models import Turn


class BestPlay(models.Model):
    """The highest-scoring play the engine finds from the rack a turn was made from, on the
    board as it stood before that turn (``found`` is False when no play was possible).

    It holds letters of that rack, so it is the mover's secret: only
    ``matches.visibility`` decides who sees it (the mover, once the match is over).
    """

    turn = models.OneToOneField(
        Turn, on_delete=models.CASCADE, primary_key=True, related_name="best_play"
    )
    found = models.BooleanField()
    # As a Turn keeps its play: the placed tiles, and the words (main word first).
    placement = models.JSONField(default=list)
    words = models.JSONField(default=list)
    score = models.IntegerField(default=0)
    bingo = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.turn} · best play {self.score}"
