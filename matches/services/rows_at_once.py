"""A change's rows written in one statement: the round trips and ORM compiling of a move.

A move writes five rows (the mover's seat, the turn, the match, the opponent's notice, the
receipt). Saved one by one, each is a statement Django compiles and PostgreSQL answers in its
own round trip. Collected here, they go in one explicit statement through the public cursor
API: on PostgreSQL a ``WITH`` of data-modifying statements, whose text is the same for every
move of the same shape, so psycopg prepares it on the server (``prepare_threshold``). SQLite
takes no writes in a ``WITH``: there each row is saved by the ORM as before, in order.

Rows are described with Django's public field API (``_meta``'s concrete fields, a field's
``pre_save`` and ``get_db_prep_save``), so a model's columns and conversions are its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from django.db import connection
from django.db.models import Field, Model


@dataclass
class _Write:
    instance: Model
    fields: list[str] | None  # an update of these fields; None: an insert
    ignore_conflicts: bool = False


@dataclass
class RowsAtOnce:
    """Rows to insert or update, written together by :meth:`write` (in the caller's
    transaction). An inserted row gets its primary key from the database."""

    writes: list[_Write] = field(default_factory=list)

    def insert(self, instance: Model, *, ignore_conflicts: bool = False) -> None:
        """Insert ``instance``; with ``ignore_conflicts``, a row whose unique key is taken is
        left as it is (``bulk_create(ignore_conflicts=True)``)."""
        self.writes.append(_Write(instance, None, ignore_conflicts))

    def update(self, instance: Model, fields: list[str]) -> None:
        """Update ``fields`` of ``instance``'s row (``save(update_fields=...)``)."""
        self.writes.append(_Write(instance, list(fields)))

    def write(self) -> None:
        """Send the rows: one statement on PostgreSQL, one save each elsewhere."""
        if not self.writes:
            return
        if connection.vendor == "postgresql":
            _one_statement(self.writes)
        else:
            for write in self.writes:
                _saved_alone(write)
        self.writes = []


def _saved_alone(write: _Write) -> None:
    if write.fields is not None:
        write.instance.save(update_fields=write.fields)
    elif write.ignore_conflicts:
        type(write.instance)._default_manager.bulk_create([write.instance], ignore_conflicts=True)
    else:
        write.instance.save(force_insert=True)


def _one_statement(writes: list[_Write]) -> None:
    """``WITH w0 AS (...), w1 AS (...) SELECT`` the inserted rows' keys. Each part reads the
    same snapshot and none reads another's rows, so their order does not matter; no row is
    written twice."""
    parts: list[str] = []
    params: list[Any] = []
    returned: list[tuple[Model, str]] = []
    for number, write in enumerate(writes):
        name = f"w{number}"
        sql, values = _part(write)
        parts.append(f"{name} AS ({sql})")
        params += values
        if write.fields is None:
            returned.append((write.instance, name))
    keys = ", ".join(f"(SELECT * FROM {name})" for _, name in returned) or "1"  # noqa: S608
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {', '.join(parts)} SELECT {keys}", params)
        row = cursor.fetchone()
    for (instance, _), key in zip(returned, row or (), strict=False):
        if key is not None:  # (None: a conflict left the row that was there)
            instance.pk = key


def _part(write: _Write) -> tuple[str, list[Any]]:
    """One row's INSERT (returning its key) or UPDATE, and its values. Only table and column
    names (from the model's ``_meta``) are in the text; every value is a parameter."""
    quote = connection.ops.quote_name
    instance = write.instance
    meta = instance._meta
    table, pk = quote(meta.db_table), meta.pk
    adding = write.fields is None
    if write.fields is not None:
        columns = [cast("Field[Any, Any]", meta.get_field(name)) for name in write.fields]
    else:
        columns = [f for f in meta.concrete_fields if not (f.primary_key and instance.pk is None)]
    values = [
        column.get_db_prep_save(column.pre_save(instance, adding), connection) for column in columns
    ]
    if write.fields is not None:
        settings = ", ".join(f"{quote(column.column)} = %s" for column in columns)
        where = f"{quote(pk.column)} = %s"
        key = pk.get_db_prep_save(instance.pk, connection)
        return f"UPDATE {table} SET {settings} WHERE {where}", [*values, key]  # noqa: S608
    listed = ", ".join(quote(column.column) for column in columns)
    marks = ", ".join(["%s"] * len(columns))
    conflict = " ON CONFLICT DO NOTHING" if write.ignore_conflicts else ""
    returning = f" RETURNING {quote(pk.column)}"
    return f"INSERT INTO {table} ({listed}) VALUES ({marks}){conflict}{returning}", values  # noqa: S608
