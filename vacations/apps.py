from django.apps import AppConfig


class VacationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "vacations"
    verbose_name = "Vacations"
