"""Celery tasks: thin calls that take ids (notice keys) and select their work by state, so
each is safe to rerun or to run twice at once."""

from celery import shared_task

from notifications import delivery, sweeps


@shared_task(name="notifications.dispatch_notices", ignore_result=True)
def dispatch_notices(keys: list[str]) -> list[str]:
    """Send the notices ``keys`` (queued after the commit that recorded them)."""
    outcomes: list[str] = []
    for key in keys:
        outcomes += delivery.dispatch_notice(key=key)
    return outcomes


@shared_task(name="notifications.sweep", ignore_result=True)
def sweep() -> dict[str, list[str]]:
    """Forfeit warnings, kick-off reminders, digests, and deliveries now due."""
    return sweeps.run_sweep()
