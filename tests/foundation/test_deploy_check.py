"""Production settings pass ``manage.py check --deploy`` with no warnings."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from wordduel.settings import DEVELOPMENT_SECRET_KEY

ROOT = Path(__file__).resolve().parents[2]


def test_production_settings_pass_the_deploy_check() -> None:
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "duel.example.org",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # The one check silenced is axes's wish to count per address itself: the address has its
    # own, larger limit (accounts/lockouts.py), tested in tests/accounts/test_sign_in_lockout.py.
    assert settings.SILENCED_SYSTEM_CHECKS == ["axes.W006"]
    assert "System check identified no issues (1 silenced)." in result.stdout


def test_production_refuses_to_start_without_a_secret_key() -> None:
    env = {**os.environ, "DEBUG": "0", "SECRET_KEY": ""}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_the_compose_files_web_environment_passes_the_deploy_check() -> None:
    """The web service's environment exactly as compose gives it (nothing of this test
    run's), with a real secret: no warning but the one silenced."""
    from tests.foundation.compose import EXAMPLE_SHELL, service_environment

    shell = {**EXAMPLE_SHELL, "SECRET_KEY": secrets.token_urlsafe(50)}
    env = {"PATH": os.environ["PATH"], **service_environment("web", shell)}
    assert env["DEBUG"] == "0"
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (1 silenced)." in result.stdout


def settings_refusal(secret_key: str) -> str:
    """Load the settings in a fresh process with DEBUG unset and this key: the error, or ''."""
    env = {key: value for key, value in os.environ.items() if key != "DEBUG"}
    env["SECRET_KEY"] = secret_key
    result = subprocess.run(
        [sys.executable, "-c", "import wordduel.settings"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if result.returncode == 0:
        return ""
    return result.stderr.strip().splitlines()[-1]


TOO_WEAK = "SECRET_KEY must be at least 50 characters, not repetitive."


def test_a_real_secret_key_is_accepted_with_debug_unset() -> None:
    assert settings_refusal(secrets.token_urlsafe(50)) == ""


# Fixed values: parameters must be the same in every pytest-xdist worker's collection.
@pytest.mark.parametrize(
    ("secret_key", "refusal"),
    [
        ("x7Qp2" * 9, TOO_WEAK),  # 45 characters
        ("mGCKkiqPFPbw_WOtvpRDAEzVSPtDqhLgx6wYZgcQ", TOO_WEAK),  # 40 random characters
        ("ab" * 40, TOO_WEAK),  # long, but two characters
        ("a" * 80, TOO_WEAK),
        (DEVELOPMENT_SECRET_KEY, "published example"),  # this repository's dev key
        ("change-me-in-production-please-0123456789abcdef", "published example"),
        # Django's startproject prefix, before a random-looking tail
        ("django-insecure-z98Oa7Qv4aFEqI6QQlD79jOHofz92hkd1BwI739oESu-9XdDA", "published example"),
    ],
)
def test_short_published_or_repetitive_secret_keys_are_refused(secret_key, refusal) -> None:
    assert refusal in settings_refusal(secret_key)
