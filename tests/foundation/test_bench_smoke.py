"""The live bench still runs: a few matches committed through real Daphne processes, and a
few spectators, by ``bench/live.py`` itself.

``make bench`` is not part of CI, and it once stopped working unnoticed for several issues
(its load generators were refused once the websocket origin check landed). This runs its
commit and fan-out parts at a tiny size, with a database and Redis prefix of its own
(``BENCH_NAME``), and checks what they report: every move answered and none refused or lost,
every frame of news heard. No figure of speed is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import spawn

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(300)


def _run_bench(tmp_path: Path, *args: str) -> dict[str, dict]:
    """``bench/live.py --no-write ...``; its printed results by part, e.g. "commits (core)"."""
    env = {**os.environ, "BENCH_NAME": f"wordduel_perf_smoke_{os.getpid()}"}
    process = spawn(
        [sys.executable, "bench/live.py", "--no-write", "--results", str(tmp_path), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output, _ = process.communicate(timeout=240)
    assert process.returncode == 0, output[-3000:]
    parts = {}
    for line in output.splitlines():
        name, _, rest = line.partition(": {")
        if rest and name.startswith(("commits (", "fan-out (")):
            parts[name] = json.loads("{" + rest)
    return parts


def test_the_commit_and_fan_out_runs_answer_every_move_and_deliver_every_frame(
    tmp_path,
) -> None:
    parts = _run_bench(
        tmp_path,
        "--only", "commits,fanout",
        "--layer", "core",
        "--commit-layers", "core",
        "--fanout-layers", "core",
        "--matches", "20",
        "--warmup", "0.5",
        "--seconds", "2",
        "--spectators", "20",
        "--fanout-commits", "3",
    )  # fmt: skip
    commits = parts["commits (core)"]
    assert commits["totals"]["accepted"] > 0
    assert commits["totals"]["refused"] == commits["totals"]["lost"] == 0
    assert commits["integrity_problems"] == 0  # check_integrity on the matches it played
    # A move's news: its turn to both players, its rack to the mover.
    assert commits["news_per_move"] == pytest.approx(3.0)
    assert commits["news_short"] == []  # and so for each match
    fanout = parts["fan-out (core)"]
    assert fanout["spectators"] == 20
    assert fanout["commits"] > 0
    assert fanout["last_p95_ms"] > 0
