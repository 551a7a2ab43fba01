"""Loaded by pytest before Django's settings (``-p tests.environment`` in pyproject.toml).

The suite runs as a developer's machine does, with DEBUG on: the settings default it off
(a deployment that forgets it is not left in debug mode), and they are read before any
conftest runs. Set here in the environment, so the Daphne, Celery and ``manage.py``
processes the tests start inherit it too; a test that wants production says DEBUG=0.
"""

import os

os.environ.setdefault("DEBUG", "1")
