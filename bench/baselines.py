"""The raw limits of the parts below the server, measured in the same run as the server.

* PostgreSQL: ``pgbench`` simple-update (``-N``) transactions a second, in a database of its
  own (``wordduel_perf_pgbench``, initialised and dropped here) on the same server.
* Redis: PUBLISH to a subscriber and back, one message at a time.
* A bare ``websockets`` echo server (``bench/loadgen.py echo-server``): round trip, and
  memory per idle connection.

Run: ``scripts/with-services.sh .venv/bin/python bench/baselines.py``. Writes the
"## Baselines" section and ``--results`` (JSON) for the other benches to compare against.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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

SECTION = "## Baselines"
PGBENCH_DB = "wordduel_perf_pgbench"
DEFAULT_RESULTS = Path("/tmp/wordduel-bench/baselines.json")  # noqa: S108


def pgbench(seconds: int, clients: int) -> dict[str, Any]:
    """``pgbench -N`` TPS on the shared server, in a database of its own."""
    binary = shutil.which("pgbench")
    if binary is None:
        raise RuntimeError("pgbench is not installed (Debian: postgresql-client)")
    url = cluster.perf_url(PGBENCH_DB)
    cluster.recreate_database(PGBENCH_DB)
    try:
        subprocess.run([binary, "-q", "-i", "-s", "1", url], check=True, capture_output=True)
        out = subprocess.run(
            [binary, "-N", "-T", str(seconds), "-c", str(clients), "-j", "2", url],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        cluster.drop_database(PGBENCH_DB)
    tps = float(re.search(r"tps = ([\d.]+)", out).group(1))  # type: ignore[union-attr]
    latency = float(re.search(r"latency average = ([\d.]+) ms", out).group(1))  # type: ignore[union-attr]
    return {"tps": tps, "latency_ms": latency, "clients": clients, "seconds": seconds}


async def redis_round_trip(count: int) -> dict[str, float]:
    """PUBLISH on one connection until the subscriber on another has the message."""
    from redis import asyncio as aioredis

    channel = f"{cluster.PREFIX}:baseline:{time.monotonic_ns()}"
    publisher = aioredis.Redis.from_url(cluster.redis_url())
    subscriber = aioredis.Redis.from_url(cluster.redis_url())
    pubsub = subscriber.pubsub()
    await pubsub.subscribe(channel)
    await pubsub.get_message(timeout=1)  # the subscribe confirmation
    times = []
    try:
        for index in range(count):
            started = time.perf_counter()
            await publisher.publish(channel, str(index))
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5)
                if message is not None:
                    break
            times.append((time.perf_counter() - started) * 1e6)
    finally:
        await pubsub.unsubscribe(channel)
        await pubsub.aclose()
        await publisher.aclose()
        await subscriber.aclose()
    times = times[count // 10 :]  # the first tenth warms up
    return {"p50_us": statistics.median(times), "p95_us": percentile(times, 0.95)}


async def echo_server(rtt_count: int, connections: int, clients: int) -> dict[str, Any]:
    """A bare websockets server: round trip of a small frame, then RSS per idle connection."""
    from bench.loadgen import open_socket

    port = cluster.free_port()
    server = await cluster.Worker.start("echo-server", {"port": port, "max_seconds": 300})
    try:
        ready = await server.read(30)
        pid = ready["pid"]
        ws = await open_socket(port, "/")
        payload = json.dumps({"type": "pass", "id": "m1-0", "turn": 0})
        times = []
        for _ in range(rtt_count):
            started = time.perf_counter()
            await ws.send(payload)
            await ws.recv()
            times.append((time.perf_counter() - started) * 1e6)
        await ws.close()
        times = times[rtt_count // 10 :]
        await asyncio.sleep(0.5)
        before = cluster.rss_kib(pid)
        config = {
            "ports": [port],
            "paths": ["/"],
            "expect_snapshot": False,
            "concurrency": 100,
            "ramp_seconds": 100,
            "max_seconds": 200,
        }
        workers = [
            await cluster.Worker.start("idle", {**config, "count": len(part)})
            for part in cluster.split(list(range(connections)), clients)
        ]
        ramps = [await w.read(160) for w in workers]
        await asyncio.sleep(1.0)
        after = cluster.rss_kib(pid)
        opened = sum(r["connected"] for r in ramps)
        ramp_seconds = max(r["finished"] for r in ramps) - min(r["started"] for r in ramps)
        for w in workers:
            await w.send({"stop": True})
        for w in workers:
            await w.read(60)
            await w.finish()
    finally:
        await server.send({"stop": True})
        await server.finish()
    return {
        "rtt_p50_us": statistics.median(times),
        "rtt_p95_us": percentile(times, 0.95),
        "connections": opened,
        "kib_per_connection": (after - before) / max(1, opened),
        "handshakes_per_s": opened / ramp_seconds,
    }


async def broadcast_floor(spectators: int, rounds: int, procs: int) -> dict[str, Any]:
    """The bare-websockets fan-out: the same spectator processes and timing as the Daphne
    fan-out bench, against a server that only greets and broadcasts."""
    from bench.loadgen import Player, first_frame, open_socket

    port = cluster.free_port()
    server = await cluster.Worker.start(
        "echo-server", {"port": port, "max_seconds": 300, "greet": True}
    )
    try:
        ready = await server.read(30)
        workers, connect_seconds = await cluster.start_spectators([port], 0, spectators, procs)
        ws = await open_socket(port, "/")
        await first_frame(ws)
        driver = Player(ws)
        meter = {"server": [ready["pid"]], "clients": [w.proc.pid for w in workers]}
        cpu_before = {part: cluster.cpu_of(pids) for part, pids in meter.items()}
        rows = await cluster.fanout_rounds(workers, [driver], [(0, {"type": "broadcast"})] * rounds)
        cpu_used = {part: cluster.cpu_of(pids) - cpu_before[part] for part, pids in meter.items()}
        await cluster.stop_workers(workers)
        await ws.close()
    finally:
        await server.send({"stop": True})
        await server.finish()
    last = [r["last_ms"] for r in rows]
    return {
        "spectators": spectators,
        "rounds": len(rows),
        "last_p50_ms": statistics.median(last),
        "last_p95_ms": percentile(last, 0.95),
        "connect_per_s": spectators / connect_seconds,
        "cpu_per_round_ms": {part: used * 1000 / len(rows) for part, used in cpu_used.items()},
    }


def section(figures: dict[str, Any]) -> str:
    pg, rd, ws, bc = figures["pgbench"], figures["redis"], figures["echo"], figures["broadcast"]
    rows = [
        [
            (
                f"PostgreSQL `pgbench -N` (simple update; scale 1, {pg['clients']} clients, "
                f"2 threads, {pg['seconds']} s, its own database)"
            ),
            f"**{pg['tps']:,.0f} TPS**, {pg['latency_ms']:.1f} ms average latency",
        ],
        [
            "Redis PUBLISH → subscriber (one message at a time, two connections)",
            f"p50 {rd['p50_us']:.0f} µs, p95 {rd['p95_us']:.0f} µs",
        ],
        [
            "bare `websockets` echo server: round trip of a 50-byte frame",
            f"p50 {ws['rtt_p50_us']:.0f} µs, p95 {ws['rtt_p95_us']:.0f} µs",
        ],
        [
            f"bare `websockets` echo server: {ws['connections']:,} idle connections",
            (
                f"{ws['kib_per_connection']:.1f} KiB per connection (RSS delta), "
                f"{ws['handshakes_per_s']:,.0f} handshakes/s"
            ),
        ],
        [
            (
                f"bare `websockets` broadcast to {bc['spectators']:,} sockets (the fan-out "
                "bench's own clients and timing; `websockets.broadcast`)"
            ),
            (
                f"last socket p50 {bc['last_p50_ms']:.1f} ms, p95 {bc['last_p95_ms']:.1f} ms; "
                f"CPU a round: server {bc['cpu_per_round_ms']['server']:.0f} ms, "
                f"clients {bc['cpu_per_round_ms']['clients']:.0f} ms"
            ),
        ],
    ]
    return f"""{SECTION}

Measured by `bench/baselines.py` in the same run as the sections below; machine: {machine()}.
These are the floors the server's own figures are compared with.

{table(["part", "figure"], rows)}

PostgreSQL here commits with `fsync` and `synchronous_commit` on, so every write
transaction waits for a WAL flush; `pgbench`'s TPS is that disk's group-commit rate with
{pg["clients"]} sessions, as many as the two Daphne processes below keep busy (6 worker
threads each, one database connection per thread). The broadcast floor is what delivering one
small frame to every socket costs this machine with no framework at all: the clients that
read the frames share the same two cores, so it is part of every fan-out figure below.
"""


async def run(args: argparse.Namespace) -> dict[str, Any]:
    cluster.raise_open_files()
    return {
        "pgbench": pgbench(args.pgbench_seconds, args.pgbench_clients),
        "redis": await redis_round_trip(args.redis_count),
        "echo": await echo_server(args.echo_count, args.echo_connections, clients=2),
        "broadcast": await broadcast_floor(args.spectators, rounds=20, procs=4),
    }


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pgbench-seconds", type=int, default=10)
    parser.add_argument("--pgbench-clients", type=int, default=12)
    parser.add_argument("--redis-count", type=int, default=2000)
    parser.add_argument("--echo-count", type=int, default=2000)
    parser.add_argument("--echo-connections", type=int, default=10_000)
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    figures = asyncio.run(run(args))
    figures["machine"] = machine()
    print(json.dumps(figures, indent=2))
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(figures))
    if not args.no_write:
        write_section(SECTION, section(figures))
    return figures


if __name__ == "__main__":
    main()
