"""Clock sweeps over 100,000 scheduled and live matches: time and query plans.

Fills a database of its own (``<DATABASE_URL's name>_bench``) with matches whose deadlines
are mostly in the future and a few due, then times each sweep and prints the PostgreSQL plan
of its due-row query, to show it uses the partial deadline indexes. Run: ``make bench`` or
``scripts/with-services.sh .venv/bin/python bench/sweep.py [--matches N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import machine, write_section  # noqa: E402


def _bench_database_url() -> str:
    url = os.environ.get("DATABASE_URL", "postgres://root@127.0.0.1:5432/wordduel")
    base, _, name = url.rpartition("/")
    return f"{base}/{name}_bench"


SECTION = "## Clock sweeps"


def section(figures: dict[str, object], plans: dict[str, str]) -> str:
    """The docs/PERFORMANCE.md section for these figures."""
    f = figures
    rows = "\n".join(
        f"| `{name}`{note} | {f[name + '_changed']} | {f[name + '_ms']} ms |"
        for name, note in (
            ("default_no_shows", ""),
            ("open_due_matches", " (after the no-shows: nothing left to open)"),
            ("forfeit_stalled_matches", ""),
        )
    )
    plan_text = "\n\n".join(f"{name}:\n{text}" for name, text in plans.items())
    return f"""{SECTION}

Measured by `bench/sweep.py` ({f["matches"]:,} matches: half scheduled, half live; of each,
{f["due_each"]} due and the rest due in 30 days); machine: {machine()}.
Re-run with `scripts/with-services.sh .venv/bin/python bench/sweep.py` (rewrites this section).

| sweep | due matches changed | time |
|---|---|---|
{rows}
| all three with nothing due (what beat runs every 2 s) | 0 | {f["idle_sweep_ms"]} ms |

Each due row is found through its partial deadline index (`EXPLAIN ANALYZE` of each sweep's
batch query below), so an idle sweep costs the same at 100,000 matches as at 100. Changing a
match costs a few queries under its row lock (seats, the match row, the result) plus the
channel-layer publish after commit.

```
{plan_text}
```
"""


def main() -> dict[str, object]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--due", type=int, default=100, help="due matches of each kind")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()

    os.environ["DATABASE_URL"] = _bench_database_url()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wordduel.settings")
    import django
    import psycopg

    admin_url = os.environ["DATABASE_URL"].rpartition("/")[0] + "/postgres"
    db_name = os.environ["DATABASE_URL"].rpartition("/")[2]
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{db_name}"')
        admin.execute(f'CREATE DATABASE "{db_name}"')

    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.utils import timezone

    from matches import services
    from matches.models import Match, Seat
    from matches.services.clock import due_batch

    call_command("migrate", verbosity=0)
    now = timezone.now()
    far = now + timedelta(days=30)
    past = now - timedelta(minutes=1)
    per_kind = args.matches // 2
    started = time.perf_counter()
    batch = 5_000
    for kind in ("scheduled", "live"):
        for offset in range(0, per_kind, batch):
            rows = []
            for i in range(offset, min(offset + batch, per_kind)):
                due = i < args.due
                if kind == "scheduled":
                    rows.append(
                        Match(
                            name=f"s{i}",
                            status="scheduled",
                            kickoff_at=past if due else far,
                            no_show_at=(past if due else far + timedelta(minutes=15)),
                        )
                    )
                else:
                    rows.append(
                        Match(
                            name=f"l{i}",
                            status="live",
                            kickoff_at=now - timedelta(days=4),
                            to_move=0,
                            turn_started_at=now,
                            turn_deadline_at=past if due else far,
                            game_state=None,
                        )
                    )
            for row in rows:
                row.bag_commitment = "0" * 64
            created = Match.objects.bulk_create(rows)
            Seat.objects.bulk_create([Seat(match=m, position=p) for m in created for p in (0, 1)])
    fill_seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE matches_match; ANALYZE matches_seat")

    def plan(status: str, deadline: str) -> str:
        with transaction.atomic():
            queryset = due_batch(status=status, deadline=deadline, now=now)
            sql, params = queryset.query.sql_with_params()
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN ANALYZE " + sql, params)
                text = "\n".join(row[0] for row in cursor.fetchall())
            transaction.set_rollback(True)
        return text

    figures: dict[str, object] = {
        "matches": per_kind * 2,
        "due_each": args.due,
        "fill_seconds": round(fill_seconds, 1),
    }
    plans = {
        "open_due_matches": plan("scheduled", "kickoff_at"),
        "default_no_shows": plan("scheduled", "no_show_at"),
        "forfeit_stalled_matches": plan("live", "turn_deadline_at"),
    }
    for name, sweep in (
        ("default_no_shows", services.default_no_shows),
        ("open_due_matches", services.open_due_matches),
        ("forfeit_stalled_matches", services.forfeit_stalled_matches),
    ):
        t0 = time.perf_counter()
        changed = sweep(now=now, limit=10_000)
        figures[f"{name}_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        figures[f"{name}_changed"] = len(changed)
    # An idle sweep (nothing due) is what beat runs every two seconds.
    t0 = time.perf_counter()
    for _ in range(20):
        services.run_clock(now=now)
    figures["idle_sweep_ms"] = round((time.perf_counter() - t0) * 1000 / 20, 2)
    print(json.dumps(figures, indent=2))
    for name, text in plans.items():
        print(f"\n{name}:\n{text}")
    if not args.no_write:
        write_section(SECTION, section(figures, plans))
    # The pool (close() only hands a connection back) and any connection a thread of the
    # sweeps still holds: DROP DATABASE refuses while one is open.
    connection.close_pool()
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)')
    return {"figures": figures, "plans": plans}


if __name__ == "__main__":
    main()
