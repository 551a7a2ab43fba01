from django.urls import path

from accounts import views

app_name = "accounts"
urlpatterns = [
    path("sign-up/", views.sign_up, name="sign-up"),
    path("sign-in/", views.SignInView.as_view(), name="sign-in"),
    path("sign-out/", views.SignOutView.as_view(), name="sign-out"),
    path("locked/", views.locked, name="locked"),
    path("locked/unlock/", views.unlock, name="unlock"),
]
