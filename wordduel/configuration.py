"""Settings read from the environment that the project refuses when it cannot run with them.

A refusal is a :class:`SettingRefused` whose message is one line saying what to set; the
commands that start the project (``manage.py``, ``python -m wordduel.serve``) print that line
and exit, instead of failing later (a ``DATABASE_URL`` of another kind of database was taken
for PostgreSQL and failed after the connection pool's 10 s timeout) or with a traceback.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import dj_database_url

#: ``DATABASE_URL`` schemes meaning PostgreSQL (dj-database-url's names for it).
POSTGRES_SCHEMES = frozenset({"postgres", "postgresql", "pgsql"})
SQLITE_SCHEME = "sqlite"
DATABASE_URL_FORMS = "postgres://USER@HOST:PORT/NAME, or sqlite:///PATH for a SQLite file"


class SettingRefused(RuntimeError):
    """A setting the project cannot run with; the message is one line for whoever starts it."""


def refuse_unless(condition: bool, reason: str) -> None:
    """Raise :class:`SettingRefused` with ``reason`` unless ``condition`` holds."""
    if not condition:
        raise SettingRefused(reason)


def database_from_url(url: str) -> dict[str, Any]:
    """Django's database settings for ``DATABASE_URL``: PostgreSQL through the project's own
    backend (``wordduel.postgres``), or a SQLite file as the quick start uses; any other URL
    is refused, saying why."""
    scheme = urlsplit(url).scheme.lower()
    if scheme in POSTGRES_SCHEMES:
        database = _parse(url, engine="wordduel.postgres")
        refuse_unless(
            bool(database.get("NAME")), f"DATABASE_URL names no database: use {DATABASE_URL_FORMS}."
        )
        return database
    if scheme == SQLITE_SCHEME:
        database = _parse(url, engine="django.db.backends.sqlite3")
        name = str(database.get("NAME") or "")
        refuse_unless(
            bool(name) and name != ":memory:",
            "DATABASE_URL names an in-memory SQLite database, which each connection would see "
            "empty: name a file, sqlite:///PATH.",
        )
        return {"ENGINE": database["ENGINE"], "NAME": name}
    what = f"is a {scheme}:// database, which is not supported" if scheme else "is not a URL"
    raise SettingRefused(f"DATABASE_URL {what}: use {DATABASE_URL_FORMS}.") from None


def _parse(url: str, *, engine: str) -> dict[str, Any]:
    try:
        return dict(
            dj_database_url.parse(url, conn_max_age=0, conn_health_checks=True, engine=engine)
        )
    except ValueError as error:  # a port that is not a number, and the like
        raise SettingRefused(
            f"DATABASE_URL cannot be read ({error}): use {DATABASE_URL_FORMS}."
        ) from None
