"""Members: the club's people. The custom user model from the very first migration."""

from django.contrib.auth.models import AbstractUser
from django.db import models

ORGANISER_PERMISSION = "accounts.organise"


class Member(AbstractUser):
    """A club member; only members take a seat or place a tile."""

    display_name = models.CharField(max_length=40, blank=True)

    class Meta:
        permissions = [("organise", "Can schedule fixtures and tournaments and seat players")]

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def is_organiser(self) -> bool:
        """Organisers hold the ``accounts.organise`` permission (superusers hold every one)."""
        return self.has_perm(ORGANISER_PERMISSION)
