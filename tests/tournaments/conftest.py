"""The tournaments tests' fixtures: the notification tests' SMTP server and eager notice
tasks, for the new round's notice (test_knockout_notices.py)."""

from tests.notifications.conftest import eager_tasks, smtp_server  # noqa: F401 (fixtures)
