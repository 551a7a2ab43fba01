"""scripts/import_graph.py measures the whole first-party tree: every module parsed, every
package counted. It checks the measurement works, not that issue 37's targets are met."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "import_graph.py"
#: Every first-party package (a top-level directory with an ``__init__.py``), found afresh.
PACKAGES = {
    path.parent.name
    for path in ROOT.glob("*/__init__.py")
    if path.parent.name not in {"tests", "bench", "scripts"}
    and not path.parent.name.startswith(".")
}


def _run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stderr == ""
    return done.stdout


def test_it_parses_every_module_of_every_package() -> None:
    figures = json.loads(_run("--json"))
    expected = [
        path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.relative_to(ROOT).parts
    ]
    assert figures["files"] == len(expected)
    assert set(figures["packages"]) == PACKAGES
    assert all(figures["lines"][package] > 0 for package in PACKAGES), figures["lines"]
    assert abs(sum(figures["share"].values()) - 100) < 0.5


def test_it_reports_the_edges_cycles_and_layers_it_names() -> None:
    figures = json.loads(_run("--json"))
    edges = {(edge["from"], edge["to"]) for edge in figures["package_edges"]}
    # The core reads the engine and the word lists, and every app reads accounts' members.
    assert ("matches", "engine") in edges
    assert ("matches", "lexicon") in edges
    assert ("ratings", "accounts") in edges
    assert {edge["from"] for edge in figures["package_edges"]} <= PACKAGES
    for cycle in figures["module_cycles"]:
        example = cycle["example"]
        assert example[0] == example[-1]
        assert set(example) <= set(cycle["members"])
    assert figures["upward_imports"] == len(figures["upward_statements"])
    assert [layer["layer"] for layer in figures["layers"]] == list(range(len(figures["layers"])))
    assert set(figures["named"]) >= {
        "accounts -> matches",
        "accounts -> notifications",
        "notifications -> accounts",
        "practice.services -> practice.tasks",
        "practice.tasks -> practice.services",
    }


def test_the_text_report_names_each_section() -> None:
    report = _run()
    for heading in ("Package edges:", "Module cycles:", "Upward imports:", "Code in non-blank"):
        assert heading in report
