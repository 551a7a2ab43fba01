"""Django's PostgreSQL backend, whose pool makes its health check's round trip only when a
connection may have died while it was idle.

With ``CONN_HEALTH_CHECKS``, Django's pool checks every connection it hands out with an empty
query: a round trip for every socket request and every move, which is about ten round trips
in all. A connection that died while idle in the pool (its backend terminated, the server
restarted) has something to read by the time it is taken: the server's "terminating
connection" error, or the end of the stream. So the check looks at the socket first and
asks the server only when there is something there, or when the connection is not idle and
healthy as far as libpq knows. ``ENGINE = "wordduel.postgres"``, with ``CONN_HEALTH_CHECKS``
off (wordduel/settings.py): this backend makes the check itself, in Django's public
``get_new_connection`` hook, after the pool hands a connection out; one that fails it is
given back (psycopg_pool drops a broken connection and makes another) and the next taken.
"""

from __future__ import annotations

import select
from typing import Any

import psycopg
from django.db.backends.postgresql import base
from psycopg import Connection, pq
from psycopg_pool import ConnectionPool


def check_when_disturbed(connection: Connection[Any]) -> None:
    """The pool's ``check``: raise if ``connection`` no longer works.

    A round trip (psycopg_pool's own check) unless the connection is open, idle outside a
    transaction, and has had nothing sent to it since it was last used.
    """
    pgconn = connection.pgconn
    if (
        pgconn.status == pq.ConnStatus.OK
        and pgconn.transaction_status == pq.TransactionStatus.IDLE
        and not _has_input(pgconn.socket)
    ):
        return
    ConnectionPool.check_connection(connection)


def _has_input(fd: int) -> bool:
    """Whether the socket has bytes to read, or is closed or in error (``poll``, which takes
    any descriptor number, unlike ``select``'s 1,024)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: Any) -> Any:
        """Django's: a connection from the pool, checked by :func:`check_when_disturbed`; one
        that died while idle is handed back and another taken (at most the pool's size)."""
        connection = super().get_new_connection(conn_params)
        pool: ConnectionPool | None = self.pool  # type: ignore[attr-defined]  # (not in the stubs)
        if pool is None:
            return connection
        for _ in range(pool.max_size):
            try:
                check_when_disturbed(connection)
            except psycopg.OperationalError:
                pool.putconn(connection)  # broken: the pool closes it and makes another
                connection = super().get_new_connection(conn_params)
            else:
                return connection
        return connection
