"""Sending notices: which channels a notice takes, and each delivery sent once.

:func:`dispatch_notice` decides a notice's deliveries once (under the notice's row lock)
and sends those due; :func:`send_delivery` sends an email at once and hands a push to the
push queue (:func:`queue_push`), whose own worker sends it (:func:`send_push_delivery`): a
push service that is slow to answer, or never does, keeps only that worker waiting, never
the clock's sweeps or the computer's moves. Either way one delivery is claimed with
``skip_locked`` and marked sent in the transaction that sent it, so two workers never send
it twice. A delivery held back by quiet hours, or a failed one waiting to be tried again, is
sent by the sweep (:func:`notifications.sweeps.send_due`) when its time comes.
"""

from __future__ import annotations

import contextlib
import logging
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from matches import away
from notifications import calendar, content, friendlies, services, wording
from notifications.models import (
    URGENT_WARNING_HOURS,
    Channel,
    Delivery,
    Kind,
    Notice,
    NotificationSettings,
    PushSubscription,
    chosen_as,
)
from notifications.schemas import NoticeContent, PushPayload

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
#: How long push services keep an undelivered notice for an offline browser.
PUSH_TTL_SECONDS = 24 * 60 * 60
#: A push handed to the push queue is not handed over again by the sweep for this long,
#: however far behind the queue is (its task, when it runs, decides by the row's state).
PUSH_REQUEUE_SECONDS = 10 * 60


class SendFailed(Exception):
    """A channel could not send now (the SMTP server or every push service failed)."""


# ---------------------------------------------------------------- which channels


def channels_for(notice: Notice, prefs: NotificationSettings, *, now: datetime) -> list[str]:
    """The channels the member wants this notice by, and that can reach them."""
    member = notice.member
    channels: list[str] = []
    if not friendlies.wanted(notice, prefs):  # (a practice game's "your move")
        return channels
    for channel in (Channel.EMAIL, Channel.PUSH):
        if channel == Channel.EMAIL:
            if not member.email:
                continue
            if notice.kind == Kind.DIGEST:
                wanted = prefs.your_move_email == NotificationSettings.EmailMode.DIGEST
                if wanted and Kind.YOUR_MOVE in prefs.email_kinds:
                    channels.append(channel)
                continue
            if (
                notice.kind == Kind.YOUR_MOVE
                and prefs.your_move_email == NotificationSettings.EmailMode.DIGEST
            ):
                continue
        elif not _push_reaches(notice, member):
            continue
        if chosen_as(notice.kind) not in prefs.kinds(channel):
            continue
        if notice.kind == Kind.FORFEIT and not _warning_for(notice, prefs, channel, now=now):
            continue
        channels.append(channel)
    return channels


def _push_reaches(notice: Notice, member: Any) -> bool:
    """Push is set up, the notice is one push carries, and the member has a browser."""
    if notice.kind == Kind.DIGEST or not services.push_configured():
        return False
    return PushSubscription.objects.filter(member=member).exists()


def _warning_for(
    notice: Notice, prefs: NotificationSettings, channel: str, *, now: datetime
) -> bool:
    """A forfeit warning goes by a channel whose chosen hours include it, and only when it
    is that channel's latest warning due (a sweep that ran late does not send both the
    24-hour and the 2-hour warning at once)."""
    hours = prefs.warning_hours(channel)
    if notice.hours not in hours:
        return False
    # The deadline the clock applies: later by the mover's declared vacation, if any.
    deadline = away.turn_deadline(notice.match) if notice.match else None
    if deadline is None:
        return False
    due = [h for h in hours if deadline - timedelta(hours=h) <= now]
    return bool(due) and min(due) == notice.hours


def due_at(notice: Notice, prefs: NotificationSettings, *, now: datetime) -> datetime:
    """Now, or the end of the member's quiet hours; the last forfeit warning is never held."""
    urgent = notice.kind == Kind.FORFEIT and (notice.hours or 0) <= URGENT_WARNING_HOURS
    return (None if urgent else prefs.quiet_until(now)) or now


# ---------------------------------------------------------------- dispatch and send


def dispatch_notice(*, key: str, now: datetime | None = None) -> list[str]:
    """Decide the deliveries of the notice ``key`` (once) and send those due now.

    Locks the notice row while deciding, so two workers decide once; returns what each of
    its due deliveries came to (``sent``, ``skipped``, ``retry``, ``taken``...)."""
    with transaction.atomic():
        notice = (
            Notice.objects.select_for_update(of=("self",))
            .select_related("member", "match")
            .filter(key=key)
            .first()
        )
        if notice is None:
            return []
        # The time is read once the lock is held: a worker that waited for another's
        # decision finds that worker's deliveries due, not in its own past.
        now = now or timezone.now()
        if notice.dispatched_at is None:
            prefs = services.settings_of(notice.member)
            when = due_at(notice, prefs, now=now)
            Delivery.objects.bulk_create(
                [
                    Delivery(notice=notice, channel=channel, due_at=when)
                    for channel in channels_for(notice, prefs, now=now)
                ],
                ignore_conflicts=True,
            )
            notice.dispatched_at = now
            notice.save(update_fields=["dispatched_at"])
    due = Delivery.objects.filter(
        notice_id=notice.pk, status=Delivery.Status.PENDING, due_at__lte=now
    ).values_list("pk", flat=True)
    return [send_delivery(delivery_id=pk, now=now) for pk in list(due)]


def send_delivery(*, delivery_id: int, now: datetime | None = None) -> str:
    """Send one pending, due delivery, once: an email here, a push by its own queue
    (``queued``; :func:`queue_push`). See :func:`_send` for what it locks."""
    channel = Delivery.objects.filter(pk=delivery_id).values_list("channel", flat=True).first()
    if channel is None:
        return "taken"
    if channel == Channel.PUSH:
        return queue_push(delivery_id)
    return _send(delivery_id=delivery_id, now=now)


def _queued_key(delivery_id: int) -> str:
    return f"notifications:push-queued:{delivery_id}"


def queue_push(delivery_id: int) -> str:
    """Hand the push delivery to the push queue (``notifications.send_push``), unless it was
    handed over in the last ``PUSH_REQUEUE_SECONDS`` and its task has not run yet. Says
    ``queued``, or ``unqueued`` when the broker is away (the sweep tries again)."""
    key = _queued_key(delivery_id)
    try:
        if not cache.add(key, 1, timeout=PUSH_REQUEUE_SECONDS):
            return "queued"
        # By its registered name (notifications/tasks.py imports this module).
        current_app.tasks["notifications.send_push"].delay(delivery_id)
    except Exception:  # the broker (or the cache) is away: the sweep hands it over again
        logger.exception("could not queue push delivery %s; the sweep will", delivery_id)
        with contextlib.suppress(Exception):
            cache.delete(key)
        return "unqueued"
    return "queued"


def send_push_delivery(*, delivery_id: int, now: datetime | None = None) -> str:
    """The push queue's task: send one pending, due push delivery, once (:func:`_send`)."""
    try:
        return _send(delivery_id=delivery_id, now=now)
    finally:
        with contextlib.suppress(Exception):  # a cache away: the marker expires by itself
            cache.delete(_queued_key(delivery_id))


def _send(*, delivery_id: int, now: datetime | None = None) -> str:
    """Send one pending, due delivery, once. Locks its row (``skip_locked``: a delivery
    another worker is sending is left to it) and marks it sent in the same transaction."""
    now = now or timezone.now()
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("notice__member", "notice__match")
            .filter(pk=delivery_id, status=Delivery.Status.PENDING, due_at__lte=now)
            .first()
        )
        if delivery is None:
            return "taken"
        notice = delivery.notice
        prefs = services.settings_of(notice.member)
        built = content.build(notice, prefs, now=now)
        if isinstance(built, wording.Stale):
            return _close(delivery, Delivery.Status.SKIPPED, built.reason, now=now)
        try:
            if delivery.channel == Channel.EMAIL:
                send_email(notice.member, built)
            elif not send_push(notice.member, PushPayload.of(built)):
                return _close(delivery, Delivery.Status.SKIPPED, "no subscription left", now=now)
        except SendFailed as error:
            delivery.attempts += 1
            delivery.detail = str(error)[:200]
            if delivery.attempts >= MAX_ATTEMPTS:
                delivery.status = Delivery.Status.FAILED
            else:  # again in 1, 2, 4, 8 minutes
                delivery.due_at = now + timedelta(minutes=2 ** (delivery.attempts - 1))
            delivery.save(update_fields=["attempts", "detail", "status", "due_at"])
            return "retry" if delivery.status == Delivery.Status.PENDING else "failed"
        return _close(delivery, Delivery.Status.SENT, "", now=now)


def _close(delivery: Delivery, status: str, detail: str, *, now: datetime) -> str:
    delivery.status = status
    delivery.detail = detail[:200]
    delivery.attempts += 1
    delivery.sent_at = now if status == Delivery.Status.SENT else None
    delivery.save(update_fields=["status", "detail", "attempts", "sent_at"])
    return str(status)


# ---------------------------------------------------------------- email


def render_email(member: Any, notice: NoticeContent) -> EmailMultiAlternatives:
    """The notice as an email: text and HTML parts, the one-click unsubscribe link and its
    ``List-Unsubscribe``/``List-Unsubscribe-Post`` headers, a fixture's ``.ics``."""
    token = services.unsubscribe_token(member.pk, chosen_as(notice.kind))
    unsubscribe_url = wording.absolute(reverse("notifications:unsubscribe", args=[token]))
    context = {
        "notice": notice,
        "member": member,
        "unsubscribe_url": unsubscribe_url,
        "settings_url": wording.absolute(reverse("notifications:settings")),
    }
    message = EmailMultiAlternatives(
        subject=notice.subject,
        body=render_to_string("notifications/email/notice.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[member.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe_url}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        },
    )
    message.attach_alternative(
        render_to_string("notifications/email/notice.html", context), "text/html"
    )
    if notice.kickoff_at is not None and notice.match_id:  # a fixture's kick-off, or its change
        ics = calendar.fixture_calendar(
            match_id=notice.match_id,
            name=notice.match_name or notice.subject,
            kickoff_at=notice.kickoff_at,
            url=notice.url,
            sequence=notice.calendar_sequence,
            cancelled=notice.calendar_cancelled,
        )
        message.attach("fixture.ics", ics, "text/calendar")
    return message


def send_email(member: Any, notice: NoticeContent) -> None:
    message = render_email(member, notice)
    try:
        message.connection = get_connection(timeout=settings.EMAIL_TIMEOUT)
        message.send()
    except Exception as error:  # smtplib's errors and sockets' alike
        raise SendFailed(f"email: {type(error).__name__}") from error


# ---------------------------------------------------------------- web push


def send_push(member: Any, payload: PushPayload) -> int:
    """Send ``payload`` to the browsers the member subscribed (their newest
    ``PUSH_SUBSCRIPTIONS_PER_MEMBER``), giving each push service
    ``WEB_PUSH_TIMEOUT_SECONDS`` to answer; forget a subscription the push service says is
    gone (404, 410). Returns how many browsers it reached; raises :class:`SendFailed` when
    every one failed for another reason."""
    from pywebpush import WebPushException, webpush  # noqa: PLC0415 (loads requests)

    sent = failed = 0
    browsers = PushSubscription.objects.filter(member=member).order_by("-created_at", "-id")
    for subscription in browsers[: settings.PUSH_SUBSCRIPTIONS_PER_MEMBER]:
        try:
            webpush(
                subscription_info={
                    "endpoint": subscription.endpoint,
                    "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
                },
                data=payload.model_dump_json(),
                vapid_private_key=settings.VAPID_PRIVATE_KEY,
                vapid_claims={"sub": settings.VAPID_SUBJECT},
                ttl=PUSH_TTL_SECONDS,
                timeout=settings.WEB_PUSH_TIMEOUT_SECONDS,
            )
        except WebPushException as error:
            status = error.response.status_code if error.response is not None else None
            if status in (404, 410):
                subscription.delete()
                continue
            logger.warning("push to a browser of member %s failed: %s", member.pk, status)
            failed += 1
            continue
        except Exception as error:  # noqa: BLE001 (a push service that does not answer)
            logger.warning("push to a browser of member %s failed: %r", member.pk, error)
            failed += 1
            continue
        subscription.last_sent_at = timezone.now()
        subscription.save(update_fields=["last_sent_at"])
        sent += 1
    if failed and not sent:
        raise SendFailed(f"push: {failed} browser(s) failed")
    return sent
