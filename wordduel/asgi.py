"""ASGI entry point: HTTP and websockets through one router.

Websockets pass an origin check (scheme, host and port against WEBSOCKET_ALLOWED_ORIGINS, and
in development the socket's own origin: wordduel/origins.py), then session authentication,
before they reach a consumer.
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wordduel.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from accounts.sessions import SocketAuthMiddlewareStack  # noqa: E402
from common.logs import RequestIdMiddleware  # noqa: E402
from engine import get_ruleset  # noqa: E402
from lexicon.lexicon import get_lexicon  # noqa: E402
from wordduel.origins import SiteOriginValidator  # noqa: E402
from wordduel.routing import websocket_urlpatterns  # noqa: E402

# The word list is read while the process starts (about 0.3 s), not by its first move.
get_lexicon("enable", max_len=get_ruleset("word-duel").lexicon_max_len)

if settings.CLOCK_IN_PROCESS:
    from wordduel.in_process_clock import start_in_process_clock

    start_in_process_clock(interval=settings.CLOCK_SWEEP_SECONDS)

# Every request and socket gets a request id for its log lines (common/logs.py).
application = RequestIdMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": SiteOriginValidator(
                SocketAuthMiddlewareStack(URLRouter(websocket_urlpatterns)),
                settings.WEBSOCKET_ALLOWED_ORIGINS,
                own_origin=settings.WEBSOCKET_ALLOW_OWN_ORIGIN,
            ),
        }
    )
)

# The garbage collector stops the whole event loop while it runs, so every socket waits.
# What start-up built (Django, the URL maps, the word list...) lives as long as the process:
# frozen out of the collector's sight, a full collection no longer walks those ~100,000
# objects (about 50 ms on the bench machine). And the young generation is collected after
# 50,000 new objects instead of 700, the older ones less often: the collections that had
# delayed one commit's news in twenty by 50-150 ms (docs/PERFORMANCE.md, "Fan-out") are
# rarer, for some MB more of young objects between collections.
gc.freeze()
gc.set_threshold(50_000, 20, 100)
