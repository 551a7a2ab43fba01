"""Celery tasks: thin calls that take ids (notice keys, a delivery's id) and select their
work by state, so each is safe to rerun or to run twice at once."""

from celery import shared_task

from notifications import delivery, sweeps


@shared_task(name="notifications.dispatch_notices", ignore_result=True)
def dispatch_notices(keys: list[str]) -> list[str]:
    """Send the notices ``keys`` (queued after the commit that recorded them)."""
    outcomes: list[str] = []
    for key in keys:
        outcomes += delivery.dispatch_notice(key=key)
    return outcomes


@shared_task(name="notifications.send_push", ignore_result=True)
def send_push(delivery_id: int) -> str:
    """Send one push delivery; routed to the push queue (wordduel/celery.py), whose worker
    alone waits on the push services."""
    return delivery.send_push_delivery(delivery_id=delivery_id)


@shared_task(name="notifications.sweep", ignore_result=True)
def sweep() -> dict[str, list[str]]:
    """Forfeit warnings, kick-off reminders, digests, and deliveries now due."""
    return sweeps.run_sweep()
