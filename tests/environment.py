"""Loaded by pytest before Django's settings (``-p tests.environment`` in pyproject.toml).

The suite runs as a developer's machine does, with DEBUG on: the settings default it off
(a deployment that forgets it is not left in debug mode), and they are read before any
conftest runs. Set here in the environment, so the Daphne, Celery and ``manage.py``
processes the tests start inherit it too; a test that wants production says DEBUG=0.
"""

import os

os.environ.setdefault("DEBUG", "1")

# Every socket of the suite comes from one address (this machine), hundreds of them a minute,
# each syncing at will: the per-address and per-socket socket limits are lifted here, for
# the server processes too; the tests of those limits set them low themselves.
os.environ.setdefault("WS_NEW_SOCKETS_PER_MINUTE", "1000000")
os.environ.setdefault("WS_SYNCS_PER_MINUTE_PER_ADDRESS", "1000000")
os.environ.setdefault("WS_SYNCS_PER_MINUTE_PER_SOCKET", "1000000")
