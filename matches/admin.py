"""The admin: a read-only window on tournaments, matches, seats and turns.

Hidden state never appears here: a seat's rack and bag contribution, a match's game state
(board, racks, bag), bag seed and viewing key, a turn's rack and drawn or swapped tiles are
all excluded. Changes go through ``matches.services`` (DESIGN "one way in"), so the admin
adds, edits and deletes nothing itself; its one action calls a service.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from matches import services
from matches.models import Match, Seat, Tournament, Turn

MATCH_HIDDEN = ("game_state", "bag_seed", "viewing_key")
SEAT_HIDDEN = ("rack", "contribution")
TURN_HIDDEN = ("rack_before", "swapped", "drawn")


class ReadOnlyAdmin(admin.ModelAdmin):
    """View only: every change is a service call, never a form save."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    exclude = SEAT_HIDDEN
    readonly_fields = ("position", "member", "score", "seated_at")


class TurnInline(ReadOnlyInline):
    model = Turn
    exclude = TURN_HIDDEN
    fields = ("number", "position", "kind", "words", "score", "first_total", "second_total")
    readonly_fields = fields


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin):
    list_display = ("name", "organiser", "created_at")
    search_fields = ("name",)
    readonly_fields = ("name", "organiser", "players", "created_at")


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ("name", "tournament", "status", "result", "kickoff_at", "visibility")
    list_filter = ("status", "visibility", "ruleset")
    search_fields = ("name",)
    exclude = MATCH_HIDDEN
    readonly_fields = (
        "name",
        "tournament",
        "round_number",
        "created_by",
        "ruleset",
        "lexicon",
        "visibility",
        "status",
        "result",
        "end_reason",
        "kickoff_at",
        "no_show_window",
        "no_show_at",
        "turn_started_at",
        "turn_deadline_at",
        "turn_time",
        "turn_number",
        "to_move",
        "bag_count",
        "bag_commitment",
        "created_at",
        "opened_at",
        "finished_at",
    )
    inlines = (SeatInline, TurnInline)
    actions = ("new_viewing_key",)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        # The delete action would bypass the services; only our own action is offered.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    @admin.action(description="New viewing key (cuts off the old link)")
    def new_viewing_key(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        done = 0
        for match in queryset:
            try:
                services.match_rotate_viewing_key(match_id=match.pk, member=request.user)
            except services.ServiceError as error:
                self.message_user(request, f"{match}: {error}", messages.ERROR)
            else:
                done += 1
        if done:
            self.message_user(request, f"New viewing key for {done} match(es).")


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("match", "position", "member", "score")
    exclude = SEAT_HIDDEN
    readonly_fields = ("match", "position", "member", "score", "seated_at")


@admin.register(Turn)
class TurnAdmin(ReadOnlyAdmin):
    list_display = ("match", "number", "position", "kind", "score")
    exclude = TURN_HIDDEN
    readonly_fields = (
        "match",
        "number",
        "position",
        "kind",
        "placement",
        "takes",
        "swap_count",
        "words",
        "score",
        "first_total",
        "second_total",
        "bag_count",
        "client_id",
        "created_at",
    )
