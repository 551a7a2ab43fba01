"""Model instances from rows read by explicit SQL, as the ORM makes them.

For the few hot reads sent as one fixed statement through the public cursor API (no queryset
compiled each time; psycopg prepares the repeated text on the server). The columns come
from the model's ``_meta``; each value goes through the converters the ORM would apply (a
JSON column's text decoded, SQLite's dates parsed), then ``Model.from_db`` builds the
instance, as a queryset does.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import Model


def select_list(model: type[Model], alias: str) -> str:
    """``alias.col, ...``: every concrete column of ``model``, in ``_meta``'s order."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


def width(model: type[Model]) -> int:
    """How many columns :func:`select_list` names."""
    return len(model._meta.concrete_fields)


@cache
def _converters(model: type[Model]) -> list[list[tuple[Any, Any]]]:
    """Each column's converters, the backend's then the field's, as the ORM applies them."""
    found = []
    for field in model._meta.concrete_fields:
        column = field.get_col(model._meta.db_table)
        converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        found.append([(convert, column) for convert in converters])
    return found


def instance_of(model: type[Model], values: Sequence[Any]) -> Any:
    """The instance of ``model`` whose columns (:func:`select_list`'s order) are ``values``."""
    names = [field.attname for field in model._meta.concrete_fields]
    converted = []
    for read, converters in zip(values, _converters(model), strict=True):
        value = read
        for convert, column in converters:
            value = convert(value, column, connection)
        converted.append(value)
    return model.from_db(connection.alias, names, converted)
