# syntax=docker/dockerfile:1

# Build stage: install the package and its dependencies into a virtualenv that is copied whole.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
RUN python -m venv /opt/venv && /opt/venv/bin/pip install .

FROM python:3.11-slim
# Production refuses to start without a strong SCOREBOARD_ADMIN_TOKEN: pass one with -e.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    SCOREBOARD_ENVIRONMENT=production
RUN groupadd --system scoreboard \
    && useradd --system --gid scoreboard --home-dir /var/lib/scoreboard --shell /usr/sbin/nologin scoreboard \
    && install -d -o scoreboard -g scoreboard -m 0750 /var/lib/scoreboard
COPY --from=build /opt/venv /opt/venv
# The wheel carries the migrations; the server applies them at start-up (or `scoreboard migrate`).

USER scoreboard
# The default SQLite database (./scoreboard.db) lands here; mount a volume to keep it.
WORKDIR /var/lib/scoreboard
VOLUME ["/var/lib/scoreboard"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/health', timeout=3)"]
CMD ["scoreboard", "serve", "--host", "0.0.0.0", "--port", "8000"]
