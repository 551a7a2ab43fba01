FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml ./
COPY . .
RUN pip install --no-cache-dir . && python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["python", "-m", "wordduel.security", "-b", "0.0.0.0", "-p", "8000", "wordduel.asgi:application"]
