"""Settings, read from the environment.

With nothing set the project runs on its embedded default (SQLite, the in-memory channel
layer, the clock sweeping in-process). ``DATABASE_URL`` and ``REDIS_URL`` switch to
PostgreSQL and channels-redis, as every real deployment and the test suite do. A setting the
project cannot run with stops it here with a one-line reason (:class:`SettingRefused`).
"""

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from kombu import Queue

from common.logs import logging_config
from wordduel.configuration import database_from_url, refuse_unless

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, *, default: bool) -> bool:
    """Read a yes/no environment variable (1/0, true/false, yes/no)."""
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, *, default: str) -> list[str]:
    """Read a comma-separated environment variable."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# Off unless set: a deployment that forgets it is not left in debug mode (`make run` and
# the test suite set DEBUG=1 themselves).
DEBUG = env_bool("DEBUG", default=False)
DEVELOPMENT_SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production-4b1f9c2e7a"  # noqa: S105
#: Keys that were ever written in this repository: public, so never a production secret.
KNOWN_SECRET_KEYS = frozenset(
    {
        DEVELOPMENT_SECRET_KEY,
        "change-me-in-production-please-0123456789abcdef",
        "replace-me-with-50-random-characters",
    }
)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not DEBUG:
    # Checked before anything starts: a short or published key signs sessions anyone could
    # forge. `python -c "import secrets; print(secrets.token_urlsafe(50))"` makes one.
    refuse_unless(bool(SECRET_KEY), "SECRET_KEY must be set when DEBUG is off.")
    refuse_unless(
        SECRET_KEY not in KNOWN_SECRET_KEYS and not SECRET_KEY.startswith("django-insecure"),
        "SECRET_KEY is a published example: make a secret one.",
    )
    refuse_unless(
        len(SECRET_KEY) >= 50 and len(set(SECRET_KEY)) >= 5,
        "SECRET_KEY must be at least 50 characters, not repetitive.",
    )
elif not SECRET_KEY:
    SECRET_KEY = DEVELOPMENT_SECRET_KEY

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default="127.0.0.1,localhost,testserver")
# Where the site is, for the links in emails, pushes and the demo's printout (no request to
# ask there). `make run` sets it to the address it serves (`make run PORT=8123`).
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", default="")
# JSON under /api/, Django's page elsewhere.
CSRF_FAILURE_VIEW = "wordduel.csrf.csrf_failure"

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "ninja",
    "axes",
    "accounts",
    "lexicon",
    "matches",
    "tournaments",
    "ratings",
    "imports",
    "notifications",
    "practice",
    "analysis",
    "vacations",
    "challenges",
    "rounds",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # One log line per request, with its id and the client's address (common/logs.py).
    "common.logs.RequestLogMiddleware",
    # Every refusal under /api/ in JSON, Django's own (CSRF, 405, too large, 500) included.
    "wordduel.middleware.ApiErrorsAsJson",
    # Content-Security-Policy with a nonce per request (request.csp_nonce): wordduel/security.py.
    "wordduel.security.ContentSecurityPolicyMiddleware",
    # Static files from the same Daphne processes (quick start and behind a proxy alike).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # The site's own "Not found" page, with DEBUG on too (wordduel/errorpages.py).
    "wordduel.errorpages.OwnNotFoundPage",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Sign-in lockouts (django-axes): last, so it sees every refusal the views made.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "wordduel.urls"
ASGI_APPLICATION = "wordduel.asgi.application"
WSGI_APPLICATION = "wordduel.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = os.environ.get("DATABASE_URL", "")
# Every process keeps a pool of PostgreSQL connections (psycopg's, through Django) and holds
# one only while a request, a socket's service call or a task uses it. Under ASGI each request
# runs in a thread of its own, so a connection kept per thread (CONN_MAX_AGE) meant one per
# request ever made, until PostgreSQL ran out. A process never holds more than DB_POOL_MAX;
# a caller waits up to DB_POOL_TIMEOUT seconds for one. docs/OPERATIONS.md sizes them.
DB_POOL_MIN = int(os.environ.get("DB_POOL_MIN", "2"))
DB_POOL_MAX = int(os.environ.get("DB_POOL_MAX", "10"))
DB_POOL_TIMEOUT = float(os.environ.get("DB_POOL_TIMEOUT", "10"))
# A statement run this many times on one connection is prepared on the server (psycopg's
# prepare_threshold; its own default), so PostgreSQL stops parsing and planning the commit
# path's statements on every move. "off" behind a pooler that cannot keep prepared statements
# (PgBouncer in transaction mode before 1.21): docs/OPERATIONS.md.
DB_PREPARE_THRESHOLD = os.environ.get("DB_PREPARE_THRESHOLD", "5")
if DATABASE_URL:
    # PostgreSQL, or a SQLite file; any other URL is refused here, in one line, rather than
    # taken for PostgreSQL (wordduel/configuration.py).
    _database = database_from_url(DATABASE_URL)
else:
    # The quick start (`make run`): a file in the checkout unless SQLITE_PATH names another.
    _database = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("SQLITE_PATH") or str(BASE_DIR / "db.sqlite3"),
    }
if _database["ENGINE"] == "wordduel.postgres":
    # Health checks: a connection that died while idle (a restart, pg_terminate_backend)
    # is checked when it is taken from the pool and replaced, instead of failing a commit,
    # with a round trip only when it heard something while idle: the backend checks it
    # (wordduel/postgres), so Django's CONN_HEALTH_CHECKS, psycopg_pool's own check with a
    # round trip every time, is off.
    _database["CONN_HEALTH_CHECKS"] = False
    _database.setdefault("OPTIONS", {}).update(
        pool={"min_size": DB_POOL_MIN, "max_size": DB_POOL_MAX, "timeout": DB_POOL_TIMEOUT},
        # Values travel as parameters, not quoted into the SQL by psycopg: less work a
        # statement, and what lets the server prepare it.
        server_side_binding=True,
        prepare_threshold=None if DB_PREPARE_THRESHOLD == "off" else int(DB_PREPARE_THRESHOLD),
    )
DATABASES = {"default": _database}

REDIS_URL = os.environ.get("REDIS_URL", "")
# Which channels-redis layer carries the news: "core" (a sorted set per process: news waits
# out a Redis reconnect for up to `expiry`, `capacity` bounds a stuck consumer) or "pubsub"
# (PUBLISH/SUBSCRIBE: less work per recipient, but news sent while a process reconnects is
# lost). Both measured in docs/PERFORMANCE.md ("Fan-out to spectators", "Layer choice").
CHANNEL_LAYER_CLASSES = {
    "core": "channels_redis.core.RedisChannelLayer",
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
}
CHANNEL_LAYER_BACKEND = os.environ.get("CHANNEL_LAYER_BACKEND", "core")
refuse_unless(
    CHANNEL_LAYER_BACKEND in CHANNEL_LAYER_CLASSES,
    "CHANNEL_LAYER_BACKEND must be one of: core, pubsub.",
)
# How long a read from Redis may take before the layer gives up on it (and a publisher with
# it). It must outlast channels-redis's 5 s blocking pop; see the comment below.
REDIS_SOCKET_TIMEOUT = float(os.environ.get("REDIS_SOCKET_TIMEOUT", "15"))
refuse_unless(
    REDIS_SOCKET_TIMEOUT > 5,
    "REDIS_SOCKET_TIMEOUT must be over 5 seconds (the layer's blocking pop).",
)
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": CHANNEL_LAYER_CLASSES[CHANNEL_LAYER_BACKEND],
            "CONFIG": {
                # channels-redis waits for messages with a 5 s BZPOPMIN; redis-py 8 reads
                # with a 5 s socket timeout by default, which would end every websocket
                # that hears nothing for 5 s. The read must outlast the blocking pop.
                # A Redis that accepts no connections (frozen, or its backlog full) must
                # not hold a publisher or a handshake for minutes of TCP retries.
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": REDIS_SOCKET_TIMEOUT,
                        "socket_connect_timeout": 5,
                    }
                ],
                "prefix": os.environ.get("CHANNEL_LAYER_PREFIX", "wordduel"),
                "capacity": 1500,
                "expiry": 30,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# The cache holds rate-limit counters, so it must be shared by every process: Redis when
# there is one, process memory for the one-process quick start.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": os.environ.get("CACHE_PREFIX", "wordduel"),
        # A frozen Redis must not hold a sign-in (its rate limits) for ever.
        "OPTIONS": {"socket_timeout": 5, "socket_connect_timeout": 5},
    }
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

AUTH_USER_MODEL = "accounts.Member"
# Failed sign-ins (never successful ones) lock, for a cool-off, the account from every address
# (django-axes: AXES_FAILURE_LIMIT) and the address for every account, at a limit ten times
# larger (accounts/lockouts.py), so one member's typos or one guesser behind a club's shared
# address never lock the room out. Both guard ``authenticate`` itself: the site's sign-in and
# the admin's alike. An organiser can unlock either sooner (/accounts/locked/).
# Database sessions, remembering the data they read (accounts/session_store.py).
SESSION_ENGINE = "accounts.session_store"
AUTHENTICATION_BACKENDS = [
    "accounts.lockouts.AddressLockoutBackend",
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("SIGN_IN_FAILURE_LIMIT", "10"))
SIGN_IN_ADDRESS_FAILURE_LIMIT = int(
    os.environ.get("SIGN_IN_ADDRESS_FAILURE_LIMIT", str(10 * AXES_FAILURE_LIMIT))
)
AXES_LOCKOUT_PARAMETERS = ["username"]
# axes warns when it does not count per address; the address's own, larger limit is ours.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("SIGN_IN_COOLOFF_MINUTES", "15")))
AXES_RESET_ON_SUCCESS = True
# The cool-off runs from the failure that locked: attempts while locked are refused without
# being counted, so a guesser who keeps trying cannot keep an account locked for ever.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "accounts.views.locked_out"
AXES_VERBOSE = False
# Behind a reverse proxy: how many proxies stand in front of the web processes. Only then is
# X-Forwarded-For believed, and only its hops added by those proxies; with none (the quick
# start, a bare Daphne) the peer address is the client's. Used for every per-address limit.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
# Deployed, Daphne runs with --proxy-headers behind a proxy that replaces X-Forwarded-For
# with the peer it saw (deploy/Caddyfile), so REMOTE_ADDR is already the client's address,
# for requests and sockets alike; reading X-Forwarded-For again here would count hops twice.
AXES_IPWARE_PROXY_COUNT = None
AXES_IPWARE_META_PRECEDENCE_ORDER = ["REMOTE_ADDR"]
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:sign-in"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
# A signed-in session lasts a day; an overnight match outlives it and nothing is lost.
SESSION_COOKIE_AGE = int(os.environ.get("SESSION_COOKIE_AGE", str(24 * 60 * 60)))

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# Deployed: hashed names (board.3f2a9c1d.js) from `collectstatic`, so the proxy can let
# browsers keep them for a year; in development the plain names, no collectstatic needed.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"
    },
}
# In DEBUG, WhiteNoise serves straight from the apps' static folders (no collectstatic).
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Security headers; production hardening is switched on with DEBUG off.
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    if TRUSTED_PROXY_COUNT:  # only a proxy of ours may say the request came over HTTPS
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Content-Security-Policy (wordduel/security.py). Scripts: our own files, and inline ones
# carrying the request's nonce (<script nonce="{{ request.csp_nonce }}">), added to
# script-src per response. No inline styles, no plugins, no framing, forms post only here.
CSP_DIRECTIVES = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    # 'self' covers the site's own ws:/wss: origin (CSP level 3); no other host.
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "frame-ancestors": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
}
# Send it as Content-Security-Policy-Report-Only instead (to try a change out first).
CSP_REPORT_ONLY = env_bool("CSP_REPORT_ONLY", default=False)

# Websockets are opened only from the site's own pages: the Origin a browser sends must be one
# of these, scheme, host and port alike (a page on another port is another origin); by
# default SITE_URL's (and the test client's). In development the origin of the address a
# socket was opened at passes too, if its host is in ALLOWED_HOSTS (wordduel/origins.py), so
# `make run` on any port, at localhost or 127.0.0.1, serves boards that connect.
_SITE_ORIGIN = "://".join(urlsplit(SITE_URL)[:2])
WEBSOCKET_ALLOWED_ORIGINS = env_list(
    "WEBSOCKET_ALLOWED_ORIGINS", default=f"{_SITE_ORIGIN},http://testserver"
)
WEBSOCKET_ALLOW_OWN_ORIGIN = DEBUG
# Per client address (an IPv6 client's whole /64), counted in the cache's Redis across every
# web process (matches/live/floodgate.py; PROTOCOL.md "Flood control"): the sockets it holds open
# at once, the new sockets it opens a minute, its sync frames a minute; and each socket's
# syncs a minute. A dead process's sockets give their slots back after WS_SOCKET_SLOT_SECONDS.
WS_MAX_SOCKETS_PER_ADDRESS = int(os.environ.get("WS_MAX_SOCKETS_PER_ADDRESS", "100"))
WS_NEW_SOCKETS_PER_MINUTE = int(os.environ.get("WS_NEW_SOCKETS_PER_MINUTE", "120"))
WS_SYNCS_PER_MINUTE_PER_ADDRESS = int(os.environ.get("WS_SYNCS_PER_MINUTE_PER_ADDRESS", "300"))
WS_SYNCS_PER_MINUTE_PER_SOCKET = int(os.environ.get("WS_SYNCS_PER_MINUTE_PER_SOCKET", "12"))
WS_SOCKET_SLOT_SECONDS = float(os.environ.get("WS_SOCKET_SLOT_SECONDS", "60"))
# Websocket flood control per socket (matches/live/consumer.py; PROTOCOL.md "Flood control").
WS_RATE_BURST = int(os.environ.get("WS_RATE_BURST", "30"))
WS_RATE_PER_SECOND = float(os.environ.get("WS_RATE_PER_SECOND", "10"))
WS_FLOOD_CLOSE_AFTER = int(os.environ.get("WS_FLOOD_CLOSE_AFTER", "100"))

# Structured logs (common/logs.py): JSON lines in production, readable ones in development,
# each with its request id. LOG_FORMAT=json|text overrides the choice.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text" if DEBUG else "json")
LOGGING = logging_config(json_lines=LOG_FORMAT == "json", level=os.environ.get("LOG_LEVEL", "INFO"))

# Error reporting (optional): Sentry when SENTRY_DSN is set; nothing at all without it.
SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
if SENTRY_DSN:
    import sentry_sdk

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        environment=os.environ.get("SENTRY_ENVIRONMENT", "production"),
        traces_sample_rate=float(os.environ.get("SENTRY_TRACES_SAMPLE_RATE", "0")),
        send_default_pii=False,  # no addresses, cookies or viewing keys leave the site
    )

# Celery: Redis as broker. Without REDIS_URL (the quick start) the clock sweeps run
# in-process instead, so there is no broker to reach.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL or "memory://")
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A task is queued inside a commit's request (a notice, the computer's turn): a Redis that
# stops answering must cost that request seconds, not hang it (and a socket's ack with it).
# What could not be queued is picked up by the sweeps. The read timeout must outlast the
# worker's blocking pop of 1 s.
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
    "socket_timeout": 5,
    "socket_connect_timeout": 5,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 1,
}
# Several stacks (or test runs) on one Redis each keep their queues, pings and results apart.
if os.environ.get("CELERY_KEY_PREFIX"):
    CELERY_BROKER_TRANSPORT_OPTIONS["global_keyprefix"] = os.environ["CELERY_KEY_PREFIX"]
# Beat records each tick for /healthz (wordduel/celery.py).
CELERY_BEAT_SCHEDULER = "wordduel.celery:TickRecordingScheduler"
# /healthz: how long to wait for a worker's answer to a ping, and how old beat's last tick
# may be before beat counts as stopped (it ticks at least every CLOCK_SWEEP_SECONDS).
HEALTH_WORKER_PING_SECONDS = float(os.environ.get("HEALTH_WORKER_PING_SECONDS", "2"))
HEALTH_BEAT_STALE_SECONDS = float(os.environ.get("HEALTH_BEAT_STALE_SECONDS", "60"))
# The operator's token: a /healthz request carrying it (Authorization: Bearer ...) is also told
# which host and process answered. Empty: nobody is.
HEALTH_TOKEN = os.environ.get("HEALTH_TOKEN", "")

# How often the clock sweeps run. Kick-off opening must reach watchers within 5 s of the
# time, so the sweeps run every 2 s and expire after 2 s: a backlog never piles up, and a
# missed sweep changes nothing because every decision is also taken lazily.
CLOCK_SWEEP_SECONDS = float(os.environ.get("CLOCK_SWEEP_SECONDS", "2"))
CELERY_BEAT_SCHEDULE = {
    name: {
        "task": f"matches.{name}",
        "schedule": CLOCK_SWEEP_SECONDS,
        "options": {"expires": CLOCK_SWEEP_SECONDS},
    }
    for name in (
        "open_due_matches",
        "default_no_shows",
        "close_challenge_windows",
        "forfeit_stalled_matches",
    )
}
# Word Skill rounds (rounds/tasks.py): the rounds whose players have all finished, or whose
# deadline passed, close on the clock sweep's beat.
CELERY_BEAT_SCHEDULE["rounds.close_due_rounds"] = {
    "task": "rounds.close_due_rounds",
    "schedule": CLOCK_SWEEP_SECONDS,
    "options": {"expires": CLOCK_SWEEP_SECONDS},
}
# Word Skill tournaments' sessions kick off (rounds/services/series.py) on the same beat.
CELERY_BEAT_SCHEDULE["rounds.open_due_sessions"] = {
    "task": "rounds.open_due_sessions",
    "schedule": CLOCK_SWEEP_SECONDS,
    "options": {"expires": CLOCK_SWEEP_SECONDS},
}
# Notices (notifications/sweeps.py): forfeit warnings, kick-off reminders, digests, and
# deliveries whose time came, once a minute.
NOTIFY_SWEEP_SECONDS = float(os.environ.get("NOTIFY_SWEEP_SECONDS", "60"))
CELERY_BEAT_SCHEDULE["notifications.sweep"] = {
    "task": "notifications.sweep",
    "schedule": NOTIFY_SWEEP_SECONDS,
    "options": {"expires": NOTIFY_SWEEP_SECONDS},
}
# Notices committed within this many seconds of each other in one process go to Celery as one
# task (notifications/batching.py): a broker message per window, not per move. 0: one each.
NOTICE_DISPATCH_WINDOW_SECONDS = float(os.environ.get("NOTICE_DISPATCH_WINDOW_SECONDS", "0.25"))
# Practice: a computer's move whose task was lost (a broker outage) is made by this sweep.
CELERY_BEAT_SCHEDULE["practice.requeue_stalled_turns"] = {
    "task": "practice.requeue_stalled_turns",
    "schedule": 10.0,
    "options": {"expires": 10.0},
}
# The quick start has no broker: a notice's task runs in the process, after the commit.
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
if CELERY_TASK_ALWAYS_EAGER:
    # A task run in the process logs a "succeeded" line each time: noise on the quick start's
    # console, where the emails themselves are what a newcomer wants to read.
    LOGGING["loggers"]["celery.app.trace"] = {"level": "WARNING"}
# The queue tasks go to (test runs sharing one Redis each use their own).
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
# Run the sweeps in a thread of the web process (the quick start has no Celery).
CLOCK_IN_PROCESS = env_bool("CLOCK_IN_PROCESS", default=not REDIS_URL)

# The rules clock, as data (RULES.md "The clock").
NO_SHOW_WINDOW = timedelta(minutes=15)
FORFEIT_AFTER = timedelta(days=3)
# Days away a member may declare per tournament (its whole run), unless its organiser sets
# another allowance (vacations app; RULES.md "Vacation").
VACATION_DAYS_PER_TOURNAMENT = 10

# Notices by email (docs/NOTIFICATIONS.md): SMTP when EMAIL_HOST is set, else the console
# (the quick start prints each email where the server runs).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=EMAIL_PORT == 587)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", default=EMAIL_PORT == 465)
EMAIL_TIMEOUT = float(os.environ.get("EMAIL_TIMEOUT", "20"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Word Duel <noreply@localhost>")
CALENDAR_UID_DOMAIN = os.environ.get("CALENDAR_UID_DOMAIN", "wordduel.invalid")
# Web push with VAPID (`manage.py vapid_keys` makes a pair); without keys push is off.
VAPID_PUBLIC_KEY = os.environ.get("VAPID_PUBLIC_KEY", "")
VAPID_PRIVATE_KEY = os.environ.get("VAPID_PRIVATE_KEY", "")
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "mailto:admin@localhost")
# The push services a browser's subscription may point at (the server posts there).
WEB_PUSH_HOSTS = env_list(
    "WEB_PUSH_HOSTS",
    default="fcm.googleapis.com,updates.push.services.mozilla.com,push.services.mozilla.com,"
    "notify.windows.com,push.apple.com",
)

# ---------------------------------------------------------------- bounded work per member
# Work that waits on other people's servers (web pushes) or takes seconds of CPU (finding the
# best plays of an imported game) has a Celery queue of its own beside the default one, named
# after it (CELERY_QUEUE.push, CELERY_QUEUE.imports; wordduel/celery.py routes the tasks), so
# that it never holds up the clock's sweeps and the computer's moves. A worker started without
# --queues reads all three; docker-compose.yml gives each its own worker.
CELERY_TASK_QUEUES = [
    Queue(name)
    for name in (
        CELERY_TASK_DEFAULT_QUEUE,
        f"{CELERY_TASK_DEFAULT_QUEUE}.push",
        f"{CELERY_TASK_DEFAULT_QUEUE}.imports",
    )
]
# Imported games (docs/RULES.md section 14): imports a member may make a day, the move
# generator's time and number of moves for one import, and how long a queued or running
# analysis may go unfinished before beat's sweep queues it again (its worker died, or its
# task was lost).
IMPORT_DAILY_LIMIT = int(os.environ.get("IMPORT_DAILY_LIMIT", "20"))
IMPORT_ANALYSIS_SECONDS = float(os.environ.get("IMPORT_ANALYSIS_SECONDS", "20"))
IMPORT_ANALYSIS_MAX_MOVES = int(os.environ.get("IMPORT_ANALYSIS_MAX_MOVES", "60"))
IMPORT_STALLED_AFTER_SECONDS = float(os.environ.get("IMPORT_STALLED_AFTER_SECONDS", "600"))
CELERY_BEAT_SCHEDULE["imports.requeue_stalled"] = {
    "task": "imports.requeue_stalled",
    "schedule": 60.0,
    "options": {"expires": 60.0},
}
# Practice matches a member may have unfinished at once (docs/RULES.md section 16).
PRACTICE_MAX_UNFINISHED = int(os.environ.get("PRACTICE_MAX_UNFINISHED", "3"))
# Guests (visitors playing the computer without an account, docs/RULES.md section 16): games
# one address may start a day, and the days without a move after which beat's sweep deletes
# a guest and its games (hourly, GUEST_SWEEP_SECONDS).
GUEST_MATCHES_PER_ADDRESS_DAY = int(os.environ.get("GUEST_MATCHES_PER_ADDRESS_DAY", "10"))
GUEST_IDLE_DAYS = int(os.environ.get("GUEST_IDLE_DAYS", "7"))
GUEST_SWEEP_SECONDS = float(os.environ.get("GUEST_SWEEP_SECONDS", "3600"))
CELERY_BEAT_SCHEDULE["practice.sweep_idle_guests"] = {
    "task": "practice.sweep_idle_guests",
    "schedule": GUEST_SWEEP_SECONDS,
    "options": {"expires": GUEST_SWEEP_SECONDS},
}
# Web push (docs/NOTIFICATIONS.md): browsers a member may subscribe (a new one replaces the
# oldest), the seconds a push service has to answer, and how late a push may be before
# /healthz says so.
PUSH_SUBSCRIPTIONS_PER_MEMBER = int(os.environ.get("PUSH_SUBSCRIPTIONS_PER_MEMBER", "10"))
WEB_PUSH_TIMEOUT_SECONDS = float(os.environ.get("WEB_PUSH_TIMEOUT_SECONDS", "3"))
HEALTH_PUSH_LATE_SECONDS = float(os.environ.get("HEALTH_PUSH_LATE_SECONDS", "300"))
# The account mails the site sends (docs/RULES.md section 2): password-reset links per
# address mailed and per address asking, in an hour; confirmation links per member, and
# account mails of any kind per address mailed, in a day.
PASSWORD_RESET_MAILS_PER_ADDRESS = int(os.environ.get("PASSWORD_RESET_MAILS_PER_ADDRESS", "3"))
PASSWORD_RESET_REQUESTS_PER_CLIENT = int(os.environ.get("PASSWORD_RESET_REQUESTS_PER_CLIENT", "10"))
EMAIL_CONFIRMATIONS_PER_MEMBER = int(os.environ.get("EMAIL_CONFIRMATIONS_PER_MEMBER", "5"))
ACCOUNT_MAILS_PER_ADDRESS = int(os.environ.get("ACCOUNT_MAILS_PER_ADDRESS", "3"))
