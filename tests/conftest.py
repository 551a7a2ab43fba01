"""Shared fixtures. Tests run against the real PostgreSQL and Redis named by the environment."""
