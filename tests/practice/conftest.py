"""The practice tests' fixtures (tests/practice/fixtures.py)."""

from tests.practice.fixtures import eager_tasks  # noqa: F401 (a fixture)
