"""ASGI entry point: HTTP and websockets through one router.

Websockets pass an allowed-hosts origin check, then session authentication, before they
reach a consumer.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wordduel.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402

from wordduel.routing import websocket_urlpatterns  # noqa: E402

if settings.CLOCK_IN_PROCESS:
    from matches.clock import start_in_process_clock

    start_in_process_clock(interval=settings.CLOCK_SWEEP_SECONDS)

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
