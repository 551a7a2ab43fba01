"""Deleting an account while a worker is deciding one of its notices' deliveries.

Found by the season suite: a member deleted their account while the resignation of their
live match was being notified; the Celery worker, holding that notice's row, added its
deliveries after the deletion had looked for them, and the deletion's commit failed on the
foreign key (a 500). Here the worker's transaction is held open on a connection of the test's
own, exactly where the worker was.
"""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections
from django.utils import timezone

from accounts import services
from accounts.models import Member
from notifications.models import Delivery, Notice
from tests.reliability.harness import blocked_backends, connect_test_database, wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_deletion_waits_for_a_notice_being_dispatched_and_takes_its_deliveries(alice) -> None:
    notice = Notice.objects.create(
        key="season-race", member=alice, kind="result", created_at=timezone.now()
    )
    outcome: list[Exception | None] = []

    def delete() -> None:
        try:
            services.account_delete(member=Member.objects.get(pk=alice.pk))
            outcome.append(None)
        except Exception as error:  # noqa: BLE001 (reported below)
            outcome.append(error)
        finally:
            close_old_connections()

    with connect_test_database(autocommit=False) as worker:  # the worker's transaction
        worker.execute("SELECT id FROM notifications_notice WHERE id = %s FOR UPDATE", [notice.pk])
        deleting = threading.Thread(target=delete)
        deleting.start()
        wait_until(blocked_backends, timeout=30, what="the deletion waiting for the notice")
        worker.execute(
            "INSERT INTO notifications_delivery (notice_id, channel, status, due_at, attempts, "
            "detail) VALUES (%s, 'email', 'pending', now(), 0, '')",
            [notice.pk],
        )
        worker.execute(
            "UPDATE notifications_notice SET dispatched_at = now() WHERE id = %s", [notice.pk]
        )
        worker.commit()
    deleting.join(timeout=60)

    assert outcome == [None]
    assert not Notice.objects.filter(pk=notice.pk).exists()
    assert not Delivery.objects.filter(notice_id=notice.pk).exists()
    assert Member.objects.get(pk=alice.pk).deleted_at is not None
