# One image for every application service (web, worker, beat, migrate, collectstatic):
# the dependencies exactly as uv.lock pins them (hashes checked), run as a user without
# rights to the code, with the hashed static files collected at build.
ARG PYTHON_IMAGE=python:3.11-slim

# The dependencies, installed by uv from the lock into /opt/venv (uv stays in this stage).
FROM ${PYTHON_IMAGE} AS dependencies
RUN pip install --no-cache-dir uv==0.13.9
WORKDIR /app
COPY pyproject.toml uv.lock ./
# --locked: a lock that does not match pyproject.toml fails the build (run `make lock`).
# The project itself is not installed: it runs from /app.
RUN UV_PROJECT_ENVIRONMENT=/opt/venv UV_PYTHON_DOWNLOADS=never UV_COMPILE_BYTECODE=1 \
    uv sync --locked --no-install-project --no-cache

FROM ${PYTHON_IMAGE}
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=wordduel.settings
# A user of its own. /static is the static volume's mount point: an empty volume takes this
# owner, so collectstatic, run as wordduel, may write there.
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin wordduel \
    && mkdir /static && chown wordduel:wordduel /static
COPY --from=dependencies /opt/venv /opt/venv
WORKDIR /app
COPY . .
# Hashed names and their manifest (ManifestStaticFilesStorage), which every web process
# reads. The settings refuse to load without a secret outside DEBUG: a throwaway one, used
# for this command only and never kept in the image.
RUN SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(50))')" \
    python manage.py collectstatic --noinput
USER wordduel
EXPOSE 8000
CMD ["python", "-m", "wordduel.serve", "--proxy-headers", "-b", "0.0.0.0", "-p", "8000", "wordduel.asgi:application"]
