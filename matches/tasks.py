"""Celery tasks: thin calls of the clock sweeps. Each takes no state, selects work by
state and deadline, and is safe to rerun or to run twice at once."""

from celery import shared_task

from matches import services


@shared_task(name="matches.open_due_matches", ignore_result=True)
def open_due_matches() -> list[int]:
    return services.open_due_matches()


@shared_task(name="matches.default_no_shows", ignore_result=True)
def default_no_shows() -> list[int]:
    return services.default_no_shows()


@shared_task(name="matches.forfeit_stalled_matches", ignore_result=True)
def forfeit_stalled_matches() -> list[int]:
    return services.forfeit_stalled_matches()


@shared_task(name="matches.close_challenge_windows", ignore_result=True)
def close_challenge_windows(match_ids: list[int] | None = None) -> list[int]:
    return services.close_challenge_windows(match_ids=match_ids)
