"""The admin for members: Django's UserAdmin, plus the display name and the organiser flag.

Organisers are members holding ``accounts.organise``; grant it in the member's
"User permissions" here, or with ``manage.py grant_organiser USERNAME``.
"""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import Member


@admin.register(Member)
class MemberAdmin(UserAdmin):
    """UserAdmin with the club's own field; the organiser column shows who may schedule."""

    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        ("Club", {"fields": ("display_name",)}),
    )
    add_fieldsets = (
        *UserAdmin.add_fieldsets,
        ("Club", {"fields": ("display_name",)}),
    )
    list_display = ("username", "display_name", "organiser", "is_staff", "is_active")
    search_fields = ("username", "display_name", "email")

    @admin.display(boolean=True, description="Organiser")
    def organiser(self, member: Member) -> bool:
        return member.is_organiser
