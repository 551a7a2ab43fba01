"""What "download my data" gathers: the account's own fields, and each app's part.

Accounts imports no app above it; an app that keeps data about a member registers a part
from its ``AppConfig.ready()`` (:func:`register`). A part writes its files into the archive
and returns the entries it adds to ``profile.json``.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from typing import Any

#: ``part(member, archive)``: write the part's files, return its ``profile.json`` entries.
Part = Callable[[Any, zipfile.ZipFile], dict[str, Any]]

_parts: dict[str, Part] = {}


def register(name: str, part: Part) -> None:
    """Add ``part`` to every export (registering a name again replaces it)."""
    _parts[name] = part


def parts() -> tuple[Part, ...]:
    """The registered parts, in the order their apps registered them."""
    return tuple(_parts.values())
