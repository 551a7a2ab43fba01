"""Production settings pass ``manage.py check --deploy`` with no warnings."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

from django.conf import settings

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
