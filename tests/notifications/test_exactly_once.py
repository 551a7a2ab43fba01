"""Each notice is sent once under races: two workers running the same notice task at once,
a commit retried by its client id, the deadline sweep run twice (in turn, and at once)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

import pytest
import time_machine
from django.db import connection

from notifications import delivery, sweeps
from notifications.models import Delivery, Notice
from tests.matches.helpers import commit_move, opening_play, rack_of, title_of
from tests.notifications.conftest import to


def _at_once(work: Callable[[], object], *, times: int = 2) -> list[object]:
    """Run ``work`` in ``times`` threads (each its own database connection) released
    together; return what each returned, and raise what any raised."""
    barrier = threading.Barrier(times)
    results: list[object] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            barrier.wait(timeout=10)
            results.append(work())
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return results


@pytest.mark.django_db(transaction=True)
def test_two_workers_running_the_same_notice_task_send_one_email(
    live_match, with_email, smtp_server
):
    alice, bob = with_email
    # The commit queues the task after commit (to this run's queue: no worker takes it);
    # here two "workers" run it at once.
    commit_move(
        match_id=live_match.id,
        member=alice,
        against_turn=0,
        client_id="c1",
        move=opening_play(rack_of(live_match, 0)),
    )
    [notice] = Notice.objects.filter(member=bob, kind="your_move")
    smtp_server.delay = 1.0  # the first sender holds its delivery while the second arrives
    outcomes = _at_once(lambda: delivery.dispatch_notice(key=notice.key))
    assert sorted(map(str, outcomes)) == ["['sent']", "['taken']"]
    assert len(to(smtp_server, bob.email)) == 1
    assert Delivery.objects.get(notice=notice).status == "sent"
    # And a third run, later, sends nothing more.
    assert delivery.dispatch_notice(key=notice.key) == []
    assert len(to(smtp_server, bob.email)) == 1


@pytest.mark.django_db(transaction=True)
def test_a_commit_retried_by_its_client_id_gives_one_notice(
    live_match, with_email, smtp_server, eager_tasks
):
    alice, bob = with_email
    move = opening_play(rack_of(live_match, 0))
    first = commit_move(
        match_id=live_match.id, member=alice, against_turn=0, client_id="same", move=move
    )
    again = commit_move(
        match_id=live_match.id, member=alice, against_turn=0, client_id="same", move=move
    )
    assert first.accepted
    assert again.replayed
    assert Notice.objects.filter(member=bob, kind="your_move").count() == 1
    assert len(to(smtp_server, bob.email)) == 1


@pytest.mark.django_db(transaction=True)
def test_the_deadline_sweep_run_twice_and_at_once_warns_once(
    live_match, with_email, smtp_server, eager_tasks
):
    alice, bob = with_email
    commit_move(
        match_id=live_match.id,
        member=alice,
        against_turn=0,
        client_id="c1",
        move=opening_play(rack_of(live_match, 0)),
    )
    live_match.refresh_from_db()
    assert len(to(smtp_server, bob.email)) == 1  # the your-move email
    with time_machine.travel(live_match.turn_deadline_at - timedelta(hours=20), tick=False):
        _at_once(sweeps.run_sweep)
        sweeps.run_sweep()
    warnings = Notice.objects.filter(member=bob, kind="forfeit")
    assert list(warnings.values_list("hours", flat=True)) == [24]
    subjects = [m["Subject"] for m in to(smtp_server, bob.email)]
    assert subjects[1:] == [f"20 hours left to move: {title_of(live_match)}"]
