from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from accounts import self_service, sessions, views
from accounts.forms import VerifiedEmailPasswordResetForm

app_name = "accounts"
urlpatterns = [
    path("sign-up/", views.sign_up, name="sign-up"),
    path("sign-in/", views.SignInView.as_view(), name="sign-in"),
    path("sign-out/", views.SignOutView.as_view(), name="sign-out"),
    path("locked/", views.locked, name="locked"),
    path("locked/unlock/", views.unlock, name="unlock"),
    # One's own account.
    path("profile/", self_service.profile, name="profile"),
    path("email/", self_service.change_email, name="change-email"),
    path("email/verify/<str:token>/", self_service.verify_email, name="verify-email"),
    path("sign-out-elsewhere/", self_service.sign_out_elsewhere, name="sign-out-elsewhere"),
    path("my-data/", self_service.download_data, name="my-data"),
    path("delete/", self_service.delete_account, name="delete"),
    # Django's own password views, with the site's templates (changing the password closes
    # the member's sockets: accounts/sessions.py).
    path(
        "password/change/",
        sessions.PasswordChangeView.as_view(
            template_name="accounts/password_change.html",
            success_url=reverse_lazy("accounts:password-change-done"),
        ),
        name="password-change",
    ),
    path(
        "password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_done.html"),
        name="password-change-done",
    ),
    path(
        "password/reset/",
        auth_views.PasswordResetView.as_view(
            form_class=VerifiedEmailPasswordResetForm,
            template_name="accounts/password_reset.html",
            email_template_name="accounts/password_reset_email.txt",
            subject_template_name="accounts/password_reset_subject.txt",
            success_url=reverse_lazy("accounts:password-reset-sent"),
        ),
        name="password-reset",
    ),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(template_name="accounts/password_sent.html"),
        name="password-reset-sent",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        sessions.PasswordResetConfirmView.as_view(
            template_name="accounts/password_reset_confirm.html",
            success_url=reverse_lazy("accounts:password-reset-complete"),
        ),
        name="password-reset-confirm",
    ),
    path(
        "password/reset/complete/",
        auth_views.PasswordResetCompleteView.as_view(template_name="accounts/password_done.html"),
        name="password-reset-complete",
    ),
    # Organisers: sign-ups, members, how people join, invitation links.
]
