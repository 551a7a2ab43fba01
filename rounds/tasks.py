"""Celery tasks of rounds: thin calls of the services. Each takes ids (or none), selects
its work by state, and is safe to rerun or to run twice at once."""

from celery import shared_task

from rounds import services
from rounds.services import series


@shared_task(name="rounds.close_due_rounds", ignore_result=True)
def close_due_rounds(match_ids: list[int] | None = None) -> list[int]:
    """Close the rounds that have come due (every player finished, or the deadline)."""
    return services.close_due_rounds(match_ids=match_ids)


@shared_task(name="rounds.open_due_sessions", ignore_result=True)
def open_due_sessions(session_ids: list[int] | None = None) -> list[int]:
    """Kick off the Word Skill tournament sessions whose time has come."""
    return series.open_due_sessions(session_ids=session_ids)
