"""The account emails the site sends itself, and their limits (password resets are Django's
own mail, limited here too).

Every account mail goes to an address someone typed, so each is limited twice, in the shared
cache (``accounts.ratelimit``): per member or per address asking, and per address mailed.
Past a limit the mail is simply not sent, and the page that asked answers exactly as when it
is, so a limit never tells anyone whether an address belongs to a member (docs/RULES.md,
section 2). Addresses are counted by a hash, never kept in the cache as written.
"""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from accounts import ratelimit
from accounts.models import Member
from accounts.services import email_verification_token

logger = logging.getLogger(__name__)

HOUR = 3600
DAY = 24 * HOUR


def reset_mails_per_address() -> ratelimit.Limit:
    """Password-reset links one address is mailed in an hour."""
    return ratelimit.Limit("reset-mails", settings.PASSWORD_RESET_MAILS_PER_ADDRESS, HOUR, "")


def reset_requests_per_client() -> ratelimit.Limit:
    """Password resets one client address may ask for in an hour (whatever addresses)."""
    return ratelimit.Limit("reset-requests", settings.PASSWORD_RESET_REQUESTS_PER_CLIENT, HOUR, "")


def confirmations_per_member() -> ratelimit.Limit:
    """Confirmation links one member may have mailed in a day (sign-up and address changes)."""
    return ratelimit.Limit("confirmation-mails", settings.EMAIL_CONFIRMATIONS_PER_MEMBER, DAY, "")


def account_mails_per_address() -> ratelimit.Limit:
    """Confirmation links and "your address was asked for" notes one address gets in a day."""
    return ratelimit.Limit("account-mails", settings.ACCOUNT_MAILS_PER_ADDRESS, DAY, "")


def address_key(address: str) -> str:
    """An address as the limits count it: case-folded and hashed."""
    return hashlib.sha256(address.strip().casefold().encode()).hexdigest()


def may_send_reset(*, address: str, client: str) -> bool:
    """Count a password reset asked for ``address`` from ``client``; whether its mail (if
    the address is a member's) may go. Every request counts against the client, whether or
    not any member has the address; one the client may not make does not count against the
    address."""
    if not ratelimit.allow(reset_requests_per_client(), client):
        logger.warning("password reset not mailed: the client's hourly limit is spent")
        return False
    if not ratelimit.allow(reset_mails_per_address(), address_key(address)):
        logger.warning("password reset not mailed: the address's hourly limit is spent")
        return False
    return True


def send_verification(member: Member, address: str) -> bool:
    """Mail ``address`` a link that confirms it as ``member``'s (valid three days), within
    the member's and the address's limits; whether it was sent."""
    if not address:
        return False
    if not ratelimit.allow(confirmations_per_member(), str(member.pk)):
        logger.warning("confirmation link not mailed: member %s's daily limit is spent", member.pk)
        return False
    if not ratelimit.allow(account_mails_per_address(), address_key(address)):
        logger.warning("confirmation link not mailed: the address's daily limit is spent")
        return False
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
    return True


def send_address_taken(address: str) -> bool:
    """Tell the owner of ``address`` that someone asked to use it for another account, and
    that nothing changed (the asker is answered as if a link had been sent), within the
    address's limit; whether it was sent."""
    if not ratelimit.allow(account_mails_per_address(), address_key(address)):
        logger.warning("address-taken note not mailed: the address's daily limit is spent")
        return False
    reset = settings.SITE_URL.rstrip("/") + reverse("accounts:password-reset")
    send_mail(
        "Your email address on Word Duel",
        "Hello,\n\nSomeone asked to use this address for a Word Duel account, but it already "
        "belongs to an account. Nothing has changed.\n\nIf that was you and you cannot sign "
        f"in, reset your password here:\n{reset}\n\nIf not, ignore this email.\n",
        None,
        [address],
    )
    return True


def send_sign_up_address_taken(address: str) -> bool:
    """Tell the member who has ``address`` that someone signed up for a new account with it:
    the new account does not get it (the one signing up is answered as if a confirmation
    link had been sent, so nobody learns who is registered), within the address's limit;
    whether it was sent."""
    if not ratelimit.allow(account_mails_per_address(), address_key(address)):
        logger.warning("sign-up address note not mailed: the address's daily limit is spent")
        return False
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
    return True
