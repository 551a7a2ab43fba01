"""Word Duel: the Django project (settings, routing, the Celery app)."""

from .celery import app as celery_app

__all__ = ["celery_app"]
