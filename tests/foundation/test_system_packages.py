"""The Debian packages the tests use are installed by ``make`` before any test starts; no test
installs one (a test that ran ``apt-get install caddy`` failed whenever another apt process
held the lock)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: What a test may not do: run apt, or call the stack script's installer of Caddy.
INSTALLING = re.compile(r"apt-get|apt install|ensure_caddy\(|dpkg -i")


def _dry_run(target: str) -> list[str]:
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.splitlines()


def test_no_test_installs_a_package() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if path != Path(__file__)
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if INSTALLING.search(line)
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("target", "packages"),
    [("test", {"chromium", "caddy", "postgresql", "redis-server"}), ("check", {"caddy"})],
)
def test_make_installs_what_its_tests_need_before_they_start(target: str, packages) -> None:
    commands = _dry_run(target)
    [install] = [i for i, line in enumerate(commands) if "scripts/system-packages.sh" in line]
    [tests] = [i for i, line in enumerate(commands) if "pytest" in line or "test-suite" in line]
    assert install < tests
    assert packages <= {i.strip("'").split("=")[0] for i in commands[install].split()[1:]}
