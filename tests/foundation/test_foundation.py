"""The skeleton: real PostgreSQL, real channels-redis, the compose file, the health endpoint."""

import os
import time
import uuid
from pathlib import Path

import pytest
import yaml
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection

import wordduel.settings as production_settings
from tests.foundation.compose import EXAMPLE_SHELL, service_environment

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_database_is_postgresql_when_database_url_is_set() -> None:
    assert os.environ.get("DATABASE_URL"), "the test command sets DATABASE_URL"
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        assert "PostgreSQL" in cursor.fetchone()[0]


def test_custom_member_model_is_the_user_model() -> None:
    assert settings.AUTH_USER_MODEL == "accounts.Member"
    assert get_user_model()._meta.label == "accounts.Member"


def test_passwords_are_hashed_with_argon2() -> None:
    assert production_settings.PASSWORD_HASHERS[0] == (
        "django.contrib.auth.hashers.Argon2PasswordHasher"
    )


async def test_channel_layer_round_trip_through_channels_redis() -> None:
    from channels_redis.core import RedisChannelLayer
    from channels_redis.pubsub import RedisPubSubChannelLayer

    layer = get_channel_layer()
    assert isinstance(layer, RedisChannelLayer | RedisPubSubChannelLayer)
    channel = await layer.new_channel()
    token = uuid.uuid4().hex
    await layer.send(channel, {"type": "test.ping", "token": token})
    message = await layer.receive(channel)
    assert message == {"type": "test.ping", "token": token}


async def test_group_send_reaches_every_member_of_the_group() -> None:
    layer = get_channel_layer()
    group = f"test-{uuid.uuid4().hex}"
    first, second = await layer.new_channel(), await layer.new_channel()
    await layer.group_add(group, first)
    await layer.group_add(group, second)
    await layer.group_send(group, {"type": "test.news", "n": 1})
    assert await layer.receive(first) == {"type": "test.news", "n": 1}
    assert await layer.receive(second) == {"type": "test.news", "n": 1}
    await layer.group_discard(group, first)
    await layer.group_discard(group, second)


def test_compose_services_share_one_environment() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"postgres", "redis", "web", "worker", "beat"} <= set(services)
    # Daphne with its access log's viewing keys redacted (wordduel/serve.py)
    assert services["web"]["command"][:3] == ["python", "-m", "wordduel.serve"]
    assert "wordduel.asgi:application" in services["web"]["command"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "wordduel", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "wordduel", "beat"]
    assert services["beat"].get("deploy", {}).get("replicas") == 1
    envs = [service_environment(name, EXAMPLE_SHELL) for name in ("web", "worker", "beat")]
    for key in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY"):
        # One database: each service may only name its connections (?application_name=).
        values = {env[key].split("?")[0] for env in envs}
        assert len(values) == 1, f"{key} differs between web, worker and beat: {values}"
    assert "application_name=web" in envs[0]["DATABASE_URL"]
    assert "application_name=worker" in envs[1]["DATABASE_URL"]
    # The worker is one process of threads, so its one pool bounds its connections.
    assert "--pool=threads" in services["worker"]["command"]
    assert envs[0]["DATABASE_URL"].startswith("postgres://")
    assert envs[0]["REDIS_URL"].startswith("redis://redis:")


@pytest.mark.django_db
def test_healthz_web_reports_database_and_channel_layer(client) -> None:
    response = client.get("/healthz/web")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"] == {"ok": True, "detail": "postgresql"}
    assert body["channel_layer"]["ok"] is True
    assert body["channel_layer"]["detail"] in {"RedisChannelLayer", "RedisPubSubChannelLayer"}
    assert body["web"] == {"ok": True, "detail": "answered"}  # no host or PID to the public
    assert set(body) == {"status", "web", "database", "channel_layer"}


@pytest.mark.django_db
def test_healthz_reports_every_part_and_fails_while_beat_has_not_ticked(client) -> None:
    """This run's cache prefix is its own, so no beat has ticked for it: /healthz is 503 and
    says why; once a tick is recorded (as beat's scheduler does), beat is reported well."""
    from django.core.cache import cache

    from wordduel.celery import BEAT_TICK_KEY, record_beat_tick

    cache.delete(BEAT_TICK_KEY)
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "degraded"
    assert {"web", "database", "channel_layer", "worker", "beat"} <= set(body)
    assert body["database"]["ok"]
    assert body["channel_layer"]["ok"]
    assert body["beat"] == {"ok": False, "detail": "beat has recorded no tick"}

    record_beat_tick(at=time.time() - 600)
    assert client.get("/healthz").json()["beat"]["ok"] is False  # ten minutes: stopped
    record_beat_tick()
    beat = client.get("/healthz").json()["beat"]
    assert beat["ok"] is True
    assert beat["age_seconds"] < 5
    cache.delete(BEAT_TICK_KEY)


def test_a_worker_that_does_not_answer_is_reported() -> None:
    from wordduel.health import worker_part

    part = worker_part(timeout=0.5, node="nobody@nowhere.invalid")
    assert part == {"ok": False, "detail": "no worker answered a ping within 0.5 s"}


def test_celery_app_reads_django_settings() -> None:
    from wordduel.celery import app

    assert app.conf.broker_url == settings.CELERY_BROKER_URL
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    assert isinstance(app.conf.beat_schedule, dict)


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme
    assert ci.rstrip().splitlines()[-1] == "make test"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/static/board.js", "/static/wordduel.css"])
def test_the_site_serves_its_own_static_files(client, path) -> None:
    response = client.get(path)
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    assert len(body) > 1000
