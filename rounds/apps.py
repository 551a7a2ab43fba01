from django.apps import AppConfig


class RoundsConfig(AppConfig):
    name = "rounds"
    verbose_name = "Word Skill rounds"
    default_auto_field = "django.db.models.BigAutoField"
