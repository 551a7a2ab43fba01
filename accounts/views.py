"""Sign up, sign in, sign out: Django's own auth, thin views."""

from django.contrib.auth import login
from django.contrib.auth.views import LoginView, LogoutView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from accounts.forms import SignUpForm


def sign_up(request: HttpRequest) -> HttpResponse:
    """Create a member and sign them straight in."""
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        member = form.save()
        login(request, member, backend="django.contrib.auth.backends.ModelBackend")
        next_url = request.POST.get("next", "")
        if next_url and url_has_allowed_host_and_scheme(
            next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return redirect(next_url)
        return redirect("home")
    return render(
        request, "accounts/sign_up.html", {"form": form}, status=400 if form.errors else 200
    )


class SignInView(LoginView):
    template_name = "accounts/sign_in.html"
    redirect_authenticated_user = True


class SignOutView(LogoutView):
    pass
