from django.urls import path

from vacations import views

app_name = "vacations"
urlpatterns = [
    path("me/vacation/", views.vacation, name="mine"),
    path("me/vacation/<int:vacation_id>/cancel/", views.cancel, name="cancel"),
    path("tournaments/<int:tournament_id>/vacation/", views.allowance, name="allowance"),
]
