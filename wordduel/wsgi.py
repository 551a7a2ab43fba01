"""WSGI entry point (HTTP only; websockets need ``wordduel.asgi``)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wordduel.settings")
application = get_wsgi_application()
