"""Sign up, sign in, sign out: Django's own auth, thin views."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.views import LoginView, LogoutView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from accounts import ratelimit
from accounts.forms import SignUpForm


def _too_many(request: HttpRequest, limit: ratelimit.Limit, template: str, form) -> HttpResponse:
    """429 with the limit's message; the attempt itself is not looked at."""
    messages.error(request, limit.message)
    return render(request, template, {"form": form}, status=429)


def sign_up(request: HttpRequest) -> HttpResponse:
    """Create a member and sign them straight in."""
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and not ratelimit.allow(
        ratelimit.SIGN_UP, ratelimit.client_address(request)
    ):
        return _too_many(request, ratelimit.SIGN_UP, "accounts/sign_up.html", SignUpForm())
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

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        """Refuse with 429 once this address has spent its sign-in attempts."""
        if not ratelimit.allow(ratelimit.SIGN_IN, ratelimit.client_address(request)):
            messages.error(request, ratelimit.SIGN_IN.message)
            context = self.get_context_data(form=self.get_form_class()(request))
            return self.render_to_response(context, status=429)
        return super().post(request, *args, **kwargs)


class SignOutView(LogoutView):
    pass
