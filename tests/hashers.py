"""A cheap argon2 for the test suite: the same algorithm, a fraction of the work."""

from django.contrib.auth.hashers import Argon2PasswordHasher


class FastArgon2PasswordHasher(Argon2PasswordHasher):
    time_cost = 1
    memory_cost = 64
    parallelism = 1
