"""Shared fixtures. Tests run against the real PostgreSQL and Redis named by the environment."""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import Permission

from accounts.models import Member
from matches.models import Match
from tournaments import services as organising

#: The live server (``web_server``, ``live_server_url``) for the tests that need one.
pytest_plugins = ["tests.live_server"]

_names = itertools.count(1)


def pytest_sessionstart(session: pytest.Session) -> None:
    """The suite runs on the real services; refuse the SQLite/in-memory quick-start config."""
    from django.conf import settings

    if not settings.DATABASE_URL.startswith("postg") or not settings.REDIS_URL:
        pytest.exit(
            "The tests need PostgreSQL and Redis: run `make test`, or set DATABASE_URL and "
            "REDIS_URL (e.g. postgres://root@127.0.0.1:5432/wordduel, redis://127.0.0.1:6379/0).",
            returncode=2,
        )
    # Members are made by the hundred: argon2 stays, at a test-sized cost.
    settings.PASSWORD_HASHERS = ["tests.hashers.FastArgon2PasswordHasher"]
    _flush_by_delete()
    # Runs side by side (two checkouts, a developer and CI) must not share Redis groups.
    layer = settings.CHANNEL_LAYERS["default"]
    layer["CONFIG"]["prefix"] = f"wordduel-test-{os.getpid()}"
    os.environ["CHANNEL_LAYER_PREFIX"] = layer["CONFIG"]["prefix"]
    settings.CACHES["default"]["KEY_PREFIX"] = layer["CONFIG"]["prefix"]
    # ... nor one Celery queue: a run's notice tasks go only to the workers it starts.
    from wordduel.celery import app

    os.environ["CELERY_QUEUE"] = layer["CONFIG"]["prefix"]
    settings.CELERY_TASK_DEFAULT_QUEUE = app.conf.task_default_queue = os.environ["CELERY_QUEUE"]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """No process a test started outlives the run (tests/processes.py)."""
    from tests.processes import end_all

    end_all()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker) -> None:
    """The test database commits without waiting for its WAL to reach the disk.

    Every transactional test ends with a flush of a few dozen commits, and each commit waited
    for an fsync; durability across a server crash means nothing for a throwaway database.
    Set on the database, so the Daphne and Celery processes the tests start inherit it too.
    """
    from django.db import connection

    name = str(connection.settings_dict["NAME"])
    if not name.startswith("test_"):
        return  # no test asked for the database in this run
    with django_db_blocker.unblock():
        with connection.cursor() as cursor:
            quoted = connection.ops.quote_name(name)
            cursor.execute(f"ALTER DATABASE {quoted} SET synchronous_commit = off")
        connection.close()  # the next connection starts with the setting


def _flush_by_delete() -> None:
    """Transactional tests empty the tables with DELETE rather than TRUNCATE.

    Django's flush after each transactional test TRUNCATEs every table, which on PostgreSQL
    makes new files for each of some sixty tables: about 0.25 s a test, whatever the tables
    hold. After one test they hold a few rows, which DELETE removes in milliseconds. The
    foreign keys Django makes are deferred, so the order of the DELETEs does not matter.
    """
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return [f"DELETE FROM {self.quote_name(table)};" for table in tables]  # noqa: S608

    DatabaseOperations.sql_flush = sql_flush  # type: ignore[method-assign]


@pytest.fixture(scope="session", autouse=True)
def _end_stray_connections(django_db_setup, django_db_blocker):
    """Close connections left by worker threads (async tests) so the test DB can be dropped."""
    yield
    from django.db import connection

    if not str(connection.settings_dict["NAME"]).startswith("test_"):
        return  # no test database was made in this run
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every async test settles its event loop before the loop closes (``_settled_loop``):
    set up first, so torn down last, after the test's own sockets are closed."""
    for item in items:
        if item.get_closest_marker("asyncio") is not None:
            item.fixturenames.insert(0, "_settled_loop")  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _own_channel_layer():
    """A channel layer of the test's own. channels-redis keeps asyncio locks on the layer,
    which bind to the event loop that first waits on them; each async test has its own loop,
    so a layer shared across tests carried one test's locks into the next."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
async def _settled_loop():
    """After an async test: end the loop's news subscriptions, wait for the layer's own
    background work, close its connections, and fail if any task is still running."""
    yield
    from channels.layers import get_channel_layer

    from matches.live.broadcast import close_news

    await close_news()
    layer = get_channel_layer()
    if hasattr(layer, "close_pools"):
        await layer.close_pools()  # (waits for channels-redis's receive cleaners first)
    current = asyncio.current_task()
    left = [task for task in asyncio.all_tasks() if task is not current]
    if left:
        _, pending = await asyncio.wait(left, timeout=5)
        if pending:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            names = sorted(map(repr, pending))
            pytest.fail(f"the test left {len(pending)} task(s) running: {names}")


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Each test starts with every address at full allowance and no push marked as handed
    to the queue (an id an earlier test's database used, marked for ten minutes, would keep
    this test's push of the same id from being sent). The run's cache prefix is its own, so
    only this run's keys are dropped."""
    _drop_rate_limits()
    yield
    _drop_rate_limits()


def _drop_rate_limits() -> None:
    """This run's rate-limit counters and push-queue marks, gone."""
    from django.core.cache import cache

    client = cache._cache.get_client()  # type: ignore[attr-defined]
    for pattern in ("ratelimit:*", "notifications:push-queued:*"):
        keys = list(client.scan_iter(match=cache.make_key(pattern), count=500))
        if keys:
            client.delete(*keys)


@pytest.fixture(scope="session")
def django_db_modify_db_settings() -> None:
    """A test database of this run's own, so concurrent runs never drop each other's."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    database.setdefault("TEST", {})["NAME"] = f"test_{database['NAME']}_{os.getpid()}"


@pytest.fixture
def make_member(db) -> Callable[..., Member]:
    """Create a member with password ``pw-correct-horse``; ``organiser=True`` grants the perm."""

    def make(username: str | None = None, *, organiser: bool = False) -> Member:
        member = Member.objects.create_user(
            username=username or f"member{next(_names)}", password="pw-correct-horse"
        )
        if organiser:
            member.user_permissions.add(Permission.objects.get(codename="organise"))
            member = Member.objects.get(pk=member.pk)  # drop the permission cache
        return member

    return make


@pytest.fixture
def organiser(make_member) -> Member:
    return make_member("organiser", organiser=True)


@pytest.fixture
def alice(make_member) -> Member:
    return make_member("alice")


@pytest.fixture
def bob(make_member) -> Member:
    return make_member("bob")


@pytest.fixture
def make_fixture(organiser) -> Callable[..., Match]:
    """Schedule a fixture through the service (seed fixed by the model default)."""

    def make(
        *,
        first: Member | None = None,
        second: Member | None = None,
        kickoff_at: datetime | None = None,
        visibility: str = Match.Visibility.PUBLIC,
        name: str = "Test fixture",
        no_show_window: timedelta | None = None,
        ruleset: str = "word-duel",
    ) -> Match:
        return organising.create_fixture(
            organiser=organiser,
            name=name,
            first=first,
            second=second,
            kickoff_at=kickoff_at,
            visibility_=visibility,
            no_show_window=no_show_window,
            ruleset=ruleset,
        )

    return make


@pytest.fixture
def live_match(make_fixture, alice, bob) -> Match:
    """A public match with no kick-off time, both seated, so live at once (alice First).

    Dealt from a fixed seed, so every run sees the same racks: a random deal now and then
    gave alice seven consonants, and no two-letter opening for the tests that play one.
    """
    from tests.matches.test_ws_helpers import seeded_match

    match = seeded_match(make_fixture, alice, bob, seed=7)
    assert match.status == Match.Status.LIVE
    return match
