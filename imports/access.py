"""The one way to read an imported game: :func:`access_imported_game`.

Its owner may always open it; anyone else (signed in or not) only with its current share
key. To everyone else it does not exist: the page and any API answer 404, so neither its
existence nor its number of turns is revealed.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from imports.models import ImportedGame

#: A share key is 43 URL-safe characters; anything much longer is not one.
MAX_KEY_LENGTH = 128


class ImportedGameNotFound(LookupError):
    """No such imported game, as far as this viewer may know."""


@dataclass(frozen=True)
class ImportedGameAccess:
    """An imported game and how the viewer came to see it."""

    game: ImportedGame
    is_owner: bool
    #: The viewer presented the current share key.
    has_key: bool


def share_key(raw: object) -> str | None:
    """The share key a request presents (``?key=``), or None."""
    if not isinstance(raw, str):
        return None
    key = raw.strip()
    return key[:MAX_KEY_LENGTH] if key else None


def access_imported_game(*, user: Any, game_id: int, key: str | None) -> ImportedGameAccess:
    """The game ``user`` (holding ``key``) may open; raises ImportedGameNotFound otherwise."""
    game = ImportedGame.objects.select_related("owner").filter(pk=game_id).first()
    if game is None:
        raise ImportedGameNotFound(game_id)
    is_owner = bool(getattr(user, "is_authenticated", False) and user.pk == game.owner_id)
    has_key = bool(
        key
        and game.share_key
        and hmac.compare_digest(key.encode("utf-8", "replace"), game.share_key.encode())
    )
    if not (is_owner or has_key):
        raise ImportedGameNotFound(game_id)
    return ImportedGameAccess(game=game, is_owner=is_owner, has_key=has_key)


def owned_games(member: Any) -> QuerySet[ImportedGame]:
    """The member's own imported games, newest first (the list page)."""
    return ImportedGame.objects.filter(owner_id=member.pk).only(
        "id", "title", "ruleset", "lexicon", "share_key", "created_at", "status"
    )
