from django.contrib.auth.forms import UserCreationForm

from accounts.models import Member


class SignUpForm(UserCreationForm):
    """Sign up with a username and a password (argon2-hashed)."""

    class Meta:
        model = Member
        fields = ("username", "display_name")
