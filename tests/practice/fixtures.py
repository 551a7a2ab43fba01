"""Fixtures the practice tests share (and the browser test of the practice review)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    """Tasks queued after a commit (the computer's turn) run in this process, as the quick
    start's thread does."""
    from wordduel.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = before
