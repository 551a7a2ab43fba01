"""The compose file as docker compose reads it: YAML (merge keys included) and its
``${VAR}``, ``${VAR:-default}``, ``${VAR:?message}`` and ``$$`` interpolation."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
#: What an operator sets before `docker compose up` (the required variables).
EXAMPLE_SHELL = {
    "SECRET_KEY": "k" * 10 + "a-real-secret-made-by-token-urlsafe-0123456789XYZ",
    "POSTGRES_PASSWORD": "pg-password-0123456789",
    "DOMAIN": "duel.example.org",
}

_VARIABLE = re.compile(
    r"\$\$|\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:-|:\?)(?P<arg>[^}]*))?\}"
)


class MissingVariable(Exception):
    """A ``${VAR:?message}`` whose variable is unset or empty: compose refuses to start."""


def load_compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def interpolate(value: str, variables: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, op, arg = match.group("name"), match.group("op"), match.group("arg")
        given = variables.get(name, "")
        if given:
            return given
        if op == ":?":
            raise MissingVariable(f"{name}: {arg}")
        return arg if op == ":-" else ""

    return _VARIABLE.sub(one, value)


def service_environment(service: str, variables: dict[str, str]) -> dict[str, str]:
    """The environment compose gives ``service``'s containers, ``variables`` being the shell's."""
    environment = load_compose()["services"][service].get("environment", {})
    return {key: interpolate(str(value), variables) for key, value in environment.items()}
