"""Refusals of the notification services: a typed error each, with a stable code."""

from __future__ import annotations


class NotificationError(Exception):
    code = "notification_error"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadUnsubscribeLink(NotificationError):
    code = "bad_unsubscribe_link"
    MESSAGE = "This unsubscribe link is not valid. Change what you receive on your settings page."


class BadSubscription(NotificationError):
    code = "bad_subscription"


class PushUnavailable(NotificationError):
    code = "push_unavailable"
    status = 409
    MESSAGE = "Web push is not set up on this server."
