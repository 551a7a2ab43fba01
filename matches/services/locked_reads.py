"""A move's two reads as explicit SQL: the match row locked, then its seats locked.

Through the ORM each read is a queryset Django compiles again on every move (a move's
largest cost after its writes). Here each is one fixed statement sent through the public
cursor API (so psycopg prepares it on the server once it repeats), its rows made model
instances by ``Model.from_db``, as the ORM makes them. The columns come from the models'
``_meta``. SQLite has no ``FOR UPDATE`` (it locks the whole database for a write): there
the same statements are sent without it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Model

from matches.models import CommitReceipt, Match, Seat, Turn


def _columns(model: type[Model], alias: str) -> str:
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


@cache
def _converters(model: type[Model]) -> list[list[tuple[Any, Any]]]:
    """Each column's converters, as the ORM applies them to a value read (the backend's,
    then the field's: a JSON column's text decoded, SQLite's dates parsed)."""
    found = []
    for field in model._meta.concrete_fields:
        column = field.get_col(model._meta.db_table)
        found.append(
            [
                (convert, column)
                for convert in connection.ops.get_db_converters(column)
                + column.get_db_converters(connection)
            ]
        )
    return found


def _instance(model: type[Model], values: tuple[Any, ...] | list[Any]) -> Any:
    """A model instance of a row's values, as the ORM makes it (``Model.from_db``)."""
    names = [field.attname for field in model._meta.concrete_fields]
    converted = []
    for read, converters in zip(values, _converters(model), strict=True):
        value = read
        for convert, column in converters:
            value = convert(value, column, connection)
        converted.append(value)
    return model.from_db(connection.alias, names, converted)


def _for_update(of: str) -> str:
    return f" FOR UPDATE OF {of}" if connection.features.has_select_for_update_of else ""


@cache
def _match_sql(for_update: str) -> str:
    table = connection.ops.quote_name(Match._meta.db_table)
    return f"SELECT {_columns(Match, 'm')} FROM {table} m WHERE m.id = %s{for_update}"  # noqa: S608


def locked_match_row(match_id: int) -> Match | None:
    """The match row, locked until the transaction ends; None if there is none."""
    with connection.cursor() as cursor:
        cursor.execute(_match_sql(_for_update("m")), [match_id])
        row = cursor.fetchone()
    return None if row is None else _instance(Match, row)


@cache
def _seats_sql(for_update: str) -> str:
    quote = connection.ops.quote_name
    member = get_user_model()
    seat, receipt, turn = (quote(model._meta.db_table) for model in (Seat, CommitReceipt, Turn))
    return (
        f"SELECT {_columns(Seat, 's')}, {_columns(member, 'u')},"  # noqa: S608
        f" (SELECT r.id FROM {receipt} r WHERE r.match_id = %s AND r.member_id = %s"
        "  AND r.client_id = %s ORDER BY r.id LIMIT 1),"
        f" (SELECT t.record_hash FROM {turn} t WHERE t.match_id = %s AND t.number = %s)"
        f" FROM {seat} s LEFT JOIN {quote(member._meta.db_table)} u ON u.id = s.member_id"
        f" WHERE s.match_id = %s ORDER BY s.position{for_update}"
    )


def locked_seats_for_a_move(
    *, match_id: int, member_id: int, client_id: str, last_turn: int
) -> tuple[list[Seat], int | None, str | None]:
    """The match's seats in seat order, locked, with their members; and two reads made in
    the same statement: this member's receipt for ``client_id`` (its key, or None) and the
    record hash of turn ``last_turn`` (None before the first). Sent after the match's lock
    was taken, so its snapshot sees every change committed before that lock."""
    with connection.cursor() as cursor:
        cursor.execute(
            _seats_sql(_for_update("s")),
            [match_id, member_id, client_id, match_id, last_turn, match_id],
        )
        rows = cursor.fetchall()
    width = len(Seat._meta.concrete_fields)
    member_model = get_user_model()
    seats: list[Seat] = []
    for row in rows:
        seat = _instance(Seat, row[:width])
        member_values = row[width:-2]
        seat.member = None if seat.member_id is None else _instance(member_model, member_values)
        seats.append(seat)
    receipt_pk, last_hash = (rows[0][-2], rows[0][-1]) if rows else (None, None)
    return seats, receipt_pk, last_hash
