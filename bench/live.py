"""The server under load, end to end: commits, fan-out, idle connections, and a profile.

Everything goes through real Daphne processes of ``wordduel.asgi:application`` (origin check,
session auth, the consumer, ``services.match_commit``, PostgreSQL, the channels-redis layer)
driven by asyncio ``websockets`` clients in separate processes (``bench/loadgen.py``). The
bench has a database of its own (``wordduel_perf``, dropped at the end) and a channel-layer
prefix of its own. Run: ``scripts/with-services.sh .venv/bin/python bench/live.py``; each part
writes its own section of docs/PERFORMANCE.md and its figures to ``--results``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import cluster  # noqa: E402
from bench.report import machine, percentile, table, write_section  # noqa: E402

RESULTS = Path("/tmp/wordduel-bench")  # noqa: S108
COMMITS = "## Commit throughput"
FANOUT = "## Fan-out to spectators"
CONNECTIONS = "## Idle connections"
PROFILE = "## Profile of the commit path"
PROCESSES = "## Web processes per core"
GOAL_COMMIT_RATIO = 0.10
GOAL_FANOUT_P95_MS = 150.0
GOAL_KIB_PER_CONNECTION = 100.0
#: The idle-connection ramp stops here whatever it reached, to keep `make bench` bounded.
RAMP_SECONDS = 300
#: Commits sent before the fan-out is timed (each process's first moves warm its caches).
FANOUT_WARMUP = 4


STARTED = time.monotonic()


def log(message: str) -> None:
    """A progress line with the seconds since this bench started."""
    print(f"[{time.monotonic() - STARTED:6.1f} s] {message}", flush=True)


def baselines(results: Path) -> dict[str, Any]:
    """This run's baselines (bench/baselines.py writes them first)."""
    path = results / "baselines.json"
    return json.loads(path.read_text()) if path.exists() else {}


# ---------------------------------------------------------------- commit throughput


def profile_start(pid: int, seconds: float, out: Path) -> subprocess.Popen[bytes] | None:
    """py-spy sampling one Daphne for ``seconds`` (non-blocking: it never pauses the server)."""
    binary = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(binary).exists():
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [
            binary,
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(int(seconds)),
            "--rate",
            "200",
            "--gil",
            "--format",
            "raw",
            "--output",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


FRAME = re.compile(r"^(?P<func>.+?) \((?P<file>[^():]+)(?::\d+)?\)$")


#: What a sample of the server was doing, by the first marker found in its stack.
COMMIT_ACTIVITY = "`services.match_commit` (worker thread)"
ACTIVITIES = (
    # (the news is published from inside the commit's call since it is sent by its thread:
    # looked for first, so that it is counted apart)
    ("_send (matches/news.py", "publishing the events after the commit"),
    ("_send_all (matches/news.py", "publishing the events after the commit"),
    ("match_commit (matches/services/play.py", COMMIT_ACTIVITY),
    ("user_of_session (accounts/sessions.py", "session re-read for each frame (worker thread)"),
    ("get_user (channels/auth.py", "session re-read for each frame (worker thread)"),
    ("_snapshot (matches/live/consumer.py", "connects: deadline check and snapshot"),
    ("_may_watch (matches/live/consumer.py", "connects: deadline check and snapshot"),
    (
        "DatabaseSyncToAsync.thread_handler (channels/db.py);close_old_connections",
        "closing stale database connections around each database call",
    ),
    ("close_old_connections", "channels' thread hop before each message"),
    ("channels_redis", "channel layer: receiving"),
    ("(matches/live/consumer.py", "consumer: frames in and out"),
    ("(channels/", "consumer: frames in and out"),
    ("(autobahn/", "websocket protocol (Daphne, Twisted, Autobahn)"),
    ("(daphne/ws_protocol", "websocket protocol (Daphne, Twisted, Autobahn)"),
    ("callWithLogger (twisted", "websocket protocol (Daphne, Twisted, Autobahn)"),
    ("(twisted/internet/tcp", "websocket protocol (Daphne, Twisted, Autobahn)"),
)
INSIDE_COMMIT = (
    ("(django/db/models/sql/", "Django: compiling SQL"),
    ("(django/db/models/", "Django: querysets and model instances"),
    ("(psycopg/", "psycopg: sending, waiting, reading rows"),
    ("(django/db/backends/", "Django: database backend"),
    ("(engine/", "the rules engine"),
    ("(json/", "JSON"),
)


def summarise_profile(path: Path, top: int = 12) -> dict[str, Any]:
    """Collapsed py-spy stacks (GIL holder only) → what the server spent its time on.

    ``where``: the share of samples in each activity of ``ACTIVITIES``; ``commit``: inside
    ``match_commit``, by the library the innermost frame belongs to; ``top``: the functions
    with the largest inclusive share.
    """
    inclusive: collections.Counter[str] = collections.Counter()
    where: collections.Counter[str] = collections.Counter()
    commit: collections.Counter[str] = collections.Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        total += count
        activity = next((name for marker, name in ACTIVITIES if marker in stack), None)
        where[activity or "the event loop, threads and the rest"] += count
        if activity == COMMIT_ACTIVITY:
            leaf = stack.rsplit(";", 1)[-1]
            part = next((name for marker, name in INSIDE_COMMIT if marker in leaf), None)
            commit[part or "the rest (Python, services, visibility)"] += count
        seen = set()
        for frame in stack.split(";"):
            match = FRAME.match(frame)
            if match is None:
                continue
            short = match["file"].split("site-packages/")[-1].split(str(ROOT) + "/")[-1]
            name = f"{match['func']} ({short})"
            if name not in seen:
                seen.add(name)
                inclusive[name] += count
    keep = [(name, count) for name, count in inclusive.most_common() if not _is_plumbing(name)][
        :top
    ]

    def shares(counter: collections.Counter[str]) -> list[list[Any]]:
        return [[name, count / max(1, total)] for name, count in counter.most_common()]

    return {
        "samples": total,
        "where": shares(where),
        "commit": shares(commit),
        "top": [[name, count / max(1, total)] for name, count in keep],
    }


def _is_plumbing(name: str) -> bool:
    """Frames every sample passes through (the reactor, the thread pool), not a cost."""
    return any(
        part in name
        for part in (
            "_bootstrap",
            "run (threading.py)",
            "_worker (concurrent/futures",
            "run (concurrent/futures",
            "<module>",
            "run_forever",
            "_run_once",
            "_run (asyncio/events",
            "run (twisted",
            "mainLoop",
            "startRunning",
            "daphne/cli.py",
            "daphne/server.py",
            "(daphne/cli",
            "entrypoint",
            "__call__ (asgiref/sync.py)",
            "thread_handler (asgiref/sync.py)",
        )
    )


async def commit_run(
    layer: str,
    entries: list[dict[str, Any]],
    *,
    warmup: float,
    seconds: float,
    profile: bool,
    processes: int = 2,
) -> dict[str, Any]:
    """Scripted players of every match committing as fast as their acks come back, against
    ``processes`` Daphne processes (the players' sockets spread over them)."""
    results: dict[str, Any] = {"layer": layer, "matches": len(entries), "processes": processes}
    with cluster.Cluster(layer, count=processes) as servers:
        parts = list(cluster.split(entries, 2))
        workers = [
            await cluster.Worker.start(
                "players",
                {"ports": servers.ports, "matches": part, "max_seconds": warmup + seconds + 30},
            )
            for part in parts
        ]
        for worker in workers:
            await worker.read(180)
        log(f"commits ({layer}): {len(entries) * 2} player sockets open")
        parts_pids = {
            "daphne": servers.pids,
            "postgres": cluster.postgres_pids(),
            "redis": [pid for pid in [cluster.redis_pid()] if pid],
            "clients": [w.proc.pid for w in workers],
        }
        cpu_before = {part: cluster.cpu_of(pids) for part, pids in parts_pids.items()}
        wall_before = time.monotonic()
        go = time.monotonic()
        start, stop = go + warmup, go + warmup + seconds
        for worker in workers:
            await worker.send({"stop_at": stop})
        spy = None
        if profile:
            await asyncio.sleep(warmup)
            spy = profile_start(servers.pids[0], seconds, RESULTS / f"profile-{layer}.txt")
        outcomes = []
        for worker in workers:
            message = await worker.read(warmup + seconds + 60)
            while "log" in message:
                print("  players:", message["log"])
                message = await worker.read(60)
            outcomes.append(message)
        cpu_used = {
            part: cluster.cpu_of(pids) - cpu_before[part] for part, pids in parts_pids.items()
        }
        # The clients have ended by now: they report their own CPU time as they finish.
        cpu_used["clients"] = sum(o["cpu_seconds"] for o in outcomes) - cpu_before["clients"]
        wall = time.monotonic() - wall_before
        for worker in workers:
            await worker.finish()
        out = RESULTS / f"profile-{layer}.txt"
        if spy is not None and spy.wait(timeout=60) == 0 and out.exists():
            results["profile"] = summarise_profile(out)
        elif spy is not None:  # e.g. no ptrace permission in a container: no profile section
            log(f"py-spy could not sample the server (exit {spy.returncode})")
    samples = [s for o in outcomes for s in o["samples"] if start <= s[0] and s[1] <= stop]
    latencies = [(acked - sent) * 1000 for sent, acked in samples]
    totals = {k: sum(o["totals"][k] for o in outcomes) for k in outcomes[0]["totals"]}
    results.update(
        # The frames of news the players heard (the turn to both, the rack to the mover:
        # three a move), when the moves stopped and in all; and how long the last of it
        # came after the stop. What shows that the news kept up, not only the answers.
        news_per_move_at_stop=sum(o["news_at_stop"] for o in outcomes) / max(1, totals["accepted"]),
        news_per_move=sum(o["news"] for o in outcomes) / max(1, totals["accepted"]),
        news_late_s=max(o["news_late_s"] for o in outcomes),
        # Matches whose players heard other than three frames a move: [id, due, heard].
        news_short=[short for o in outcomes for short in o["news_short"]][:20],
        moves_per_s=len(samples) / seconds,
        ack_p50_ms=statistics.median(latencies),
        ack_p95_ms=percentile(latencies, 0.95),
        ack_p99_ms=percentile(latencies, 0.99),
        moves=len(samples),
        seconds=seconds,
        totals=totals,
        cpu_per_move_ms={
            part: used * 1000 / max(1, totals["accepted"]) for part, used in cpu_used.items()
        },
        cpu_cores={part: used / wall for part, used in cpu_used.items()},
    )
    return results


def prepare_matches(count: int, prefix: str) -> list[dict[str, Any]]:
    entries = cluster.live_matches(count, prefix=prefix)
    cluster.script_games(entries)
    return entries


def bench_commits(
    layers: list[str], matches: int, warmup: float, seconds: float, profile: bool
) -> dict[str, Any]:
    """Each layer's commit run; with ``profile``, a second run of the first layer, on fresh
    matches, under py-spy, whose profile joins the figures of the first (sampling slows
    the server it samples, so the figures come from the run without it)."""
    runs = {}
    for layer in layers:
        entries = prepare_matches(matches, prefix=f"c{layer}")
        log(f"commits ({layer}): {matches} matches dealt and scripted")
        runs[layer] = asyncio.run(
            commit_run(layer, entries, warmup=warmup, seconds=seconds, profile=False)
        )
        runs[layer]["mix"] = moves_mix(entries)
        runs[layer]["integrity_problems"] = integrity_problems(entries)
        print(f"commits ({layer}):", json.dumps(runs[layer]))
    if profile and layers:
        entries = prepare_matches(matches, prefix=f"p{layers[0]}")
        log(f"commits ({layers[0]}, profiled): {matches} matches dealt and scripted")
        profiled = asyncio.run(
            commit_run(layers[0], entries, warmup=warmup, seconds=seconds, profile=True)
        )
        if "profile" in profiled:
            runs[layers[0]]["profile"] = profiled["profile"]
            runs[layers[0]]["profiled_moves_per_s"] = profiled["moves_per_s"]
    return runs


def integrity_problems(entries: list[dict[str, Any]]) -> int:
    """What ``manage.py check_integrity`` finds wrong in the matches a run played on (the
    turn log, the stored position, the bag and the chain agreeing): it must be 0."""
    from matches.integrity import integrity_report
    from matches.models import Match

    played = Match.objects.filter(pk__in=[entry["match_id"] for entry in entries])
    return sum(len(problems) for _match, problems in integrity_report(played))


def bench_processes(
    layer: str, counts: list[int], matches: int, warmup: float, seconds: float
) -> dict[int, dict[str, Any]]:
    """The commit run against 1, 2, 3... Daphne processes on this machine's cores, each on
    fresh matches of its own."""
    runs = {}
    for count in counts:
        entries = prepare_matches(matches, prefix=f"p{count}")
        log(f"processes ({count}): {matches} matches dealt and scripted")
        cluster.settle_database()
        runs[count] = asyncio.run(
            commit_run(
                layer, entries, warmup=warmup, seconds=seconds, profile=False, processes=count
            )
        )
        print(f"processes ({count}):", json.dumps(runs[count]))
    return runs


PROCESSES_HEADER = [
    "Daphne processes",
    "moves/s",
    "ack p50 / p95 (ms)",
    "Daphne CPU per move (ms)",
    "cores used by Daphne",
    "cores used by PostgreSQL",
    "refused / lost",
]


def processes_section(runs: dict[int, dict[str, Any]], layer: str) -> str:
    """The "Web processes per core" section: the same load against 1, 2, 3... processes."""
    cores = os.cpu_count() or 1
    rows = [
        [
            f"{count}",
            f"**{r['moves_per_s']:,.1f}**",
            f"{r['ack_p50_ms']:,.0f} / {r['ack_p95_ms']:,.0f}",
            f"{r['cpu_per_move_ms']['daphne']:.1f}",
            f"{r['cpu_cores']['daphne']:.2f}",
            f"{r['cpu_cores']['postgres']:.2f}",
            f"{r['totals']['refused']} / {r['totals']['lost']}",
        ]
        for count, r in sorted(runs.items())
    ]
    best = max(runs, key=lambda count: runs[count]["moves_per_s"])
    one = runs.get(1)
    gain = (
        f" ({runs[best]['moves_per_s'] / one['moves_per_s']:.2f}× the moves of one process)"
        if one and best != 1
        else ""
    )
    if best > cores:
        verdict = (
            f"More processes than cores still added moves here: with {cores} cores, "
            f"{best} processes did most{gain}. A process whose threads wait (on PostgreSQL's "
            "answers, on the row lock, on their turn at the interpreter lock) leaves its core "
            "to another process, and each process has fewer threads taking turns at its own "
            "lock (Daphne CPU per move falls as processes are added). The gain shrinks with "
            "each process, and each costs its own memory (the word list, its connections)."
        )
    elif best == cores:
        verdict = f"One process per core did most: {best} on {cores} cores{gain}."
    else:
        verdict = f"Fewer processes than cores did most here: {best} on {cores} cores{gain}."
    first = next(iter(runs.values()))
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return f"""{PROCESSES}

Measured by `bench/live.py --only processes` on {when}; machine: {machine()}.

**Method.** The load of "Commit throughput" ({first["matches"]} live matches, both seats of
each on a socket, every player sending its next move the moment its ack is back; layer
`{layer}`), against {", ".join(str(count) for count in sorted(runs))} Daphne processes of the
application on this machine's {cores} cores, each run on fresh matches, counted over
{first["seconds"]:.0f} s after a warm-up. PostgreSQL, Redis and the two load-generator
processes share the same cores. Not part of `make bench` (it would take it past ten minutes).

{table(PROCESSES_HEADER, rows)}

**Reading.** One Daphne process is one Python interpreter: its event loop and the worker
threads that make the commits share one lock, so one process uses at most about one core for
Python however many threads it has. {verdict} Hence docs/OPERATIONS.md ("Scaling: web
processes per core").
"""


def moves_mix(entries: list[dict[str, Any]]) -> str:
    """What the scripted games hold: plays, swaps, passes."""
    kinds = collections.Counter(frame["type"] for e in entries for _, frame in e["moves"])
    total = sum(kinds.values())
    names = {"play": "plays", "swap": "swaps", "pass": "passes"}
    return ", ".join(f"{kinds[k] / total:.0%} {name}" for k, name in names.items())


def commits_section(runs: dict[str, Any], base: dict[str, Any], chosen: str) -> str:
    """The "Commit throughput" section: each layer's run, the goal, what bounds it."""
    tps = base.get("pgbench", {}).get("tps") or 0.0
    rows = []
    for layer, r in runs.items():
        cpu = r["cpu_per_move_ms"]
        rows.append(
            [
                f"`{layer}`",
                f"{r['matches']}",
                f"**{r['moves_per_s']:,.1f}**",
                f"{r['ack_p50_ms']:,.0f} / {r['ack_p95_ms']:,.0f} / {r['ack_p99_ms']:,.0f}",
                f"**{r['moves_per_s'] / tps:.3f}**" if tps else "n/a",
                (
                    f"{cpu['daphne']:.1f} / {cpu['postgres']:.1f} / {cpu['redis']:.1f} / "
                    f"{cpu['clients']:.1f}"
                ),
                f"{r['cpu_cores']['daphne']:.2f}",
                (
                    f"{r['news_per_move_at_stop']:.2f} / {r['news_per_move']:.2f} "
                    f"({r['news_late_s']:.1f} s)"
                ),
            ]
        )
    main = runs[chosen]
    cpu = main["cpu_per_move_ms"]
    per_move = sum(cpu.values())
    ratio = main["moves_per_s"] / tps if tps else 0.0
    verdict = "met" if ratio >= GOAL_COMMIT_RATIO else "NOT met"
    needed = GOAL_COMMIT_RATIO * tps
    header = [
        "layer",
        "matches",
        "moves/s",
        "ack p50 / p95 / p99 (ms)",
        "÷ pgbench TPS",
        "CPU per move (ms): Daphne / PostgreSQL / Redis / clients",
        "cores used by Daphne",
        "news frames a move: at the stop / in all (last one after the stop)",
    ]
    return f"""{COMMITS}

Measured by `bench/live.py` on {time.strftime("%Y-%m-%d")}; machine: {machine()}.

**Method.** Two Daphne processes of the real application (`DEBUG` off, as deployed) share the
machine's two cores with PostgreSQL, Redis and two load-generator processes, which hold
{main["matches"]} live matches at once, both seats of each signed in over a websocket of its
own ({main["matches"] * 2} sockets). Each match replays a legal random game of its own dealt bag
({main["mix"]}; played out by `engine/randomplay.py` before the clock starts, so the
clients spend nothing on finding moves): the player to move sends the next `play`, `swap`
or `pass` the moment the previous move's `ack` is back, through the whole path (the session
check and `services.match_commit` in one worker-thread call, the turn and rack news sent to
the channel layer by that same thread, the ack).
Counted over {main["seconds"]:.0f} s after a warm-up; a move counts when its accepted `ack`
is back. CPU per move is each part's CPU time over the run divided by the moves accepted.

{table(header, rows)}

Goal: moves/s ≥ {GOAL_COMMIT_RATIO:.2f} × pgbench `-N` TPS (that is
{needed:,.0f} moves/s against this run's {tps:,.0f} TPS): **{verdict}** with `{chosen}`
({ratio:.3f}). Refused or lost commits: {main["totals"]["refused"]} refused,
{main["totals"]["lost"]} lost (both must be 0). `check_integrity` on the matches played
afterwards: {main.get("integrity_problems", "not run")} problems (must be 0).

**The news.** A move sends three frames of news: the turn to both players and the rack to the
mover. The last column counts the frames the players had heard when the moves stopped, and
in all once none had come for a second (waiting 30 s at most), with how long after the stop
the last came. Three in all means none was lost (each match's players are also counted
apart, and any match short of three a move is listed); fewer at the stop means the news fell
behind the acks while the load lasted (each web process reads its news through
channels-redis's own receive, on the event loop it shares with the commits:
docs/PERFORMANCE.md).

**What holds it back: CPU.** Every move costs {per_move:.0f} ms of CPU in all (Daphne
{cpu["daphne"]:.0f} ms, PostgreSQL {cpu["postgres"]:.1f} ms, clients and Redis the rest), so
two cores can carry at most about {2000 / per_move:.0f} moves/s even with nothing else
running, whatever the concurrency; {GOAL_COMMIT_RATIO:.2f} × TPS would need the whole path
under {2000 / max(needed, 1):.1f} ms a move, when PostgreSQL's own share of a move's
transaction is {cpu["postgres"]:.1f} ms: on two cores that the database shares with the web
processes and the clients, the goal would leave Python {
        max(
            0.0, 2000 / max(needed, 1) - cpu["postgres"]
        ):.1f} ms a move. The disk is not the limit (its group commit carries
{tps:,.0f} `pgbench` transactions a second); the CPU is, and most of it is Daphne's.
The Daphne milliseconds are Python: a move is one worker-thread call (the session check
and `services.match_commit` together) of eight SQL statements through Django's ORM (the
member with the live session's data; the locked match; the seats locked with their members
together with the client id's receipt and the last turn's hash; then the move's rows, one
statement each: the seat, the turn, the match's changed columns, the notice and the
receipt), prepared on the server by psycopg once they repeat (`prepare_threshold`), and the
news handed to the process's publishing loop and sent with channels-redis's own
`group_send`, plus the Channels consumer and Twisted for the frames and the reading of the
news. `bench/commit_path.py` replays moves through that worker-thread call
alone, in one process (section "The position kept once, and a commit's cost by turn": 0.47 ×
the CPU of the path before prepared SQL, same machine). Section "Profile of the commit path"
splits the whole process's time. In this run the two Daphne processes got
{main["cpu_cores"]["daphne"]:.2f} of the two cores: the load average above says what else
was running. The acks wait seconds because {main["matches"]} matches each keep one commit in
flight against a server that finishes {main["moves_per_s"]:.0f} a second (Little's law).
"""


# ---------------------------------------------------------------- fan-out


async def fanout_run(
    layer: str,
    entry: dict[str, Any],
    spectators: int,
    commits: int,
    procs: int,
    profile: bool = False,
) -> dict[str, Any]:
    """One match, ``spectators`` anonymous viewers; time each commit to the last of them."""
    from bench.loadgen import Player, first_frame, open_socket

    with cluster.Cluster(layer, count=2) as servers:
        workers, connect_seconds = await cluster.start_spectators(
            servers.ports, entry["match_id"], spectators, procs
        )
        log(f"fan-out ({layer}): {spectators} spectators in {connect_seconds:.0f} s")
        seats = []
        for index, cookie in enumerate(entry["cookies"]):
            ws = await open_socket(
                servers.ports[index % 2], f"/ws/matches/{entry['match_id']}/", cookie
            )
            await first_frame(ws)
            seats.append(Player(ws))
        await cluster.fanout_rounds(workers, seats, entry["moves"][:FANOUT_WARMUP])
        spy = None
        if profile:
            spy = profile_start(servers.pids[0], 10, RESULTS / f"profile-fanout-{layer}.txt")
        meter = {"daphne": servers.pids, "clients": [w.proc.pid for w in workers]}
        cpu_before = {part: cluster.cpu_of(pids) for part, pids in meter.items()}
        rows = await cluster.fanout_rounds(
            workers,
            seats,
            entry["moves"][FANOUT_WARMUP : FANOUT_WARMUP + commits],
            first_turn=FANOUT_WARMUP,
        )
        cpu_used = {part: cluster.cpu_of(pids) - cpu_before[part] for part, pids in meter.items()}
        await cluster.stop_workers(workers)
        for player in seats:
            await player.ws.close()
        if spy is not None:
            spy.wait(timeout=60)
    return {"rows": rows, "cpu_s": cpu_used, "connect_seconds": connect_seconds}


def fanout_figures(layer: str, spectators: int, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One layer's figures over all its runs' commits."""
    rows = [row for run in runs for row in run["rows"]]
    last = [r["last_ms"] for r in rows]
    cpu = {part: sum(run["cpu_s"][part] for run in runs) for part in runs[0]["cpu_s"]}
    return {
        "layer": layer,
        "spectators": spectators,
        "runs": len(runs),
        "commits": len(rows),
        "last_p50_ms": statistics.median(last),
        "last_p95_ms": percentile(last, 0.95),
        "last_max_ms": max(last),
        "first_p50_ms": statistics.median(r["first_ms"] for r in rows),
        "ack_p50_ms": statistics.median(r["ack_ms"] for r in rows),
        "spread_p50_ms": statistics.median(r["last_ms"] - r["first_ms"] for r in rows),
        "per_recipient_us": statistics.median(last) * 1000 / spectators,
        "connect_per_s": spectators * len(runs) / sum(run["connect_seconds"] for run in runs),
        "cpu_per_commit_ms": {part: used * 1000 / len(rows) for part, used in cpu.items()},
    }


def bench_fanout(
    layers: list[str], spectators: int, commits: int, procs: int, profile: bool = False
) -> dict[str, Any]:
    """Each layer twice, in the order A B B A, so that neither gains from going second."""
    runs: dict[str, list[dict[str, Any]]] = {layer: [] for layer in layers}
    for index, layer in enumerate(layers + layers[::-1]):
        entry = prepare_matches(1, prefix=f"f{layer}{index}")[0]
        cluster.settle_database()
        run = asyncio.run(
            fanout_run(layer, entry, spectators, commits, procs, profile=profile and index == 0)
        )
        runs[layer].append(run)
        log(f"fan-out ({layer}, run {len(runs[layer])}): {len(run['rows'])} commits")
    figures = {layer: fanout_figures(layer, spectators, done) for layer, done in runs.items()}
    for layer, figure in figures.items():
        print(f"fan-out ({layer}):", json.dumps(figure))
    return figures


def fanout_section(runs: dict[str, Any], base: dict[str, Any], chosen: str) -> str:
    """The "Fan-out to spectators" section, with the layer comparison and the choice."""
    redis_us = base.get("redis", {}).get("p50_us", 0.0)
    floor = base.get("broadcast", {})
    rows = []
    for layer, r in runs.items():
        cpu = r["cpu_per_commit_ms"]
        rows.append(
            [
                f"`{layer}`",
                f"{r['ack_p50_ms']:.0f}",
                f"{r['first_p50_ms']:.0f}",
                f"**{r['last_p50_ms']:.0f}**",
                f"**{r['last_p95_ms']:.0f}** ({r['last_max_ms']:.0f})",
                f"{r['per_recipient_us']:.0f} µs",
                f"{cpu['daphne'] * 1000 / r['spectators']:.0f} µs",
                f"{cpu['clients'] * 1000 / r['spectators']:.0f} µs",
                f"{r['connect_per_s']:,.0f}",
            ]
        )
    if floor:
        rows.append(
            [
                "bare `websockets` (floor)",
                "",
                "",
                f"{floor['last_p50_ms']:.0f}",
                f"{floor['last_p95_ms']:.0f}",  # (the floor keeps no maximum)
                f"{floor['last_p50_ms'] * 1000 / floor['spectators']:.0f} µs",
                f"{floor['cpu_per_round_ms']['server'] * 1000 / floor['spectators']:.0f} µs",
                f"{floor['cpu_per_round_ms']['clients'] * 1000 / floor['spectators']:.0f} µs",
                f"{floor['connect_per_s']:,.0f}",
            ]
        )
    main = runs[chosen]
    verdict = "met" if main["last_p95_ms"] <= GOAL_FANOUT_P95_MS else "NOT met"
    ratio = main["per_recipient_us"] / redis_us if redis_us else 0.0
    other = next((r for layer, r in runs.items() if layer != chosen), None)
    header = [
        "layer",
        "ack p50 (ms)",
        "first spectator p50 (ms)",
        "last spectator p50 (ms)",
        "last spectator p95 (slowest) (ms)",
        "per recipient (last p50 ÷ spectators)",
        "server CPU per recipient",
        "client CPU per recipient",
        "connects/s",
    ]
    comparison = ""
    if other is not None:
        faster = other["last_p95_ms"] < main["last_p95_ms"]
        lead = f"So `{other['layer']}` wins on fan-out, but not" if faster else "Neither wins"
        comparison = f"""
**Layer choice: `{chosen}` stays the default.** Side by side in this run `{other["layer"]}`
reached the last spectator in {other["last_p50_ms"]:.0f} ms (p95 {other["last_p95_ms"]:.0f} ms)
against `{chosen}`'s {main["last_p50_ms"]:.0f} ms (p95 {main["last_p95_ms"]:.0f} ms), for
{other["cpu_per_commit_ms"]["daphne"]:.0f} ms of Daphne CPU a commit against
{main["cpu_per_commit_ms"]["daphne"]:.0f} ms. With one subscription per process, either
layer carries a commit's news as one message per Daphne process, so they differ only in how
that message crosses Redis (`pubsub`: one PUBLISH; `core`: a Lua script into each process's
sorted set, then channels-redis's own receive: a backup copy kept and cleaned around each
blocking pop).
Under the commit load of "Commit throughput" `pubsub` was ahead (291 moves/s, every news frame
heard, against 218 for `core` with its one-pop receive, 2026-12-01, third session;
`bench/live.py --only commits --commit-layers core,pubsub`). {lead}
by enough to be worth what it gives up: `pubsub`
keeps nothing for a process that is reconnecting to Redis (`core` keeps news for `expiry`,
30 s, and bounds a stuck consumer with `capacity`), and a channel it makes on one event loop
cannot be used from another, which the clock tests do
(`tests/matches/test_clock.py`, `_listen`). With `CHANNEL_LAYER_BACKEND=pubsub`, that test
fails, and a whole-suite run on 2026-12-01 showed dozens of errors in `tests/matches` before
it was stopped; making `pubsub` the default needs those test helpers to subscribe on the
loop they listen on, the fault tests of `tests/reliability` run on it, and the broadcast to
notice a reconnect (today `pubsub` loses what was published meanwhile without a word).
`CHANNEL_LAYER_BACKEND=pubsub` selects it for a deployment that wants it now.
"""
    order = ", ".join(f"`{layer}`" for layer in [*runs, *reversed(runs)])
    bare_us = floor.get("cpu_per_round_ms", {}).get("server", 0.0) * 1000
    bare_us /= max(1, floor.get("spectators", 1))
    total_cpu = main["cpu_per_commit_ms"]["daphne"] + main["cpu_per_commit_ms"]["clients"]
    floor_text = "Each spectator"
    if floor:
        floor_text = (
            f"The same clients read a bare `websockets` broadcast to {floor['spectators']:,} "
            f"sockets in {floor['last_p50_ms']:.0f} ms (p95 {floor['last_p95_ms']:.0f} ms) on "
            "this machine: much of the budget is gone before any Django code runs. Then each "
            "spectator"
        )
    return f"""{FANOUT}

Measured by `bench/live.py` on {time.strftime("%Y-%m-%d")}; machine: {machine()}.

**Method.** One live match watched by {main["spectators"]:,} anonymous spectators (websockets
spread over two Daphne processes, held by four load-generator processes); a player commits
the match's scripted moves one at a time, and each commit is timed from the moment its frame
is sent to the moment the *last* spectator has read the `turn` news (`CLOCK_MONOTONIC`,
shared by every process of the machine). The next commit goes once every spectator has the
previous one, so each is measured alone. Each layer runs twice, in the order {order},
so that neither gains from going first or second (each run on a
fresh match, after `VACUUM` and `CHECKPOINT`, with {FANOUT_WARMUP} commits not counted that
warm both processes up): {main["commits"]} commits per layer in all. The clients
find the turn number without parsing the frame, to take as little CPU as they can.

{table(header, rows)}

Goal: p95 ≤ {GOAL_FANOUT_P95_MS:.0f} ms at {main["spectators"]:,} spectators (`{chosen}`):
**{verdict}** ({main["last_p95_ms"]:.0f} ms). Per recipient a commit's news costs
{main["per_recipient_us"]:.0f} µs of wall time, {ratio:.2f}× a Redis PUBLISH → subscriber
round trip ({redis_us:.0f} µs, "Baselines"): Redis is not what it waits for, since the news
crosses Redis once per Daphne process, not once per spectator.

**How.** Each Daphne process subscribes once to each match it has watchers for
(`matches/live/broadcast.py`: one channel of the process in the match's group, one task reading
it) and hands each message to its local sockets in turn. Before that, every socket was a
member of the group: a commit was 1,000 channel-layer messages, each popped from Redis and
read by a task of its own; `core` measured last-spectator p50 291-319 ms, p95 585-859 ms, and
393-501 ms of Daphne CPU a commit (development runs of 2026-11-30). And each web process
tunes its garbage collector (`wordduel/asgi.py`): what it built at start-up is frozen out of
the collector's sight (`gc.freeze()`), which took full collections with 500 sockets open
from 100-155 ms to 25-55 ms, and collections are rarer (`gc.set_threshold(50_000, 20,
100)`). Before that, one commit in twenty waited out a collection (last spectator 160-250
ms, the p95 of 20 commits); with it, 76 commits in two development runs all reached the last
spectator within 121 ms.

**What is left: CPU per recipient.** {floor_text} costs Daphne about
{main["cpu_per_commit_ms"]["daphne"] * 1000 / main["spectators"]:.0f} µs of CPU (the bare
server: {bare_us:.0f} µs): the consumer relays the frame through its checks, our request-id
middleware and Daphne pass the send on, and Autobahn builds each recipient's frame and
Twisted queues it for the next turn of the loop, all in Python (Daphne as shipped; the frame
writer that built one frame per message and wrote it at once, 37-42 µs a recipient against
75 µs without it on 2026-12-01, was retired by issue 37 because it patched Daphne). With two cores
for both servers and the clients, {main["spectators"]:,} recipients cannot be served faster
than their total CPU ({total_cpu:.0f} ms a commit) divided by two. The ack comes with the
fan-out because the commit's own reply waits on the same event loop behind the deliveries.
{comparison}"""


# ---------------------------------------------------------------- idle connections


def bench_connections(
    layer: str, total: int, matches: int, procs: int, servers_count: int, idle_seconds: float
) -> dict[str, Any]:
    """Open ``total`` idle sockets over ``servers_count`` Daphnes: memory, idle CPU, ramp."""
    entries = cluster.live_matches(matches, prefix="idle")
    paths = [f"/ws/matches/{e['match_id']}/" for e in entries]
    return asyncio.run(connections_run(layer, paths, total, procs, servers_count, idle_seconds))


async def connections_run(
    layer: str, paths: list[str], total: int, procs: int, servers_count: int, idle_seconds: float
) -> dict[str, Any]:
    with cluster.Cluster(layer, count=servers_count) as servers:
        # Warm each process up (imports, thread pool, database connections) off the books.
        warm = await cluster.Worker.start(
            "idle",
            {
                "ports": servers.ports,
                "paths": paths,
                "count": 100 * servers_count,
                "concurrency": 20,
                "ramp_seconds": 90,
                "max_seconds": RAMP_SECONDS + 500,
            },
        )
        await warm.read(120)
        log("connections: warm-up sockets open")
        await asyncio.sleep(2)
        rss_before = servers.rss_kib()
        meter = {"daphne": servers.pids}
        ramp_cpu = {part: cluster.cpu_of(pids) for part, pids in meter.items()}
        config = {
            "ports": servers.ports,
            "paths": paths,
            "concurrency": 16,
            "ramp_seconds": RAMP_SECONDS,
            "max_seconds": RAMP_SECONDS + 300,
        }
        workers = [
            await cluster.Worker.start("idle", {**config, "count": len(part)})
            for part in cluster.split(list(range(total)), procs)
        ]
        ramps = [await w.read(RAMP_SECONDS + 60) for w in workers]
        ramp_cpu = {part: cluster.cpu_of(pids) - ramp_cpu[part] for part, pids in meter.items()}
        ramp_cpu["clients"] = sum(r["cpu_seconds"] for r in ramps)
        log(f"ramp done: {sum(r['connected'] for r in ramps)} sockets")
        await asyncio.sleep(3)
        rss_after = servers.rss_kib()
        cpu_before, wall_before = servers.cpu_seconds(), time.monotonic()
        await asyncio.sleep(idle_seconds)
        idle_cpu = (servers.cpu_seconds() - cpu_before) / (time.monotonic() - wall_before)
        per_process = [cluster.rss_kib(pid) for pid in servers.pids]
        # Servers first: thousands of closing handshakes would only cost time now.
        servers.stop(grace=5)
        log("servers stopped")
        for worker in [*workers, warm]:
            await worker.send({"stop": True})
        for worker in [*workers, warm]:
            await worker.read(120)
            await worker.finish()
        log("sockets closed")
    opened = sum(r["connected"] for r in ramps)
    ramp_seconds = max(r["finished"] for r in ramps) - min(r["started"] for r in ramps)
    return {
        "layer": layer,
        "servers": servers_count,
        "asked": total,
        "connected": opened,
        "failed": sum(r["failed"] for r in ramps),
        "unfinished": sum(r["unfinished"] for r in ramps),
        "failures": sorted({f for r in ramps for f in r["failures"]}),
        "kib_per_connection": (rss_after - rss_before) / max(1, opened),
        "rss_mib_per_process": [kib / 1024 for kib in per_process],
        "idle_cpu_percent": idle_cpu * 100,
        "idle_seconds": idle_seconds,
        "handshakes_per_s": opened / ramp_seconds,
        "ramp_seconds": ramp_seconds,
        "handshake_p50_ms": statistics.median(r["handshake_p50"] or 0 for r in ramps) * 1000,
        "cpu_per_handshake_ms": {
            part: used * 1000 / max(1, opened) for part, used in ramp_cpu.items()
        },
    }


def connections_section(r: dict[str, Any], base: dict[str, Any]) -> str:
    """The "Idle connections" section."""
    echo = base.get("echo", {})
    verdict = "met" if r["kib_per_connection"] <= GOAL_KIB_PER_CONNECTION else "NOT met"
    procs = ", ".join(f"{mib:.0f}" for mib in r["rss_mib_per_process"])
    failures = f": {', '.join(r['failures'])}" if r["failures"] else ""
    rows = [
        [
            "connections held",
            (
                f"{r['connected']:,} ({r['failed']} failed{failures}; "
                f"{r['unfinished']} still opening when the ramp's {RAMP_SECONDS} s ran out)"
            ),
        ],
        [
            "memory per connection (RSS delta ÷ connections, all Daphne processes)",
            (
                f"**{r['kib_per_connection']:.1f} KiB** (bare `websockets`: "
                f"{echo.get('kib_per_connection', 0.0):.1f} KiB)"
            ),
        ],
        ["RSS of each Daphne process with them open", f"{procs} MiB"],
        [
            (
                f"idle CPU of the Daphne processes ({r['idle_seconds']:.0f} s; Daphne pings each "
                "socket every 20 s)"
            ),
            f"{r['idle_cpu_percent']:.1f} % of one core",
        ],
        [
            "handshake rate during the ramp",
            (
                f"{r['handshakes_per_s']:,.0f}/s over {r['ramp_seconds']:.0f} s "
                f"(p50 {r['handshake_p50_ms']:.0f} ms each, 64 in flight; bare `websockets`: "
                f"{echo.get('handshakes_per_s', 0.0):,.0f}/s)"
            ),
        ],
        [
            "CPU per handshake: Daphne / clients",
            (
                f"{r['cpu_per_handshake_ms']['daphne']:.1f} ms / "
                f"{r['cpu_per_handshake_ms']['clients']:.1f} ms"
            ),
        ],
    ]
    return f"""{CONNECTIONS}

Measured by `bench/live.py` on {time.strftime("%Y-%m-%d")}; machine: {machine()}.

**Method.** {r["asked"]:,} websockets opened by four load-generator processes against
{r["servers"]} Daphne processes (`{r["layer"]}` layer), each an anonymous spectator of one of
100 live matches that gets its snapshot and then nothing more. Before the ramp each process
has served 100 warm-up sockets, which stay open, so imports, the thread pool and the database
connections are not counted as per-socket costs. Memory is the rise in resident set size;
idle CPU is the servers' CPU time over the idle window.

{table(["figure", "value"], rows)}

Goal: ≤ {GOAL_KIB_PER_CONNECTION:.0f} KiB per connection: **{verdict}**. A socket costs a
Twisted/Autobahn protocol, an ASGI application task with its consumer, its queue and its
channel-layer receive, and the scope (headers, session, user). A handshake costs the origin
check, the session middleware, the deadline check (a plain read unless a deadline passed)
and the snapshot (one consistent read of the match, seats and moves), then the snapshot
frame: the ramp is as fast as two cores run that Python, about
{2000 / max(1.0, r["cpu_per_handshake_ms"]["daphne"]):.0f} handshakes a second at best. Idle,
the servers still walk every socket: Daphne checks each connection's timeouts every 2 s and
its application every second, and pings each socket every 20 s.
"""


# ---------------------------------------------------------------- the profile section


def _profiled_note(run: dict[str, Any]) -> str:
    """Where the samples came from, when not from the run whose figures are given."""
    if "profiled_moves_per_s" not in run:
        return ""
    return (
        ", from a second run of the same load under py-spy"
        f" ({run['profiled_moves_per_s']:.1f} moves/s while sampled)"
    )


def profile_markdown(run: dict[str, Any], title: str) -> str:
    """One profiled commit run as Markdown: its figures, then where the time went."""
    prof = run["profile"]
    cpu = run["cpu_per_move_ms"]
    where = table(
        ["what the Daphne process was doing", "share"],
        [[name, f"{share:.0%}"] for name, share in prof["where"]],
    )
    inside = table(
        ["inside `match_commit`, by innermost frame", "share of all samples"],
        [[name, f"{share:.0%}"] for name, share in prof["commit"]],
    )
    return f"""### {title}

`{run["layer"]}` layer, {run["matches"]} matches: **{run["moves_per_s"]:.1f} moves/s**, ack p50
{run["ack_p50_ms"]:,.0f} ms; CPU per move: Daphne **{cpu["daphne"]:.1f} ms**, PostgreSQL
{cpu["postgres"]:.1f} ms. {prof["samples"]:,} samples{_profiled_note(run)}.

{where}

{inside}
"""


def profile_section(after: dict[str, Any]) -> str:
    """The "Profile of the commit path" section: the stored before, this run's after."""
    before = (ROOT / "bench" / "profile_before.md").read_text().strip()
    return f"""{PROFILE}

**Method.** py-spy 0.4.3 (`py-spy record --gil --rate 200 --format raw`) samples one of the
two Daphne processes through the commit-throughput window, counting only the thread that holds
the GIL, that is the Python work; `bench/live.py` sorts each sample by the first of a list
of markers found in its stack (the service call, the session re-read, the publishing, the
consumer, the websocket protocol...). "Before" is the code as it was when this benchmark was
written (commit `cbe147d`), measured by the same bench on the same machine; "After" is this
run.

{before}

{profile_markdown(after, "After (this run)")}
**The fixes** (each a few lines; every test passes):
1. `matches/live/consumer.py`: the session re-read for each frame ran through channels'
   `get_user`, which is thread-sensitive, so every frame of every socket of the process queued
   behind one thread; now Django's own `auth.get_user` runs through the consumer's
   `off_loop` like all its other database work.
2. `matches/live/consumer.py`: `MatchConsumer.dispatch` skips channels' `aclose_old_connections`
   before each message, a hop through that same single thread for every frame and every
   channel-layer message (four per move, a thousand per commit at a thousand spectators);
   the consumer's database work closes its stale connections in its own worker threads.
3. `matches/services.py`: the turn's payload read the seats again and each seat's member
   (three queries, the seats sorted through a join on the match because of `Seat`'s default
   ordering); one prefetch of seats with members, ordered by position, serves the payloads. A
   seat whose rack and score did not change is no longer saved (most moves change one).
4. `matches/news.py`: a public event's frame is encoded once when published, not once per
   socket, and the message is built without `asdict`'s deep copy.
5. Connects (what a spectator's arrival costs): `services.match_apply_deadlines` locks the
   match only when a deadline has passed, and the consumer's snapshot is one `REPEATABLE READ,
   READ ONLY` transaction instead of a row lock. Both used to lock the match row and so write
   WAL and wait for a flush at commit, one viewer at a time per match: a thousand spectators
   of one match connected at about 35 a second. The deadline check's match is reused for the
   watch check.

Then, in a second round (measured in between at 36 moves/s and 32.5 ms of Daphne CPU a move,
`bench/commit_path.py` 18.3 ms of CPU and 13 statements a move in one process):

6. `matches/live/consumer.py`: a commit checks the session and commits in one worker-thread call
   (`commit_as_member`): one thread hop and one `CONN_HEALTH_CHECKS` ping a move, not two.
7. `matches/services.py`: the seats are locked together with their members (`select_related`,
   `FOR UPDATE OF` the seats only) and serve the payloads, so the prefetch of fix 3 is gone;
   the ack reuses the turn just written instead of reading the last turn back; a move that
   does not end the match updates the six columns it changes, not all of the match's row.
   `bench/commit_path.py`: 15.5 ms of CPU and 11 statements a move.
8. `wordduel/asgi.py` tunes the garbage collector (see "Fan-out to spectators"); the word list
   is read at start-up, not by the process's first move.

Then issue 17 (section "The position kept once, and a commit's cost by turn"):

9. The position kept once beside the turn log (`matches/stored_game.py`), not the whole game
   parsed and rewritten each move; the computer's turn queued from a domain signal.
10. `wordduel/prepared.py`: the path's reads and writes compiled once per thread (the
    "compiling SQL" share above went from 11% to nothing); one channel-layer message a
    change; "your move" notices to Celery one task per 0.25 s window
    (`notifications/batching.py`).
11. Issue 37 retired 10's compiled SQL (Django's internals): the path is Django's ORM again,
    its repeated statements prepared on the server by psycopg ("Stock parts only, public
    APIs").
"""


# ---------------------------------------------------------------- main


def run(args: argparse.Namespace) -> dict[str, Any]:
    cluster.raise_open_files()
    cluster.recreate_database()
    cluster.setup_django(args.layer)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    cluster.clear_layer_keys()
    base = baselines(args.results)
    figures: dict[str, Any] = {}
    try:
        if "commits" in args.only:
            layers = args.commit_layers or [args.layer]
            runs = bench_commits(
                layers, args.matches, args.warmup, args.seconds, profile=args.profile
            )
            figures["commits"] = runs
            if not args.no_write:
                write_section(COMMITS, commits_section(runs, base, args.layer))
                if args.profile and "profile" in runs[args.layer]:
                    write_section(PROFILE, profile_section(runs[args.layer]))
        if "processes" in args.only:
            by_count = bench_processes(
                args.layer, args.processes, args.matches, args.warmup, args.seconds
            )
            figures["processes"] = by_count
            if not args.no_write:
                write_section(PROCESSES, processes_section(by_count, args.layer))
        if "fanout" in args.only:
            runs = bench_fanout(
                args.fanout_layers,
                args.spectators,
                args.fanout_commits,
                procs=4,
                profile=args.profile_fanout,
            )
            figures["fanout"] = runs
            if not args.no_write:
                write_section(FANOUT, fanout_section(runs, base, args.layer))
        if "connections" in args.only:
            result = bench_connections(
                args.layer,
                args.connections,
                100,
                procs=4,
                servers_count=args.servers,
                idle_seconds=args.idle_seconds,
            )
            print("connections:", json.dumps(result))
            figures["connections"] = result
            if not args.no_write:
                write_section(CONNECTIONS, connections_section(result, base))
    finally:
        from django.db import connections

        connections.close_all()
        cluster.clear_layer_keys()
        cluster.drop_database()
    return figures


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default="commits,fanout,connections")
    parser.add_argument("--layer", default=None, choices=sorted(cluster.LAYERS))
    parser.add_argument("--commit-layers", type=lambda s: s.split(","), default=None)
    parser.add_argument("--fanout-layers", type=lambda s: s.split(","), default=["core", "pubsub"])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument(
        "--processes",
        type=lambda s: [int(n) for n in s.split(",")],
        default=[1, 2, 3],
        help="Daphne process counts for --only processes",
    )
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--profile", action="store_true", help="py-spy the commit run")
    parser.add_argument("--profile-fanout", action="store_true", help="py-spy a fan-out run")
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--fanout-commits", type=int, default=40)
    parser.add_argument("--connections", type=int, default=10_000)
    parser.add_argument("--servers", type=int, default=2, help="Daphne processes for idle")
    parser.add_argument("--idle-seconds", type=float, default=20.0)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    args.only = args.only.split(",")
    args.layer = args.layer or os.environ.get("CHANNEL_LAYER_BACKEND") or cluster.default_layer()
    args.results.mkdir(parents=True, exist_ok=True)
    figures = run(args)
    (args.results / "live.json").write_text(json.dumps(figures))
    return figures


if __name__ == "__main__":
    main()
