"""Celery tasks of imported games: thin calls that take an import's id and select their work
by its state (:mod:`imports.services`), so each is safe to rerun or to run twice at once.

``imports.analyse`` goes to the imports queue (wordduel/celery.py), read by a worker of its
own: an import's seconds of move generation never wait in front of the clock's sweeps.
"""

from celery import shared_task

from imports import services


@shared_task(name="imports.analyse", ignore_result=True)
def analyse_import(game_id: int) -> str:
    """Find the best plays of the import ``game_id`` (queued after the import's commit)."""
    return services.analyse_import(game_id=game_id)


@shared_task(name="imports.requeue_stalled", ignore_result=True)
def requeue_stalled() -> list[int]:
    """Beat's sweep: queue again the analyses whose task was lost or whose worker died."""
    return services.requeue_stalled_imports()
