"""Members: the club's people. The custom user model from the very first migration.

Also the club's own settings (:class:`Club`, one row: how people join) and the invitation
links organisers hand out (:class:`Invitation`).
"""

import secrets
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractUser
from django.contrib.auth.validators import ASCIIUsernameValidator
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.crypto import salted_hmac

from accounts.names import (
    DISPLAY_NAME_LENGTH,
    NAME_RESERVED,
    display_name_refusal,
    is_reserved,
    skeleton,
)

ORGANISER_PERMISSION = "accounts.organise"
NAME_TAKEN = "That name is taken, or looks too much like a member's name."


#: The longest bio on a profile.
BIO_LENGTH = 500


class Member(AbstractUser):
    """A club member; only *approved* members take a seat or place a tile.

    ``membership`` is what "member" means in the rules: a sign-up waiting for an organiser is
    ``pending``, a declined or removed one ``removed``; only ``approved`` accounts see
    members-only matches, take seats and appear in pairings. Accounts an organiser or the
    admin creates are approved; only a sign-up under the "approval" policy waits.

    Usernames are plain ASCII; a display name is one line. No two members go by names that
    look alike (see :mod:`accounts.names`): ``username_key`` and ``display_key`` hold the
    skeletons, unique among every member's username and display name alike. A key is
    computed when its name is set or changed: a member whose name came to look like an
    earlier member's when the skeleton changed keeps no key (the migrations decide) until
    renamed, and can still sign in and save everything else.
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

    class Membership(models.TextChoices):
        PENDING = "pending", "Waiting for an organiser"
        APPROVED = "approved", "Member"
        REMOVED = "removed", "Not a member"
        #: A visitor playing the computer without an account (:mod:`accounts.guests`).
        GUEST = "guest", "Guest"

    membership = models.CharField(
        max_length=8, choices=Membership.choices, default=Membership.APPROVED
    )
    membership_decided_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    membership_decided_at = models.DateTimeField(null=True, blank=True)
    email_verified = models.BooleanField(default=False)
    #: A new address asked for and not yet confirmed: ``email`` stays the account's address
    #: (sign-in, password resets, every notice) until the link mailed here is opened.
    pending_email = models.EmailField(blank=True)
    bio = models.TextField(max_length=BIO_LENGTH, blank=True)
    #: Changed by "sign out everywhere else": part of the session hash, so every other
    #: session (and socket) of this member stops being signed in.
    session_epoch = models.CharField(max_length=32, blank=True, editable=False)
    #: When the account was deleted (the row stays, anonymised, for the game records).
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        permissions = [("organise", "Can schedule fixtures and tournaments and seat players")]

    #: The names as read from the database (``from_db``): a key follows its name's changes.
    _names_loaded: tuple[str, str] | None = None

    @classmethod
    def from_db(cls, db: Any, field_names: Any, values: Any) -> "Member":
        member = super().from_db(db, field_names, values)
        member.remember_loaded_names()
        return member

    def remember_loaded_names(self) -> None:
        if not {"username", "display_name"} & self.get_deferred_fields():
            self._names_loaded = (self.username, self.display_name)

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def label(self) -> str:
        """How pages name the member: the display name, with the username beside it (a
        guest is "Guest": its account name is nobody's)."""
        if self.is_guest:
            return "Guest"
        if not self.display_name:
            return self.username
        if skeleton(self.display_name) == skeleton(self.username):
            return self.display_name  # the same name, written otherwise
        return f"{self.display_name} ({self.username})"

    @property
    def is_club_member(self) -> bool:
        """An approved member: what "member" means in the rules, pages and protocol."""
        return self.is_active and self.membership == Member.Membership.APPROVED

    @property
    def is_guest(self) -> bool:
        """A visitor playing the computer without an account (never active, never a member)."""
        return self.membership == Member.Membership.GUEST

    def _get_session_auth_hash(self, secret: str | None = None) -> str:
        """Django's hash of the password, plus the sign-out epoch once one is set (so
        sessions from before the field existed stay signed in)."""
        key_salt = "django.contrib.auth.models.AbstractBaseUser.get_session_auth_hash"
        value = f"{self.password}:{self.session_epoch}" if self.session_epoch else self.password
        return salted_hmac(key_salt, value, secret=secret, algorithm="sha256").hexdigest()

    @property
    def is_organiser(self) -> bool:
        """Organisers hold the ``accounts.organise`` permission (superusers hold every one)."""
        return self.has_perm(ORGANISER_PERMISSION)

    def clean(self) -> None:
        super().clean()
        loaded = self._names_loaded or ("", "")
        refusal = (
            display_name_refusal(self.display_name)
            if self.display_name and self.display_name != loaded[1]
            else None
        )
        if refusal is not None:
            raise ValidationError({"display_name": refusal})
        if self.username and self.username != loaded[0] and is_reserved(self.username):
            raise ValidationError({"username": NAME_RESERVED})
        others = Member.objects.exclude(pk=self.pk)
        own = {skeleton(self.username or "")}
        if self.display_name:
            own.add(skeleton(self.display_name))
        if others.filter(Q(username_key__in=own) | Q(display_key__in=own)).exists():
            field = "display_name" if self.display_name else "username"
            raise ValidationError({field: NAME_TAKEN})

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, with the key of each name set or changed (a name saved unchanged keeps
        its key as stored)."""
        update_fields = kwargs.get("update_fields")
        username, display_name = self._names_loaded or (None, None)
        keys = set()
        if update_fields is None or "username" in update_fields:
            if self.username != username:
                self.username_key = skeleton(self.username or "")
                keys.add("username_key")
            username = self.username
        if update_fields is None or "display_name" in update_fields:
            if self.display_name != display_name:
                self.display_key = skeleton(self.display_name) if self.display_name else None
                keys.add("display_key")
            display_name = self.display_name
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, *keys}
        super().save(*args, **kwargs)
        if username is not None and display_name is not None:
            self._names_loaded = (username, display_name)

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        super().refresh_from_db(*args, **kwargs)
        self.remember_loaded_names()


class Club(models.Model):
    """The club's settings, one row (``Club.current()``), changed by organisers on a page.

    A row, not an environment variable: how people join is the organisers' decision and
    changes during a season, and needing server access to change it is what issue 19 is
    about.
    """

    class SignUp(models.TextChoices):
        OPEN = "open", "Open: anyone who signs up is a member"
        APPROVAL = "approval", "Approval: an organiser approves each sign-up"
        INVITATION = "invitation", "Invitation: only with an organiser's invitation link"

    sign_up = models.CharField(max_length=10, choices=SignUp.choices, default=SignUp.APPROVAL)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"club settings ({self.sign_up})"

    @classmethod
    def current(cls) -> "Club":
        club, _ = cls.objects.get_or_create(pk=1)
        return club


def new_invitation_token() -> str:
    return secrets.token_urlsafe(24)


class Invitation(models.Model):
    """A sign-up link an organiser hands out: ``uses_left`` more sign-ups until it expires or
    is revoked. A sign-up through it makes an approved member at once."""

    token = models.CharField(max_length=64, unique=True, default=new_invitation_token)
    note = models.CharField(max_length=100, blank=True)
    created_by = models.ForeignKey(
        Member, null=True, on_delete=models.SET_NULL, related_name="invitations"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    max_uses = models.PositiveIntegerField(default=1)
    uses = models.PositiveIntegerField(default=0)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(uses__lte=models.F("max_uses")), name="invitation_uses_within_max"
            ),
        ]

    def __str__(self) -> str:
        return f"invitation {self.pk} ({self.uses}/{self.max_uses})"

    def state(self, now: datetime) -> str:
        """``usable``, ``revoked``, ``expired`` or ``used_up``, at ``now``."""
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at <= now:
            return "expired"
        if self.uses >= self.max_uses:
            return "used_up"
        return "usable"
