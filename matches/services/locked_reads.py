"""A move's two reads as explicit SQL: the match row locked, then its seats locked.

Through the ORM each read is a queryset Django compiles again on every move (a move's
largest cost after its writes). Here each is one fixed statement sent through the public
cursor API (so psycopg prepares it on the server once it repeats), its rows made model
instances as the ORM makes them (:mod:`common.model_rows`). SQLite has no ``FOR UPDATE``
(it locks the whole database for a write): there the same statements are sent without it.
"""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.db import connection

from common.model_rows import instance_of, select_list, width
from matches.models import CommitReceipt, Match, Seat, Turn


def _for_update(of: str) -> str:
    return f" FOR UPDATE OF {of}" if connection.features.has_select_for_update_of else ""


@cache
def _match_sql(for_update: str) -> str:
    table = connection.ops.quote_name(Match._meta.db_table)
    return f"SELECT {select_list(Match, 'm')} FROM {table} m WHERE m.id = %s{for_update}"  # noqa: S608


def locked_match_row(match_id: int) -> Match | None:
    """The match row, locked until the transaction ends; None if there is none."""
    with connection.cursor() as cursor:
        cursor.execute(_match_sql(_for_update("m")), [match_id])
        row = cursor.fetchone()
    return None if row is None else instance_of(Match, row)


@cache
def _seats_sql(for_update: str) -> str:
    quote = connection.ops.quote_name
    member = get_user_model()
    seat, receipt, turn = (quote(model._meta.db_table) for model in (Seat, CommitReceipt, Turn))
    return (
        f"SELECT {select_list(Seat, 's')}, {select_list(member, 'u')},"  # noqa: S608
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
    seat_width = width(Seat)
    member_model = get_user_model()
    seats: list[Seat] = []
    for row in rows:
        seat = instance_of(Seat, row[:seat_width])
        member_values = row[seat_width:-2]
        seat.member = None if seat.member_id is None else instance_of(member_model, member_values)
        seats.append(seat)
    receipt_pk, last_hash = (rows[0][-2], rows[0][-1]) if rows else (None, None)
    return seats, receipt_pk, last_hash
