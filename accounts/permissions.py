"""Who may organise: the one check the services of every app ask."""

from __future__ import annotations

from typing import Any

from common.errors import NotAllowed


def require_organiser(member: Any) -> None:
    """Refuse (``NotAllowed``) anyone who is not a signed-in organiser."""
    if not (getattr(member, "is_authenticated", False) and member.is_organiser):
        raise NotAllowed("Only organisers can do that.")
