"""The commit path without the network: what one move costs the web process in Python.

Replays scripted games through exactly the database work a websocket commit does in
Daphne's worker thread (the session check and ``services.match_commit``, publishing to the
channel layer included), one move after another in this process, and reports the CPU time
and the SQL statements per move, over all moves and at two points of the games: turn 2 and
turn 40 (a commit whose cost grew with the game's length would show it there), made in the
same rounds by matches started that many rounds apart; with ``--calls``, the function calls
a move makes, which the machine's speed does not move; and, in the same run, the CPU of a
bare psycopg transaction, the floor a move is read against. It
isolates what `bench/live.py` measures end to end from the sockets, Twisted and the event
loop, and it is what the commit path's fixes were tried against before the live bench
confirmed them.

    python bench/commit_path.py [--matches 80] [--moves 400] [--calls] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import cluster

DATABASE = "wordduel_commitpath"
#: The turns compared: early in a game, and late in a long one.
EARLY_TURN, LATE_TURN = 2, 40


def _summary(cpu: list[float], statements: list[int], calls: list[int]) -> dict[str, Any]:
    if not cpu:
        return {"moves": 0}
    return {
        "moves": len(cpu),
        "cpu_ms_p50": round(statistics.median(cpu) * 1000, 3),
        "cpu_ms_mean": round(statistics.fmean(cpu) * 1000, 3),
        "statements_p50": statistics.median(statements),
        "statements_max": max(statements),
        **({"calls_p50": statistics.median(calls)} if any(calls) else {}),
    }


def replay(
    entries: list[dict[str, Any]],
    moves: int,
    profiler: cProfile.Profile | None = None,
    *,
    count_calls: bool = False,
) -> dict[str, Any]:
    """Commit scripted moves round-robin over the matches; CPU and statements per move.

    Each move is made as Daphne makes it: from an event loop, in the database worker thread
    (``database_sync_to_async``), its news then sent by that loop's channel layer. The CPU
    time is the whole process's across the call, both threads. ``profiler`` profiles the
    worker thread's part (the loop's sending of the news is not in it).
    """
    return asyncio.run(_replay(entries, moves, profiler, count_calls))


async def _replay(
    entries: list[dict[str, Any]],
    moves: int,
    profiler: cProfile.Profile | None,
    count_calls: bool,
) -> dict[str, Any]:
    from channels.db import database_sync_to_async
    from django.db import connection

    from accounts.sessions import SignedInCheck, user_of_session
    from matches import services
    from matches.live.consumer import as_member
    from matches.live.protocol import move_of, parse_frame

    def one_move(**call: Any) -> tuple[bool, int, int]:
        """(accepted, statements, calls) of one commit, in the worker thread.

        Statements are counted by a wrapper that only counts (Django's query log would add
        its own CPU to every statement); BEGIN and COMMIT are not statements it sees. Calls
        (Python and C functions called in this thread, with ``count_calls``) are a measure
        of the work that the machine's speed from minute to minute does not move.
        """
        statements = calls = 0

        def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            nonlocal statements
            statements += 1
            return execute(sql, params, many, context)

        def called(frame: Any, event: str, arg: Any) -> None:
            nonlocal calls
            if event in ("call", "c_call"):
                calls += 1

        with connection.execute_wrapper(count):
            if profiler is not None:
                profiler.enable()
            if count_calls:
                sys.setprofile(called)
            try:
                accepted = as_member(service=services.match_commit, **call) is not None
            except services.MoveRefused:
                accepted = False
            finally:
                if count_calls:
                    sys.setprofile(None)
                if profiler is not None:
                    profiler.disable()
        return accepted, statements, calls

    commit = database_sync_to_async(one_move)
    members = await database_sync_to_async(
        lambda: {cookie: user_of_session(cookie).pk for e in entries for cookie in e["cookies"]}
    )()
    # One session check per player, kept across its moves as its socket keeps it, and asked
    # once before the moves are timed: a socket's first request asks Django itself, and a
    # player's first move (turn 1 or 2) would otherwise carry that, not the commit's cost.
    checks = {
        cookie: SignedInCheck(session_key=cookie, member_id=member_id)
        for cookie, member_id in members.items()
    }
    await database_sync_to_async(lambda: [check.member() for check in checks.values()])()
    cursor = {entry["match_id"]: 0 for entry in entries}
    # Every other match starts late, so that its turn 2 is made in the same rounds as the
    # others' turn 40: the two are compared over the same seconds, not a minute apart, and
    # a machine whose speed drifts over the run moves both alike.
    late_start = LATE_TURN - EARLY_TURN
    starts = {entry["match_id"]: late_start * (n % 2) for n, entry in enumerate(entries)}
    cpu: list[float] = []
    statements: list[int] = []
    calls: list[int] = []
    by_turn: dict[int, tuple[list[float], list[int], list[int]]] = {
        EARLY_TURN: ([], [], []),
        LATE_TURN: ([], [], []),
    }
    refused = 0
    round_number = 0
    while len(cpu) < moves:
        progressed = False
        round_number += 1
        for entry in entries:
            index = cursor[entry["match_id"]]
            if starts[entry["match_id"]] >= round_number:
                progressed = True  # waiting for its start
                continue
            if index >= len(entry["moves"]) or len(cpu) >= moves:
                continue
            seat, frame = entry["moves"][index]
            cursor[entry["match_id"]] = index + 1
            progressed = True
            request = {**frame, "id": f"cp-{entry['match_id']}-{index}", "turn": index}
            began = time.process_time()
            accepted, count, called = await commit(
                signed_in=checks[entry["cookies"][seat]],
                club_member=True,  # the scripted players are approved members
                match_id=entry["match_id"],
                move=move_of(parse_frame(json.dumps(request), None)),  # type: ignore[arg-type]
                against_turn=index,
                client_id=request["id"],
            )
            cpu.append(time.process_time() - began)
            statements.append(count)
            calls.append(called)
            refused += not accepted
            turn = index + 1  # the move that makes this turn
            compared = turn == EARLY_TURN if starts[entry["match_id"]] else turn == LATE_TURN
            if compared:
                by_turn[turn][0].append(cpu[-1])
                by_turn[turn][1].append(statements[-1])
                by_turn[turn][2].append(calls[-1])
        if not progressed:
            break
    early, late = (_summary(*by_turn[turn]) for turn in (EARLY_TURN, LATE_TURN))
    growth = (
        round(late["cpu_ms_p50"] / early["cpu_ms_p50"], 3)
        if early["moves"] and late["moves"]
        else None
    )
    return {
        **_summary(cpu, statements, calls),
        "refused": refused,
        f"turn_{EARLY_TURN}": early,
        f"turn_{LATE_TURN}": late,
        f"turn_{LATE_TURN}_over_turn_{EARLY_TURN}_cpu": growth,
        **(
            {
                f"turn_{LATE_TURN}_over_turn_{EARLY_TURN}_calls": round(
                    late["calls_p50"] / early["calls_p50"], 3
                )
            }
            if "calls_p50" in early and "calls_p50" in late
            else {}
        ),
    }


def bare_transactions(count: int = 500) -> dict[str, Any]:
    """The floor, in the same run: CPU a transaction of pgbench ``-N``'s statements (an
    UPDATE, a SELECT and an INSERT between BEGIN and COMMIT) sent by psycopg on this process's
    own connection, with no ORM and no Django around it. A move's figures divided by this
    one say how much more than a bare database transaction a commit costs here, whatever
    the machine's speed."""
    from django.db import connection

    connection.ensure_connection()
    raw = connection.connection  # psycopg's own connection: Django's wrappers bypassed
    with raw.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE bench_accounts (aid int PRIMARY KEY, abalance int NOT NULL);"
            "CREATE TEMP TABLE bench_history (aid int, delta int, mtime timestamptz);"
            "INSERT INTO bench_accounts SELECT n, 0 FROM generate_series(1, 1000) n"
        )
    cpu = []
    for number in range(count):
        aid, delta = number % 1000 + 1, number % 97 - 48
        began = time.process_time()
        with raw.transaction(), raw.cursor() as cursor:  # BEGIN ... COMMIT
            cursor.execute(
                "UPDATE bench_accounts SET abalance = abalance + %s WHERE aid = %s", (delta, aid)
            )
            cursor.execute("SELECT abalance FROM bench_accounts WHERE aid = %s", (aid,))
            cursor.fetchone()
            cursor.execute(
                "INSERT INTO bench_history VALUES (%s, %s, CURRENT_TIMESTAMP)", (aid, delta)
            )
        cpu.append(time.process_time() - began)
    with raw.cursor() as cursor:
        cursor.execute("DROP TABLE bench_accounts, bench_history")
    return {"transactions": count, "cpu_ms_p50": round(statistics.median(cpu) * 1000, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=80)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--profile", action="store_true", help="cProfile, top 25 by own time")
    parser.add_argument(
        "--calls", action="store_true", help="count function calls a move (slows the CPU figures)"
    )
    args = parser.parse_args()
    cluster.recreate_database(DATABASE)
    try:
        os.environ.update(cluster.server_env("core"), DATABASE_URL=cluster.perf_url(DATABASE))
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        call_command("migrate", verbosity=0)
        entries = cluster.live_matches(args.matches, prefix="cp")
        cluster.script_games(entries)
        # CPU time, as the figures are: a wait for PostgreSQL costs the process nothing.
        profiler = cProfile.Profile(time.process_time) if args.profile else None
        result = replay(entries, args.moves, profiler, count_calls=args.calls)
        floor = bare_transactions()
        result["bare_transaction"] = floor
        result["move_over_bare_transaction_cpu"] = round(
            result["cpu_ms_p50"] / floor["cpu_ms_p50"], 1
        )
        if profiler is not None:
            stats = pstats.Stats(profiler)
            stats.sort_stats("tottime").print_stats(25)
            stats.sort_stats("cumulative").print_stats(r"matches|accounts|lexicon", 30)
        # Every match the bench played is still sound (the position, the log, the receipts).
        from matches.integrity import integrity_report
        from matches.models import Match

        played = Match.objects.filter(pk__in=[entry["match_id"] for entry in entries])
        result["matches_with_integrity_problems"] = sum(1 for _ in integrity_report(played))
        print(json.dumps(result))
        connections.close_all()
    finally:
        cluster.clear_layer_keys()
        cluster.drop_database(DATABASE)


if __name__ == "__main__":
    main()
