"""The database backend (wordduel/postgres): Django's PostgreSQL backend whose pool asks the
server whether a connection still works only when the connection heard something while idle,
and the options the site runs it with. Against the real PostgreSQL."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.conf import settings
from django.db import connection, connections
from psycopg_pool import ConnectionPool

from wordduel.postgres.base import DatabaseWrapper, check_when_disturbed

pytestmark = pytest.mark.django_db(transaction=True)


def _last_query_of(pid: int, watcher: psycopg.Connection) -> str | None:
    row = watcher.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone()
    return row[0] if row else None


def test_the_site_runs_on_it_with_server_side_parameters_and_prepared_statements() -> None:
    assert settings.DATABASES["default"]["ENGINE"] == "wordduel.postgres"
    assert isinstance(connections["default"], DatabaseWrapper)
    options = settings.DATABASES["default"]["OPTIONS"]
    assert options["server_side_binding"] is True
    assert options["prepare_threshold"] == int(settings.DB_PREPARE_THRESHOLD)
    assert connection.pool is not None
    # The backend makes the pool's health check itself (Django's own would ask every time).
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] is False


def test_the_sites_connections_that_died_while_idle_are_replaced_without_an_error() -> None:
    with connection.cursor() as cursor:  # the pool's connections open
        cursor.execute("SELECT 1")
    connection.close()  # (back to the pool)
    params = connection.get_connection_params()
    params.pop("pool", None)
    with psycopg.connect(**params, autocommit=True) as watcher:
        mine = watcher.info.backend_pid
        killed = watcher.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND backend_type = 'client backend' AND pid <> %s",
            [mine],
        ).fetchall()
        assert killed, "the pool holds no connection"
        for (pid,) in killed:
            watcher.execute("SELECT pg_terminate_backend(%s)", [pid])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(
            _last_query_of(pid, watcher) is not None for (pid,) in killed
        ):
            time.sleep(0.05)
    with connection.cursor() as cursor:  # each dead one noticed and replaced: no error
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] not in {pid for (pid,) in killed}
    connection.close()


def test_a_quiet_connection_is_handed_out_without_a_round_trip_and_a_dead_one_replaced() -> None:
    params = connection.get_connection_params()
    params.pop("pool", None)
    with (
        ConnectionPool(
            kwargs={**params, "autocommit": True},
            min_size=1,
            max_size=1,
            check=check_when_disturbed,
            open=True,
        ) as pool,
        psycopg.connect(**params, autocommit=True) as watcher,
    ):
        with pool.connection() as conn:
            pid = conn.info.backend_pid
            conn.execute("SELECT 'the last thing said'")
        with pool.connection() as conn:
            assert conn.info.backend_pid == pid
        # psycopg_pool's own check would have sent an empty query on being taken.
        assert _last_query_of(pid, watcher) == "SELECT 'the last thing said'"

        watcher.execute("SELECT pg_terminate_backend(%s)", [pid])
        deadline = time.monotonic() + 10
        while _last_query_of(pid, watcher) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        with pool.connection() as conn:  # the dead one is noticed and replaced: no error
            assert conn.execute("SELECT 1").fetchone() == (1,)
            assert conn.info.backend_pid != pid


def test_a_closed_connection_fails_the_check() -> None:
    params = connection.get_connection_params()
    params.pop("pool", None)
    conn = psycopg.connect(**params, autocommit=True)
    check_when_disturbed(conn)  # open, idle and quiet: passes without asking
    conn.close()
    with pytest.raises(psycopg.OperationalError):
        check_when_disturbed(conn)
