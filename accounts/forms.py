"""The account pages' forms: sign-up, profile, email, invitations, the club's policy."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm

from accounts import emails
from accounts.models import BIO_LENGTH, Club, Member
from accounts.services import MAX_INVITATION_USES
from accounts.time_zones import time_zone_choices
from common.addresses import client_address


class SignUpForm(UserCreationForm):
    """Sign up with a username and a password (argon2-hashed), and an email address for
    password resets (verified by a link). Any well-formed address is taken here: whether it
    belongs to another member is never said (``services.member_sign_up``)."""

    class Meta:
        model = Member
        fields = ("username", "display_name", "email")
        help_texts = {"email": "Optional; needed to reset a forgotten password."}


class ProfileForm(forms.Form):
    display_name = forms.CharField(max_length=40, required=False, strip=True)
    time_zone = forms.ChoiceField(
        choices=time_zone_choices,
        help_text="Kick-offs and deadlines in your emails are written in this time zone "
        "(the same setting as on the Notifications page).",
    )
    bio = forms.CharField(
        max_length=BIO_LENGTH, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )


class EmailForm(forms.Form):
    email = forms.EmailField(label="Email address", required=False)


class ClubForm(forms.Form):
    sign_up = forms.ChoiceField(choices=Club.SignUp.choices, label="How people join")


class InvitationForm(forms.Form):
    max_uses = forms.IntegerField(
        min_value=1, max_value=MAX_INVITATION_USES, initial=1, label="Sign-ups it allows"
    )
    days = forms.IntegerField(min_value=1, max_value=365, initial=14, label="Valid for (days)")
    note = forms.CharField(max_length=100, required=False, label="Note (who it is for)")


class DeleteAccountForm(forms.Form):
    password = forms.CharField(widget=forms.PasswordInput, label="Your password, to confirm")

    def __init__(self, member: Member, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.member = member

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.member.check_password(password):
            raise forms.ValidationError("That is not your password.")
        return password


class VerifiedEmailPasswordResetForm(PasswordResetForm):
    """Django's reset form, sending only to addresses their member has verified (a link to
    an address nobody confirmed could hand the account to whoever typed it), and only within
    the limits per address mailed and per client asking (``accounts.emails``). The view
    answers the same whatever was sent."""

    def get_users(self, email: str) -> Any:
        return (user for user in super().get_users(email) if user.email_verified)

    def save(self, *args: Any, **kwargs: Any) -> None:
        request = kwargs.get("request")
        client = client_address(request) if request is not None else "unknown"
        if emails.may_send_reset(address=self.cleaned_data["email"], client=client):
            super().save(*args, **kwargs)
