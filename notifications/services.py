"""Every change a member makes to their notifications: one function each.

- :func:`settings_of`: the member's choices (made with the defaults on first use);
- :func:`update_notification_settings`: save the settings page;
- :func:`push_subscribe` / :func:`push_unsubscribe`: a browser's push subscription;
- :func:`unsubscribe`: the one-click link of an email.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core import signing
from django.db import transaction

from notifications.errors import BadSubscription, BadUnsubscribeLink, PushUnavailable
from notifications.models import CHOSEN_KINDS, Channel, Kind, NotificationSettings, PushSubscription
from notifications.schemas import SubscriptionIn

UNSUBSCRIBE_SALT = "notifications.unsubscribe"


def settings_of(member: Any) -> NotificationSettings:
    """The member's notification settings, created with the defaults the first time."""
    prefs, _ = NotificationSettings.objects.get_or_create(member=member)
    return prefs


def update_notification_settings(*, member: Any, values: dict[str, Any]) -> NotificationSettings:
    """Save the settings page's cleaned ``values``. Locks the member's settings row."""
    with transaction.atomic():
        settings_of(member)
        prefs = NotificationSettings.objects.select_for_update().get(member=member)
        for field, value in values.items():
            setattr(prefs, field, value)
        prefs.save()
    return prefs


def unsubscribe_token(member_id: int, kind: str) -> str:
    """The signed token of an email's one-click unsubscribe link: whose, and which notice."""
    return signing.dumps({"m": member_id, "k": kind}, salt=UNSUBSCRIBE_SALT, compress=True)


def read_unsubscribe_token(token: str) -> tuple[int, str]:
    """The member id and kind a token names; :class:`BadUnsubscribeLink` if it is not ours."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
        member_id, kind = int(data["m"]), str(data["k"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise BadUnsubscribeLink(BadUnsubscribeLink.MESSAGE) from None
    if kind not in Kind.values:
        raise BadUnsubscribeLink(BadUnsubscribeLink.MESSAGE)
    return member_id, kind


def unsubscribe(*, token: str) -> tuple[Any, str]:
    """Turn off, by email, the kind of notice the token's email was (the digest turns off
    "your move" by email). Locks the member's settings row. Returns the member and kind."""
    from accounts.models import Member  # noqa: PLC0415 (accounts imports nothing of ours)

    member_id, kind = read_unsubscribe_token(token)
    member = Member.objects.filter(pk=member_id).first()
    if member is None:
        raise BadUnsubscribeLink(BadUnsubscribeLink.MESSAGE)
    turned_off = Kind.YOUR_MOVE.value if kind == Kind.DIGEST else kind
    with transaction.atomic():
        settings_of(member)
        prefs = NotificationSettings.objects.select_for_update().get(member=member)
        prefs.email_kinds = [k for k in prefs.email_kinds if k != turned_off]
        prefs.save(update_fields=["email_kinds", "updated_at"])
    return member, turned_off


def push_configured() -> bool:
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY)


def _allowed_endpoint(endpoint: str) -> bool:
    """Only the push services' own hosts, over HTTPS: the server posts to this address, so
    a member must not be able to point it anywhere else."""
    parts = urlsplit(endpoint)
    host = (parts.hostname or "").lower()
    for allowed in settings.WEB_PUSH_HOSTS:
        scheme, _, suffix = allowed.rpartition("://")
        if (scheme or "https") != parts.scheme:
            continue
        if host == suffix or host.endswith("." + suffix):
            return True
    return False


def push_subscribe(
    *, member: Any, subscription: SubscriptionIn, user_agent: str = ""
) -> PushSubscription:
    """Store this browser's subscription for ``member`` (one row per endpoint: a browser that
    subscribes again, or for another member, replaces its row). A member keeps at most
    ``PUSH_SUBSCRIPTIONS_PER_MEMBER`` browsers: a new one past that replaces the oldest (a
    member who changes browsers is never refused, and one member cannot make a push cost
    more than that many requests). Locks the member's subscriptions and that row."""
    if not push_configured():
        raise PushUnavailable(PushUnavailable.MESSAGE)
    endpoint = str(subscription.endpoint)
    if not _allowed_endpoint(endpoint):
        raise BadSubscription("That is not a push service this server sends to.")
    with transaction.atomic():
        mine = PushSubscription.objects.filter(member=member).order_by("-created_at", "-id")
        list(mine.select_for_update().values_list("pk", flat=True))
        row, _ = PushSubscription.objects.update_or_create(
            endpoint=endpoint,
            defaults={
                "member": member,
                "p256dh": subscription.keys.p256dh,
                "auth": subscription.keys.auth,
                "user_agent": user_agent[:200],
            },
        )
        oldest = list(mine.values_list("pk", flat=True)[settings.PUSH_SUBSCRIPTIONS_PER_MEMBER :])
        PushSubscription.objects.filter(pk__in=oldest).delete()
    return row


def push_unsubscribe(*, member: Any, endpoint: str) -> int:
    """Forget this browser's subscription (only the member's own). Returns rows removed."""
    deleted, _ = PushSubscription.objects.filter(member=member, endpoint=endpoint).delete()
    return deleted


def channel_kinds() -> list[tuple[str, str]]:
    """The (kind, label) pairs a member chooses per channel, in the settings page's order."""
    return [(kind.value, kind.label) for kind in CHOSEN_KINDS]


__all__ = [
    "Channel",
    "channel_kinds",
    "push_configured",
    "push_subscribe",
    "push_unsubscribe",
    "read_unsubscribe_token",
    "settings_of",
    "unsubscribe",
    "unsubscribe_token",
    "update_notification_settings",
]
