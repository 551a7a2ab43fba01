"""Ratings in the admin, to read: they change only through ratings.services."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from ratings.models import Rating, RatingChange


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ("member", "ruleset", "rating", "deviation", "volatility", "games")
    list_filter = ("ruleset",)
    search_fields = ("member__username",)


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ("match", "member", "opponent", "score", "rating_before", "rating_after")
    list_filter = ("ruleset",)
    search_fields = ("member__username", "match__name")
