"""The account emails the site sends itself (password resets are Django's own)."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from accounts.models import Member
from accounts.services import email_verification_token


def send_verification(member: Member) -> None:
    """Mail ``member`` a link that confirms their address (valid three days)."""
    if not member.email:
        return
    link = settings.SITE_URL.rstrip("/") + reverse(
        "accounts:verify-email", args=[email_verification_token(member)]
    )
    send_mail(
        "Confirm your email address for Word Duel",
        f"Hello {member.username},\n\nOpen this link to confirm that this address is yours:\n"
        f"{link}\n\nThe link works for three days. If you did not ask for this, ignore it.\n",
        None,
        [member.email],
    )
