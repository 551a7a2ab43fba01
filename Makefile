# The two set-up commands: `make run` and `make test`. Everything they need, they install.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export DATABASE_URL ?= postgres://root@127.0.0.1:5432/wordduel
export REDIS_URL ?= redis://127.0.0.1:6379/0

.PHONY: install lock run test check lint typecheck format bench chromium test-packages check-packages reliability reliability-long audit stack backup restore

# Every dependency comes from uv.lock (exact versions and hashes, for Python 3.11 to 3.13),
# installed by uv into .venv; the project itself editable. A pyproject.toml whose
# dependencies the lock does not match stops here: edit pyproject.toml, then `make lock`.
UV_VERSION := 0.13.9
UV := $(BIN)/uv
UV_STAMP := $(VENV)/.uv-$(UV_VERSION)
export UV_PYTHON_DOWNLOADS := never
# Compiled once: the packages at install (uv), our own modules on first import. Some machines
# set PYTHONDONTWRITEBYTECODE, so every process (each test worker, each Daphne and Celery a
# test starts) would compile everything again on every start.
export UV_COMPILE_BYTECODE := 1
unexport PYTHONDONTWRITEBYTECODE

$(UV_STAMP):
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q uv==$(UV_VERSION)
	touch $(UV_STAMP)

$(STAMP): pyproject.toml uv.lock $(UV_STAMP)
	@$(UV) lock --check --offline --quiet 2>/dev/null || $(UV) lock --check --quiet || { \
	  echo "make: uv.lock does not match pyproject.toml: run make lock (and commit uv.lock)" >&2; \
	  exit 1; }
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --locked --inexact --extra dev --quiet
	touch $(STAMP)

install: $(STAMP)

# After editing the dependencies in pyproject.toml: resolve them again into uv.lock.
lock: $(UV_STAMP)
	$(UV) lock

# Quick start: SQLite, the in-memory channel layer, the clock sweeping in-process.
# A development server: DEBUG on (deployments leave it off). It serves at BIND:PORT
# (`make run PORT=8123`; BIND=0.0.0.0 for other machines, with ALLOWED_HOSTS naming this
# one); the links it prints and sends follow (SITE_URL), and so do the origins its sockets
# may come from (in development, a page's own: wordduel/origins.py).
BIND ?= 127.0.0.1
PORT ?= 8000
RUN_SITE_URL = http://$(if $(filter 0.0.0.0,$(BIND)),127.0.0.1,$(BIND)):$(PORT)
run: export DEBUG = 1
run: export SITE_URL ?= $(RUN_SITE_URL)
run: $(STAMP)
	env -u DATABASE_URL -u REDIS_URL $(BIN)/python manage.py migrate --noinput
	env -u DATABASE_URL -u REDIS_URL $(BIN)/python manage.py demo --if-empty --host "$$SITE_URL"
	env -u DATABASE_URL -u REDIS_URL $(BIN)/python manage.py demo_ratings --if-empty
	env -u DATABASE_URL -u REDIS_URL $(BIN)/python -m wordduel.serve -b $(BIND) -p $(PORT) \
	  wordduel.asgi:application

# Debian packages the tests use, installed when missing before any test starts (no test
# installs anything; one that finds its package missing fails saying so): Chromium for the
# browser tests, Caddy for the proxy's configuration and the production-shape tests,
# PostgreSQL's and Redis's servers for the test of throwaway services (scripts/with-services.sh).
CHECK_PACKAGES := caddy
TEST_PACKAGES := chromium caddy 'postgresql=/usr/lib/postgresql/*/bin/initdb' redis-server
test-packages:
	@scripts/system-packages.sh $(TEST_PACKAGES)
check-packages:
	@scripts/system-packages.sh $(CHECK_PACKAGES)
chromium:
	@scripts/system-packages.sh chromium

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	DEBUG=1 $(BIN)/mypy common engine wordduel accounts lexicon matches tournaments ratings imports notifications practice analysis vacations challenges rounds

# The fast loop: lint, types, and every test that needs neither a browser nor fault
# injection, at the quick depth (fewer repetitions of the randomised ones), on both cores.
# Under 90 seconds; `make test` is still what must pass before anything lands.
CHECK_SELECTION := tests --ignore=tests/e2e --ignore=tests/reliability -m "not slow and not browser"
check: $(STAMP) check-packages lint typecheck
	WORDDUEL_TEST_DEPTH=quick scripts/with-services.sh $(BIN)/python -m pytest -q -n 2 \
	  -p no:cacheprovider $(CHECK_SELECTION)

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The whole suite against PostgreSQL and Redis (throwaway ones when nothing answers), as two
# pytest runs side by side (scripts/test-suite.sh says why): everything but the fault suite on
# both cores, and beside it the fault/soak/fuzz suite (short profile) one test at a time.
test: $(STAMP) test-packages lint
	scripts/with-services.sh scripts/test-suite.sh $(BIN)/python

# Secrecy proven by two worlds (docs/RULES.md, section 5; tests/secrecy): every viewer gets
# the same bytes on every channel from two matches that differ only in what the policy keeps
# from them, and a leak planted in each channel, in three spellings, is caught. On both
# cores, the tests that share worlds in one process (--dist loadgroup).
.PHONY: secrecy
secrecy: $(STAMP)
	scripts/with-services.sh $(BIN)/python -m pytest -q -p no:cacheprovider -n 2 \
	  --dist loadgroup tests/secrecy

# The fault/soak/fuzz suite alone: the short profile (as in `make test`) ...
reliability: $(STAMP) test-packages
	scripts/with-services.sh $(BIN)/python -m pytest tests/reliability

# ... and the long one, on demand (docs/RELIABILITY.md gives the figures of both).
LONG_PROFILE := SOAK_MATCHES=60 SOAK_SECONDS=900 FUZZ_EXAMPLES=400
reliability-long: $(STAMP) test-packages
	env $(LONG_PROFILE) RELIABILITY_FIGURES=$${RELIABILITY_FIGURES:-reliability-long.jsonl} \
	  scripts/with-services.sh $(BIN)/python -m pytest tests/reliability -p no:cacheprovider

# The production shape on this machine (scripts/stack.py): Caddy with TLS from a local
# certificate, two Daphne processes, a Celery worker and one beat, on the machine's
# PostgreSQL (database wordduel_stack) and Redis (prefixes wordduel-stack). Ctrl-C stops it.
stack: $(STAMP)
	$(BIN)/python scripts/stack.py

# Back up / restore a database (docs/OPERATIONS.md): the native stack's unless BACKUP_DB says.
BACKUP_DB ?= postgres://root@127.0.0.1:5432/wordduel_stack
BACKUP_FILE ?= backups/wordduel-$(shell date -u +%Y%m%dT%H%M%SZ).dump
backup:
	scripts/backup.sh "$(BACKUP_DB)" "$(BACKUP_FILE)"
restore:
	@test -n "$(FILE)" || { echo "usage: make restore FILE=backups/wordduel-....dump"; exit 2; }
	scripts/restore.sh "$(BACKUP_DB)" "$(FILE)"

# The bench's processes run as deployed (DEBUG off: no query log in the timings), under a
# throwaway key of this run's own.
bench: export DEBUG = 0
bench: export SECRET_KEY = $(shell python3 -c "import secrets; print(secrets.token_urlsafe(50))")
bench: $(STAMP)
	scripts/with-services.sh $(BIN)/python bench/run_all.py

# Known vulnerabilities in the pinned dependencies (needs pypi.org's JSON API or OSV;
# docs/RELIABILITY.md says why it could not run on the development machine).
audit: $(STAMP)
	$(BIN)/python -m pip install -q pip-audit==2.10.1
	$(BIN)/python -m pip freeze --exclude-editable > $(VENV)/requirements-audit.txt
	$(BIN)/python -m pip_audit --strict -r $(VENV)/requirements-audit.txt
