"""``manage.py vapid_keys``: a new VAPID key pair for web push, as environment lines."""

from __future__ import annotations

import base64
from typing import Any

from cryptography.hazmat.primitives import serialization
from django.core.management.base import BaseCommand
from py_vapid import Vapid


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Command(BaseCommand):
    help = "Create a VAPID key pair for web push; print VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY."

    def handle(self, *args: Any, **options: Any) -> None:
        vapid = Vapid()
        vapid.generate_keys()
        private = vapid.private_key.private_numbers().private_value.to_bytes(32, "big")
        public = vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.stdout.write("# Web push (VAPID) keys: set these in the environment of every")
        self.stdout.write("# web process and Celery worker; keep the private key secret.")
        self.stdout.write(f"VAPID_PUBLIC_KEY={_b64url(public)}")
        self.stdout.write(f"VAPID_PRIVATE_KEY={_b64url(private)}")
        self.stdout.write("VAPID_SUBJECT=mailto:admin@example.org")
