"""The organisers' membership pages, mounted under ``/accounts/`` in the ``accounts`` URL
namespace beside the members' own pages (``wordduel/urls.py``)."""

from django.urls import path

from tournaments import membership_views as organiser_views

urlpatterns = [
    path("members/", organiser_views.members, name="members"),
    path("members/decide/", organiser_views.decide, name="decide"),
    path("members/remove/", organiser_views.remove, name="remove"),
    path("members/<int:member_id>/remove/", organiser_views.confirm_remove, name="confirm-remove"),
    path("members/reinstate/", organiser_views.reinstate, name="reinstate"),
    path("members/sign-up/", organiser_views.set_sign_up, name="set-sign-up"),
    path("invitations/new/", organiser_views.create_invitation, name="create-invitation"),
    path("invitations/revoke/", organiser_views.revoke_invitation, name="revoke-invitation"),
]
