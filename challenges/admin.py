"""Read-only lists of challenges and rematch offers (every change goes through the services)."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from challenges.models import Challenge, RematchOffer


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Challenge)
class ChallengeAdmin(ReadOnly):
    list_display = ("id", "poster", "opponent", "ruleset", "rated", "status", "expires_at")
    list_filter = ("status", "rated")


@admin.register(RematchOffer)
class RematchOfferAdmin(ReadOnly):
    list_display = ("id", "original", "offered_by", "status", "rematch")
    list_filter = ("status",)
