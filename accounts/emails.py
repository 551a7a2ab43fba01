"""The account emails the site sends itself (password resets are Django's own)."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from accounts.models import Member
from accounts.services import email_verification_token


def send_verification(member: Member, address: str) -> None:
    """Mail ``address`` a link that confirms it as ``member``'s (valid three days)."""
    if not address:
        return
    link = settings.SITE_URL.rstrip("/") + reverse(
        "accounts:verify-email", args=[email_verification_token(member, address)]
    )
    send_mail(
        "Confirm your email address for Word Duel",
        f"Hello {member.username},\n\nOpen this link to confirm that this address is yours:\n"
        f"{link}\n\nThe link works for three days. If you did not ask for this, ignore it.\n",
        None,
        [address],
    )


def send_address_taken(address: str) -> None:
    """Tell the owner of ``address`` that someone asked to use it for another account, and
    that nothing changed (the asker is answered as if a link had been sent)."""
    reset = settings.SITE_URL.rstrip("/") + reverse("accounts:password-reset")
    send_mail(
        "Your email address on Word Duel",
        "Hello,\n\nSomeone asked to use this address for a Word Duel account, but it already "
        "belongs to an account. Nothing has changed.\n\nIf that was you and you cannot sign "
        f"in, reset your password here:\n{reset}\n\nIf not, ignore this email.\n",
        None,
        [address],
    )


def send_sign_up_address_taken(address: str) -> None:
    """Tell the member who has ``address`` that someone signed up for a new account with it:
    the new account does not get it (the one signing up is answered as if a confirmation
    link had been sent, so nobody learns who is registered)."""
    reset = settings.SITE_URL.rstrip("/") + reverse("accounts:password-reset")
    send_mail(
        "Someone signed up with your email address on Word Duel",
        "Hello,\n\nSomeone tried to sign up for a new Word Duel account with this address. "
        "It belongs to your account, so the new account does not get it, and your account "
        "is unchanged.\n\nIf that was you, sign in to your account instead; if you cannot, "
        f"reset your password here:\n{reset}\n\nIf not, ignore this email.\n",
        None,
        [address],
    )
