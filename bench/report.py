"""Shared by the benchmarks: what machine this is, percentiles, and rewriting one section of
docs/PERFORMANCE.md while leaving the others alone."""

from __future__ import annotations

import os
import platform
from pathlib import Path

REPORT = Path(__file__).resolve().parents[1] / "docs" / "PERFORMANCE.md"


def machine() -> str:
    """nproc, CPU model, Python, load: what the numbers were measured on."""
    model = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    loads = os.getloadavg()
    busy = loads[0] > (os.cpu_count() or 1) / 2
    note = " (other work was running: treat the times as upper bounds)" if busy else ""
    return (
        f"{os.cpu_count()} CPUs (nproc), {model}; Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.system()} {platform.machine()}; "
        f"load average {', '.join(f'{x:.1f}' for x in loads)}{note}"
    )


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def write_section(heading: str, text: str) -> None:
    """Replace (or add) the section under ``heading`` in docs/PERFORMANCE.md."""
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    current = REPORT.read_text() if REPORT.exists() else "# Performance\n"
    lines = current.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.strip() == heading), None)
    if start is None:
        updated = current.rstrip("\n") + "\n\n" + text
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        tail = "".join(lines[end:])
        updated = "".join(lines[:start]) + text + ("\n" + tail if tail else "")
    REPORT.write_text(updated)


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table (built here so long rows need no long source lines)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
