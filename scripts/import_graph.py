"""The first-party import graph as it stands: package edges, module cycles, upward imports.

Run from the repository root: ``.venv/bin/python scripts/import_graph.py`` (``--json`` for
the figures as data). It reads the source with ``ast`` only (nothing is imported, so it needs
no settings and no database) and counts every import statement, including those inside
functions and under ``if TYPE_CHECKING:`` (as import-linter does), so a deferred import
still counts as the dependency it is. Migrations are left out: they name other apps' models
by string and are not code anyone layers. It measures; it does not enforce targets.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Every first-party package: a top-level directory with an ``__init__.py`` (the tests, the
#: benches and the scripts are not the product's code).
PACKAGES = tuple(
    sorted(
        path.parent.name
        for path in ROOT.glob("*/__init__.py")
        if path.parent.name not in {"tests", "bench", "scripts"}
        and not path.parent.name.startswith(".")
    )
)

#: ``wordduel`` is the Django project only: settings, URLs, the ASGI/WSGI entry points,
#: Celery's app, the server command, the middleware settings name. It sits above every app.
PROJECT = "wordduel"

FEATURE_APPS = frozenset(
    {
        "analysis",
        "challenges",
        "imports",
        "notifications",
        "practice",
        "ratings",
        "tournaments",
        "vacations",
    }
)

# Issue 37's order, lowest first: a layer may import only from layers below it (or from
# itself). The import-linter contracts in pyproject.toml say the same and are enforced.
LAYERS = (
    ("ground floor", "common"),
    ("accounts", "accounts"),
    ("lexicon / engine", "lexicon, engine"),
    ("matches core", "matches"),
    ("feature apps", ", ".join(sorted(FEATURE_APPS))),
    ("Word Skill rounds", "rounds"),
    ("project", "wordduel"),
)
#: Word Skill rounds composes the feature apps below it (Gramma Ana's cap reads the Elo
#: ratings app), so it sits above them, under the project.
ROUNDS = "rounds"
LAYER_OF = {
    "common": 0,
    "accounts": 1,
    "lexicon": 2,
    "engine": 2,
    "matches": 3,
    ROUNDS: 5,
    PROJECT: 6,
}


@dataclass(frozen=True)
class Import:
    """One import statement's dependency of one module on another."""

    importer: str
    imported: str
    line: int
    deferred: bool  # inside a function (or under TYPE_CHECKING): not run at import time


@dataclass
class Graph:
    modules: dict[str, Path] = field(default_factory=dict)
    imports: list[Import] = field(default_factory=list)


def package_of(module: str) -> str:
    return module.split(".", 1)[0]


def unit_of(module: str) -> str:
    """The layering unit a module belongs to: its top-level package."""
    return package_of(module)


def layer_of(module: str) -> int:
    unit = unit_of(module)
    return 4 if unit in FEATURE_APPS else LAYER_OF[unit]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def discover() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.relative_to(ROOT).parts:
                continue
            modules[module_name(path)] = path
    return modules


def resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The first-party module ``name`` lands in (its longest known prefix), or None."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


class _Collector(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, modules: dict[str, Path]) -> None:
        self.module = module
        self.is_package = is_package
        self.modules = modules
        self.found: list[Import] = []
        self._depth = 0  # functions and TYPE_CHECKING blocks we are inside

    def _deferred_block(self, node: ast.AST) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._deferred_block(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._deferred_block(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._deferred_block(node)

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
        if name == "TYPE_CHECKING":
            self._depth += 1
            for child in node.body:
                self.visit(child)
            self._depth -= 1
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def _add(self, target: str | None, line: int) -> None:
        if target is not None and target != self.module:
            self.found.append(Import(self.module, target, line, self._depth > 0))

    def visit_Import(self, node: ast.Import) -> None:
        targets = {resolve(alias.name, self.modules) for alias in node.names}
        for target in sorted(t for t in targets if t is not None):
            self._add(target, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.module.split(".")
            if not self.is_package:
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)]
            source = ".".join([*base, node.module] if node.module else base)
        else:
            source = node.module or ""
        targets = {
            f"{source}.{alias.name}"
            if f"{source}.{alias.name}" in self.modules
            else resolve(source, self.modules)
            for alias in node.names
        }
        for target in sorted(t for t in targets if t is not None):
            self._add(target, node.lineno)


def build() -> Graph:
    graph = Graph(modules=discover())
    for module, path in graph.modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        collector = _Collector(module, path.name == "__init__.py", graph.modules)
        collector.visit(tree)
        graph.imports.extend(collector.found)
    return graph


def strongly_connected(nodes: list[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def shortest_cycle(component: list[str], edges: dict[str, set[str]]) -> list[str]:
    """The shortest cycle through the component's first module, as a closed path."""
    start = component[0]
    members = set(component)
    previous: dict[str, str] = {}
    queue = deque([start])
    seen = {start}
    while queue:
        node = queue.popleft()
        for child in sorted(edges[node] & members):
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return [*reversed(path), start]
            if child not in seen:
                seen.add(child)
                previous[child] = node
                queue.append(child)
    return [start]


def count_lines(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def _where(item: Import) -> str:
    return f"{item.importer}:{item.line} -> {item.imported}" + (
        " (not at import time)" if item.deferred else ""
    )


def measure() -> dict[str, object]:
    graph = build()
    modules = sorted(graph.modules)
    edges: dict[str, set[str]] = defaultdict(set)
    for item in graph.imports:
        edges[item.importer].add(item.imported)
    for module in modules:
        edges.setdefault(module, set())

    package_edges = Counter(
        (package_of(i.importer), package_of(i.imported))
        for i in graph.imports
        if package_of(i.importer) != package_of(i.imported)
    )
    components = strongly_connected(modules, edges)
    package_components = strongly_connected(
        list(PACKAGES),
        {p: {b for (a, b) in package_edges if a == p} for p in PACKAGES},
    )

    upward = [i for i in graph.imports if layer_of(i.importer) < layer_of(i.imported)]
    upward_pairs = Counter((unit_of(i.importer), unit_of(i.imported)) for i in upward)

    lines = Counter(dict.fromkeys(PACKAGES, 0))
    for module, path in graph.modules.items():
        lines[package_of(module)] += count_lines(path)
    total_lines = sum(lines.values())

    def between(importer: str, imported: str) -> list[Import]:
        return [
            i
            for i in graph.imports
            if (i.importer == importer or i.importer.startswith(importer + "."))
            and (i.imported == imported or i.imported.startswith(imported + "."))
        ]

    named = {
        "accounts -> matches": between("accounts", "matches"),
        "accounts -> notifications": between("accounts", "notifications"),
        "notifications -> accounts": between("notifications", "accounts"),
        "practice.services -> practice.tasks": between("practice.services", "practice.tasks"),
        "practice.tasks -> practice.services": between("practice.tasks", "practice.services"),
        "matches -> feature apps": [
            i
            for i in graph.imports
            if package_of(i.importer) == "matches" and unit_of(i.imported) in FEATURE_APPS
        ],
    }
    matches_top = [
        m for m in modules if m.count(".") == 1 and m.startswith("matches.") and m in graph.modules
    ]
    matches_flat = [m for m in matches_top if graph.modules[m].name != "__init__.py"]

    return {
        "files": len(graph.modules),
        "import_statements": len(graph.imports),
        "packages": list(PACKAGES),
        "package_edges": [
            {"from": a, "to": b, "imports": n} for (a, b), n in sorted(package_edges.items())
        ],
        "package_cycles": package_components,
        "module_cycles": [
            {"modules": len(c), "members": c, "example": shortest_cycle(c, edges)}
            for c in sorted(components, key=len, reverse=True)
        ],
        "modules_in_cycles": sum(len(c) for c in components),
        "layers": [
            {"layer": n, "name": name, "holds": holds} for n, (name, holds) in enumerate(LAYERS)
        ],
        "upward_pairs": [
            {"from": a, "to": b, "imports": n} for (a, b), n in sorted(upward_pairs.items())
        ],
        "upward_imports": len(upward),
        "upward_statements": [_where(i) for i in upward],
        "upward_runtime_imports": sum(1 for i in upward if not i.deferred),
        "lines": {p: lines[p] for p in PACKAGES},
        "total_lines": total_lines,
        "share": {p: round(100 * lines[p] / total_lines, 1) for p in PACKAGES},
        "matches_flat_top_level_modules": len(matches_flat),
        "named": {key: [_where(i) for i in found] for key, found in named.items()},
    }


def render(figures: dict[str, object]) -> str:
    out: list[str] = []
    f = figures
    out.append(
        f"{f['files']} modules in {len(f['packages'])} packages (migrations left out), "
        f"{f['import_statements']} first-party import statements"
    )
    out.append("")
    edges = f["package_edges"]
    assert isinstance(edges, list)
    out.append(f"Package edges: {len(edges)} (importer -> imported: statements)")
    out.extend(f"  {e['from']:>13} -> {e['to']:<13} {e['imports']:>4}" for e in edges)
    package_cycles = f["package_cycles"]
    assert isinstance(package_cycles, list)
    out.append(f"Packages tied in cycles: {len(package_cycles)} group(s)")
    out.extend("  " + " <-> ".join(group) for group in package_cycles)
    out.append("")
    cycles = f["module_cycles"]
    assert isinstance(cycles, list)
    out.append(
        f"Module cycles: {len(cycles)} (strongly connected groups, "
        f"{f['modules_in_cycles']} modules in all)"
    )
    for c in cycles:
        out.append(f"  {c['modules']} modules, e.g. " + " -> ".join(c["example"]))
    out.append("")
    out.append("Layers, lowest first (a layer imports only from those below it):")
    layers = f["layers"]
    assert isinstance(layers, list)
    out.extend(f"  {layer['layer']} {layer['name']}: {layer['holds']}" for layer in layers)
    pairs = f["upward_pairs"]
    assert isinstance(pairs, list)
    out.append(
        f"Upward imports: {f['upward_imports']} statements "
        f"({f['upward_runtime_imports']} at import time) over {len(pairs)} unit pairs"
    )
    out.extend(f"  {p['from']:>18} -> {p['to']:<18} {p['imports']:>4}" for p in pairs)
    statements = f["upward_statements"]
    assert isinstance(statements, list)
    out.extend(f"    {where}" for where in statements)
    out.append("")
    lines = f["lines"]
    share = f["share"]
    assert isinstance(lines, dict)
    assert isinstance(share, dict)
    out.append(f"Code in non-blank lines: {f['total_lines']}")
    for package in sorted(lines, key=lines.__getitem__, reverse=True):
        out.append(f"  {package:<14} {lines[package]:>6}  {share[package]:>5} %")
    out.append(f"  matches has {f['matches_flat_top_level_modules']} flat top-level modules")
    out.append("")
    named = f["named"]
    assert isinstance(named, dict)
    out.append("Named in issue 37:")
    for key, found in named.items():
        out.append(f"  {key}: {len(found)}")
        out.extend(f"    {where}" for where in found)
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="the figures as JSON")
    args = parser.parse_args(argv)
    figures = measure()
    sys.stdout.write(json.dumps(figures, indent=2) + "\n" if args.json else render(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
