"""`make stack`: the production shape on one machine, from Debian's packages.

Caddy in front (TLS from a local certificate), two Daphne processes behind it (started with
--proxy-headers, DEBUG off, a real secret, hashed static files), three Celery workers (the
default queue's, web pushes', imports' analyses') and one beat, on the machine's PostgreSQL
and Redis:

* the database is a database of its own on DATABASE_URL's server (``wordduel_stack``,
  created if missing; STACK_DATABASE_URL names another);
* Redis is REDIS_URL's server and database, with prefixes of its own for the channel layer,
  the cache and Celery's keys and queue (``wordduel-stack``; STACK_PREFIX), so it shares
  nothing with a development server or a test run on the same Redis.

Everything it starts runs under ``setpriv --pdeathsig KILL`` (it dies with this script) in
a session of its own, and is stopped by its PID on SIGTERM or Ctrl-C. Logs, the certificate,
the secret key, the collected static files and ``stack.json`` (the URL and every PID) are
in STACK_DIR (default ``.stack/``). The stack is ready when ``/healthz`` through the proxy
reports every part well; then it prints ``stack: ready at <url>``.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
STOP_GRACE_SECONDS = 10
#: The Celery workers: name, the queue each reads (after the default queue's name, which is
#: STACK_PREFIX) and its threads.
WORKERS = (("worker", "", 4), ("push-worker", ".push", 4), ("import-worker", ".imports", 1))


def say(message: str) -> None:
    sys.stdout.write(f"stack: {message}\n")
    sys.stdout.flush()


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))


def ensure_caddy() -> str:
    found = shutil.which("caddy")
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise SystemExit("stack: needs Debian's caddy (apt-get install caddy)")
    say("installing Debian's caddy")
    subprocess.run(["apt-get", "update", "-qq"], check=True, stdout=subprocess.DEVNULL)  # noqa: S607
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "caddy"],  # noqa: S607
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )
    return shutil.which("caddy") or "caddy"


def ensure_certificate(directory: Path, host: str) -> tuple[Path, Path]:
    """A self-signed certificate for ``host`` (made once; clients trust this file)."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    if not cert.exists() or not key.exists():
        subprocess.run(  # noqa: S603
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "365",  # noqa: S607
             "-subj", f"/CN={host}",
             "-addext", f"subjectAltName=IP:{host},DNS:localhost",
             "-keyout", str(key), "-out", str(cert)],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        key.chmod(0o600)
    return cert, key


def ensure_secret_key(directory: Path) -> str:
    given = os.environ.get("SECRET_KEY")
    if given:
        return given
    path = directory / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


def ensure_database(url: str) -> None:
    import psycopg  # noqa: PLC0415 - only this script's parent needs it

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            return
        say(f"creating database {name}")
        conn.execute(f'CREATE DATABASE "{name}"')


class Stack:
    def __init__(self) -> None:
        self.dir = Path(os.environ.get("STACK_DIR", ROOT / ".stack")).resolve()
        self.logs = self.dir / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.host = "127.0.0.1"
        self.https_port = int(os.environ.get("STACK_HTTPS_PORT", "8443"))
        self.web_ports = [int(p) for p in os.environ.get("STACK_WEB_PORTS", "8101,8102").split(",")]
        self.url = f"https://{self.host}:{self.https_port}"
        server = os.environ.get("DATABASE_URL", "postgres://root@127.0.0.1:5432/wordduel")
        self.database_url = os.environ.get("STACK_DATABASE_URL") or with_database(
            server, "wordduel_stack"
        )
        self.redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
        self.prefix = os.environ.get("STACK_PREFIX", "wordduel-stack")
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.stopping = False

    def app_env(self, application_name: str) -> dict[str, str]:
        """The environment of every application process: production settings."""
        env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "LOG_FORMAT"}}
        separator = "&" if "?" in self.database_url else "?"
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "wordduel.settings",
                "SECRET_KEY": self.secret_key,
                "DATABASE_URL": (
                    f"{self.database_url}{separator}application_name={application_name}"
                ),
                "REDIS_URL": self.redis_url,
                "CELERY_BROKER_URL": self.redis_url,
                "CHANNEL_LAYER_PREFIX": self.prefix,
                "CACHE_PREFIX": self.prefix,
                "CELERY_KEY_PREFIX": f"{self.prefix}:",
                "CELERY_QUEUE": self.prefix,
                "ALLOWED_HOSTS": f"{self.host},localhost",
                "CSRF_TRUSTED_ORIGINS": self.url,
                "WEBSOCKET_ALLOWED_ORIGINS": self.url,
                "SITE_URL": self.url,
                "TRUSTED_PROXY_COUNT": "1",
                "CLOCK_IN_PROCESS": "0",
                "CELERY_TASK_ALWAYS_EAGER": "0",
                "STATIC_ROOT": str(self.dir / "static"),
                "PYTHONUNBUFFERED": "1",
            }
        )
        return env

    def run(self, argv: list[str], env: dict[str, str]) -> None:
        result = subprocess.run(  # noqa: S603 - our own argv
            argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False
        )
        if result.returncode != 0:
            raise SystemExit(
                f"stack: {' '.join(argv[1:4])} failed:\n{result.stdout}{result.stderr}"
            )

    def spawn(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        setpriv = shutil.which("setpriv")
        command = [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else argv
        with (self.logs / f"{name}.log").open("ab") as log:
            self.processes[name] = subprocess.Popen(  # noqa: S603 - our own argv
                command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def start(self) -> None:
        caddy = ensure_caddy()
        cert, key = ensure_certificate(self.dir, self.host)
        self.secret_key = ensure_secret_key(self.dir)
        if not os.environ.get("STACK_DATABASE_URL"):
            ensure_database(self.database_url)
        release = self.app_env("release")
        say("migrating and collecting static files")
        self.run([PYTHON, "manage.py", "migrate", "--noinput"], release)
        self.run([PYTHON, "manage.py", "collectstatic", "--noinput", "--clear"], release)

        for number, port in enumerate(self.web_ports, start=1):
            self.spawn(
                f"web-{number}",
                [PYTHON, "-m", "wordduel.serve", "--proxy-headers",
                 "-b", self.host, "-p", str(port), "wordduel.asgi:application"],
                self.app_env(f"web-{number}"),
            )  # fmt: skip
        # The clock's worker reads the default queue; web pushes and imports' analyses each
        # have a worker of their own (docker-compose.yml's shape).
        for name, queue, threads in WORKERS:
            self.spawn(
                name,
                [PYTHON, "-m", "celery", "-A", "wordduel", "worker", "--pool=threads",
                 f"--concurrency={threads}", f"--queues={self.prefix}{queue}",
                 "-n", f"{self.prefix}-{name}@%h", "--loglevel=INFO"],
                {**self.app_env(name), "DB_POOL_MIN": "1", "DB_POOL_MAX": str(threads)},
            )  # fmt: skip
        self.spawn(
            "beat",
            [PYTHON, "-m", "celery", "-A", "wordduel", "beat", "--loglevel=INFO",
             "--schedule", str(self.dir / "celerybeat-schedule")],
            self.app_env("beat"),
        )  # fmt: skip
        upstreams = " ".join(f"{self.host}:{port}" for port in self.web_ports)
        self.spawn(
            "proxy",
            [caddy, "run", "--adapter", "caddyfile", "--config", str(ROOT / "deploy/Caddyfile")],
            {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "HOME": str(self.dir),
                "XDG_DATA_HOME": str(self.dir / "caddy"),
                "XDG_CONFIG_HOME": str(self.dir / "caddy"),
                "SITE_ADDRESS": self.url,
                "TLS": f"tls {cert} {key}",
                "UPSTREAMS": f"to {upstreams}",
                "STATIC_ROOT": str(self.dir / "static"),
                "GLOBAL_OPTIONS": "admin off\nauto_https disable_redirects",
            },
        )
        self.write_state()
        self.wait_healthy(cert, timeout=float(os.environ.get("STACK_START_TIMEOUT", "120")))
        say(f"ready at {self.url} (logs in {self.logs}; stop with Ctrl-C)")

    def write_state(self) -> None:
        state = {
            "url": self.url,
            "certificate": str(self.dir / "cert.pem"),
            "database_url": self.database_url,
            "prefix": self.prefix,
            "web_ports": self.web_ports,
            "pids": {name: process.pid for name, process in self.processes.items()},
            "logs": str(self.logs),
            "supervisor": os.getpid(),
        }
        (self.dir / "stack.json").write_text(json.dumps(state, indent=2))

    def health(self, cert: Path) -> tuple[int, dict[str, Any]]:
        context = ssl.create_default_context(cafile=str(cert))
        opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=context)
        )
        try:
            with opener.open(f"{self.url}/healthz", timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")
        except (OSError, ValueError) as error:
            return 0, {"error": str(error)}

    def wait_healthy(self, cert: Path, *, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        status, body = 0, {}
        while time.monotonic() < deadline:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    log = (self.logs / f"{name}.log").read_text(errors="replace")[-3000:]
                    raise SystemExit(f"stack: {name} exited at start:\n{log}")
            status, body = self.health(cert)
            if status == 200:
                return
            time.sleep(0.5)
        raise SystemExit(f"stack: not healthy after {timeout:.0f} s: {status} {body}")

    def stop(self) -> None:
        """SIGTERM to each process group we started (the proxy first), SIGKILL after grace."""
        self.stopping = True
        webs = [n for n in self.processes if n.startswith("web-")]
        order = ["proxy", *webs, *(name for name, _queue, _threads in WORKERS), "beat"]
        for name in order:
            process = self.processes.get(name)
            if process is not None and process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for name in order:
            process = self.processes.get(name)
            if process is None:
                continue
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        say("stopped")

    def watch(self) -> None:
        """Until told to stop: report any process that ends (a supervisor would restart it)."""
        reported: set[str] = set()
        while not self.stopping:
            for name, process in self.processes.items():
                if process.poll() is not None and name not in reported:
                    reported.add(name)
                    say(f"{name} (pid {process.pid}) exited with {process.returncode}")
            time.sleep(0.5)


def main() -> None:
    stack = Stack()

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        stack.start()
        stack.watch()
    except KeyboardInterrupt:
        pass
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
