"""Refusals of challenges and rematches (docs/RULES.md, section 17), in the services' manner:
a stable ``code``, an HTTP ``status``, the rule's words as the message."""

from __future__ import annotations

from common.errors import ServiceError


class InvalidChallenge(ServiceError):
    """A challenge that cannot be posted as asked (a ruleset, an opponent)."""

    code = "invalid_challenge"


class ChallengeUnavailable(ServiceError):
    """A challenge that cannot be accepted or withdrawn now (taken, withdrawn, expired, not
    for this member)."""

    code = "challenge_unavailable"
    status = 409


class RematchUnavailable(ServiceError):
    """A rematch that cannot be offered, accepted or declined on this match now."""

    code = "rematch_unavailable"
    status = 409
