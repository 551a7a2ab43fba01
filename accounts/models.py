"""Members: the club's people. The custom user model from the very first migration."""

from typing import Any

from django.contrib.auth.models import AbstractUser
from django.contrib.auth.validators import ASCIIUsernameValidator
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from accounts.names import DISPLAY_NAME_LENGTH, display_name_refusal, skeleton

ORGANISER_PERMISSION = "accounts.organise"
NAME_TAKEN = "That name is taken, or looks too much like a member's name."


class Member(AbstractUser):
    """A club member; only members take a seat or place a tile.

    Usernames are plain ASCII; a display name is one line. No two members go by names that
    look alike (see :mod:`accounts.names`): ``username_key`` and ``display_key`` hold the
    skeletons, unique among every member's username and display name alike.
    """

    # django-stubs types the attribute as the Unicode validator; Django takes any validator.
    username_validator = ASCIIUsernameValidator()  # type: ignore[assignment]
    username = models.CharField(
        "username",
        max_length=150,
        unique=True,
        help_text="Letters, digits and @ . + - _ only (no accents or other scripts).",
        validators=[username_validator],
        error_messages={"unique": "A user with that username already exists."},
    )

    display_name = models.CharField(max_length=DISPLAY_NAME_LENGTH, blank=True)
    # NULL, not "", for "no such name": unique among members who have one.
    username_key = models.CharField(max_length=160, unique=True, null=True, editable=False)  # noqa: DJ001
    display_key = models.CharField(max_length=160, unique=True, null=True, editable=False)  # noqa: DJ001

    class Meta:
        permissions = [("organise", "Can schedule fixtures and tournaments and seat players")]

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def label(self) -> str:
        """How pages name the member: the display name, with the username beside it."""
        if not self.display_name:
            return self.username
        if skeleton(self.display_name) == skeleton(self.username):
            return self.display_name  # the same name, written otherwise
        return f"{self.display_name} ({self.username})"

    @property
    def is_organiser(self) -> bool:
        """Organisers hold the ``accounts.organise`` permission (superusers hold every one)."""
        return self.has_perm(ORGANISER_PERMISSION)

    def clean(self) -> None:
        super().clean()
        refusal = display_name_refusal(self.display_name) if self.display_name else None
        if refusal is not None:
            raise ValidationError({"display_name": refusal})
        others = Member.objects.exclude(pk=self.pk)
        own = {skeleton(self.username or "")}
        if self.display_name:
            own.add(skeleton(self.display_name))
        if others.filter(Q(username_key__in=own) | Q(display_key__in=own)).exists():
            field = "display_name" if self.display_name else "username"
            raise ValidationError({field: NAME_TAKEN})

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.username_key = skeleton(self.username or "")
        self.display_key = skeleton(self.display_name) if self.display_name else None
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, "username_key", "display_key"}
        super().save(*args, **kwargs)
