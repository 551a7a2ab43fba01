"""docs/DESIGN.md describes the code as it is: the modules it names exist, the engine is a
library with no Django in it, and the documents cite the repository's own rules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "docs" / "DESIGN.md"
PROJECT_PACKAGES = sorted(
    path.parent.name
    for path in ROOT.glob("*/__init__.py")
    if path.parent.name not in {"tests", "bench"} and not path.parent.name.startswith(".")
)


def _layout() -> str:
    text = DESIGN.read_text(encoding="utf-8")
    return text.split("## The layout", 1)[1].split("```", 2)[1]


def test_every_module_the_layout_names_exists() -> None:
    """Each ``name.py`` (and each ``name/``) in the layout's block is where it says it is."""
    layout = _layout()
    named = set(re.findall(r"\b([a-z_]+\.py)\b", layout))
    assert len(named) >= 15, named
    tracked = {path.name for path in ROOT.rglob("*.py") if ".venv" not in path.parts}
    assert named <= tracked, sorted(named - tracked)
    for folder in re.findall(r"^\s*([a-z_/]+)/\s", layout, flags=re.MULTILINE):
        assert any(ROOT.glob(f"**/{folder}")), folder


def test_every_app_is_in_the_layout() -> None:
    """A package of the project that the layout does not name is a part nobody described."""
    layout = _layout()
    packages = sorted(
        path.parent.name
        for path in ROOT.glob("*/__init__.py")
        if path.parent.name not in {"tests", "bench"} and not path.parent.name.startswith(".")
    )
    assert packages, "no package found"
    missing = [name for name in packages if not re.search(rf"^{name}/", layout, re.MULTILINE)]
    assert not missing, f"docs/DESIGN.md's layout does not describe {missing}"


def test_the_engine_imports_no_django() -> None:
    """Principle 1: ``engine/`` knows nothing of Django."""
    paths = sorted((ROOT / "engine").rglob("*.py"))
    assert paths, "no engine module found"
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert not name.startswith(("django", "channels", "matches.models")), (
                    f"{path.relative_to(ROOT)} imports {name}"
                )


def test_the_repository_cites_its_own_rules_and_design() -> None:
    """Nothing points outside the repository for the rules or the design."""
    cited = re.compile(r"\.\./shared/|\bshared/(RULES|DESIGN)\.md")
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for package in (*PROJECT_PACKAGES, "templates", "tests"):
        paths += sorted((ROOT / package).rglob("*.py")) + sorted((ROOT / package).rglob("*.html"))
    for path in paths:
        if path == Path(__file__):
            continue
        text = path.read_text(encoding="utf-8")
        assert not cited.search(text), f"{path.relative_to(ROOT)} cites the shared folder"
    for document in ("RULES.md", "DESIGN.md"):
        assert (ROOT / "docs" / document).is_file()
