"""The container deployment, read as compose and Docker read it (no container runtime can
pull images on these machines): the compose file, the Dockerfile, .dockerignore, the lock,
and the proxy's configuration as Caddy itself adapts it with the compose environment."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.foundation.compose import (
    EXAMPLE_SHELL,
    ROOT,
    MissingVariable,
    interpolate,
    load_compose,
    service_environment,
)

SHELL = EXAMPLE_SHELL
#: Run once and exit; every other service keeps running.
ONE_SHOT = {"migrate", "collectstatic"}
WORKERS = {"worker", "push-worker", "import-worker"}
APPLICATION = {"migrate", "collectstatic", "web", "beat", *WORKERS}


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    return load_compose()["services"]


def healthcheck_command(service: dict[str, Any]) -> str:
    test = service["healthcheck"]["test"]
    assert test[0] in {"CMD", "CMD-SHELL"}, test
    return " ".join(test[1:])


def test_every_long_running_service_has_a_healthcheck_and_restarts(services) -> None:
    assert set(services) == {"postgres", "redis", "proxy", *APPLICATION}
    for name, service in services.items():
        if name in ONE_SHOT:
            assert service["restart"] == "no", name
            assert "healthcheck" not in service, name
        else:
            assert service["restart"] == "unless-stopped", name
            assert healthcheck_command(service), name
            assert service["healthcheck"]["interval"], name


def test_each_healthcheck_asks_what_its_service_needs(services) -> None:
    # Over TCP: the image's first start listens on the Unix socket only while it initialises.
    assert healthcheck_command(services["postgres"]).startswith("pg_isready -h 127.0.0.1 ")
    assert "redis-cli ping" in healthcheck_command(services["redis"])
    assert healthcheck_command(services["web"]) == "python -m wordduel.health web"
    # Each worker pings itself by name: the node name its command gives it.
    for name in WORKERS:
        assert healthcheck_command(services[name]) == (
            f"python -m wordduel.health worker {name}@$$HOSTNAME"
        )
        assert services[name]["command"][services[name]["command"].index("-n") + 1] == (
            f"{name}@%h"
        )
    assert healthcheck_command(services["beat"]) == "python -m wordduel.health beat"
    assert "http://127.0.0.1:2019/" in healthcheck_command(services["proxy"])


def test_services_start_when_what_they_need_is_healthy_or_done(services) -> None:
    for name, service in services.items():
        for needed, how in service.get("depends_on", {}).items():
            expected = "service_completed_successfully" if needed in ONE_SHOT else "service_healthy"
            assert how == {"condition": expected}, f"{name} on {needed}"
            if needed not in ONE_SHOT:
                assert "healthcheck" in services[needed], f"{name} waits on unwatched {needed}"
    assert set(services["migrate"]["depends_on"]) == {"postgres"}
    for name in ("web", *WORKERS):
        assert set(services[name]["depends_on"]) == {"migrate", "postgres", "redis"}, name
    assert set(services["proxy"]["depends_on"]) == {"web", "collectstatic"}


def test_every_queue_has_a_worker_of_its_own(services) -> None:
    """The clock's worker reads the default queue alone: web pushes (which wait on other
    people's servers) and imports' analyses (seconds of CPU) each have a worker of their
    own, so neither can hold up a sweep or the computer's move."""
    from wordduel.celery import ROUTES

    def queues(name: str) -> set[str]:
        [option] = [a for a in services[name]["command"] if a.startswith("--queues=")]
        return set(option.removeprefix("--queues=").split(","))

    assert queues("worker") == {"celery"}  # CELERY_QUEUE's default
    assert {name: queues(name) for name in WORKERS - {"worker"}} == {
        "push-worker": {"celery.push"},
        "import-worker": {"celery.imports"},
    }
    assert set().union(*(queues(name) for name in WORKERS)) == {
        "celery",
        *(f"celery.{kind}" for kind in ROUTES.values()),
    }


def test_one_image_is_built_once_and_never_pulled(services) -> None:
    built = [name for name, service in services.items() if "build" in service]
    assert built == ["migrate"]
    images = {services[name]["image"] for name in APPLICATION}
    assert len(images) == 1, images
    for name in APPLICATION:
        assert services[name]["pull_policy"] == "never", name


def test_no_secret_has_a_default(services) -> None:
    import wordduel.settings as settings_module

    for name in APPLICATION:
        raw = services[name]["environment"]
        assert raw["SECRET_KEY"] == "${SECRET_KEY:?set SECRET_KEY}", name
        assert "${POSTGRES_PASSWORD:?" in raw["DATABASE_URL"], name
        for missing in ("SECRET_KEY", "POSTGRES_PASSWORD", "DOMAIN"):
            shell = {key: value for key, value in SHELL.items() if key != missing}
            with pytest.raises(MissingVariable, match=missing):
                service_environment(name, shell)
    text = (ROOT / "docker-compose.yml").read_text()
    for published in settings_module.KNOWN_SECRET_KEYS:
        assert published not in text
    assert services["postgres"]["environment"]["POSTGRES_PASSWORD"].startswith(
        "${POSTGRES_PASSWORD:?"
    )


def test_production_settings_in_every_application_service(services) -> None:
    for name in APPLICATION:
        env = service_environment(name, SHELL)
        assert env["DEBUG"] == "0", name
        assert env["SECRET_KEY"] == SHELL["SECRET_KEY"], name
        assert env["ALLOWED_HOSTS"] == "duel.example.org", name
        assert env["CSRF_TRUSTED_ORIGINS"] == "https://duel.example.org", name
        assert env["WEBSOCKET_ALLOWED_ORIGINS"] == "https://duel.example.org", name
        assert env["TRUSTED_PROXY_COUNT"] == "1", name
        assert env["DATABASE_URL"].startswith(
            "postgres://wordduel:pg-password-0123456789@postgres:5432/wordduel"
        ), name
    assert "--proxy-headers" in services["web"]["command"]


def test_only_the_proxy_publishes_ports(services) -> None:
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    assert {"80:80", "443:443"} <= set(services["proxy"]["ports"])


def mounts(service: dict[str, Any]) -> dict[str, str]:
    """Each volume's container path, keyed by the volume (or host path)."""
    return {entry.split(":")[0]: entry.split(":")[1] for entry in service.get("volumes", [])}


def test_the_proxy_serves_the_static_files_collectstatic_wrote(services) -> None:
    assert services["collectstatic"]["command"][-2:] == ["collectstatic", "--noinput"]
    collect_root = service_environment("collectstatic", SHELL)["STATIC_ROOT"]
    assert mounts(services["collectstatic"])["static"] == collect_root
    proxy = services["proxy"]
    assert proxy["image"] == "caddy:2"
    assert mounts(proxy)["static"] == proxy["environment"]["STATIC_ROOT"]
    assert mounts(proxy)["./deploy/Caddyfile"] == "/etc/caddy/Caddyfile"
    assert "caddy_data" in mounts(proxy)  # the certificates survive a new container
    assert {"static", "caddy_data", "pgdata"} <= set(load_compose()["volumes"])


def test_caddy_adapts_the_caddyfile_with_the_compose_environment(services, tmp_path) -> None:
    """The same deploy/Caddyfile as `make stack`, with the proxy service's environment:
    TLS for the domain, every web replica as an upstream, the static volume as root."""
    caddy = shutil.which("caddy")  # Debian's: `make check` and `make test` install it first
    assert caddy, "Caddy is not installed: run `make test-packages` (make test and check do)"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path),
        **service_environment("proxy", SHELL),
    }
    result = subprocess.run(
        [caddy, "adapt", "--adapter", "caddyfile", "--config", str(ROOT / "deploy/Caddyfile")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    server = config["apps"]["http"]["servers"]["srv0"]
    assert server["listen"] == [":443"]  # HTTPS, certificate for the domain automatic
    text = json.dumps(server)
    assert '"host": ["duel.example.org"]' in text
    assert '"dynamic_upstreams": {"name": "web", "port": "8000", "source": "a"}' in text
    assert '"root": "/srv/static"' in text


def test_the_dockerfile_installs_from_the_lock_and_runs_unprivileged() -> None:
    lines = [
        line.strip()
        for line in (ROOT / "Dockerfile").read_text().replace("\\\n", " ").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert "COPY pyproject.toml uv.lock ./" in lines
    sync = next(line for line in lines if " uv sync " in line)
    assert "--locked" in sync  # a lock that disagrees with pyproject.toml fails the build
    assert not any("pip install" in line and "uv==" not in line for line in lines)
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users, "the image runs as root"
    assert users[-1] not in {"root", "0"}
    collect = next(index for index, line in enumerate(lines) if "collectstatic" in line)
    assert collect < lines.index(f"USER {users[-1]}")  # at build, into the image
    assert lines[-1].startswith("CMD ")
    assert "--proxy-headers" in lines[-1]


def dockerignore_excludes(path: str) -> bool:
    """Docker's rule: a pattern (``*``, ``**``, ``?``) excludes the path or a folder of it."""
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert not any(pattern.startswith("!") for pattern in patterns)

    def regex(pattern: str) -> re.Pattern[str]:
        parts = re.split(r"(\*\*/|\*\*|\*|\?)", pattern.strip("/"))
        translated = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}
        return re.compile("".join(translated.get(part, re.escape(part)) for part in parts))

    pieces = path.split("/")
    prefixes = ["/".join(pieces[: count + 1]) for count in range(len(pieces))]
    return any(regex(pattern).fullmatch(prefix) for pattern in patterns for prefix in prefixes)


@pytest.mark.parametrize(
    "path",
    [
        ".venv/bin/python",
        ".git/HEAD",
        "db.sqlite3",
        ".env",
        ".services/postgres/PG_VERSION",
        ".stack/secret_key",
        "backups/wordduel-20310101T000000Z.dump",
        "staticfiles/staticfiles.json",
        "celerybeat-schedule.dat",
        "wordduel/__pycache__/settings.cpython-311.pyc",
        ".pytest_cache/README.md",
        ".mypy_cache/3.11/cache.db",
        ".ruff_cache/CACHEDIR.TAG",
        ".hypothesis/examples/x",
        "wordduel.egg-info/PKG-INFO",
    ],
)
def test_dockerignore_keeps_local_state_out_of_the_image(path) -> None:
    assert dockerignore_excludes(path)


@pytest.mark.parametrize(
    "path",
    [
        "pyproject.toml",
        "uv.lock",
        "manage.py",
        "deploy/Caddyfile",
        "wordduel/settings.py",
        "matches/static/board.js",
        "templates/base.html",
    ],
)
def test_dockerignore_keeps_what_the_image_needs(path) -> None:
    assert (ROOT / path).exists()
    assert not dockerignore_excludes(path)


def test_the_lock_pins_every_package_with_hashes() -> None:
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11,<3.14"
    assert lock["requires-python"] == ">=3.11, <3.14"
    registry = [package for package in lock["package"] if "registry" in package["source"]]
    assert len(registry) > 50
    for package in registry:
        files = [*package.get("wheels", []), *([package["sdist"]] if "sdist" in package else [])]
        assert files, package["name"]
        assert all(file["hash"].startswith("sha256:") for file in files), package["name"]


def test_the_lock_matches_pyproject() -> None:
    """What `make install` checks first; when it fails: `make lock`."""
    uv = Path(sys.executable).parent / "uv"
    result = subprocess.run(
        [str(uv), "lock", "--check"],
        cwd=ROOT,
        env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, f"run make lock:\n{result.stderr}"


def test_interpolation_reads_as_compose_does() -> None:
    assert interpolate("${A:-x}/${B}/$$H", {"B": "b"}) == "x/b/$H"
    assert interpolate("${A:-x}", {"A": "a"}) == "a"
    with pytest.raises(MissingVariable, match="A: say A"):
        interpolate("${A:?say A}", {"A": ""})
