# Mirrors `make run`: the pinned requirements, graphviz and fonts, the app on port 8501.
FROM python:3.11-slim

RUN apt-get update \
    && apt-get install -y --no-install-recommends graphviz fonts-dejavu-core fonts-droid-fallback \
        libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 \
    && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 1000 forestviz
WORKDIR /home/forestviz/app

COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt

COPY --chown=forestviz:forestviz . .
USER forestviz
# compile ERF's numba kernels into their cache and build matplotlib's font list now, as
# `make run` does (docs/performance.md)
RUN python -c "import forestviz.app.warm, matplotlib.font_manager"
# and train the default model once, into a directory the app's user can write
# (forestviz.app.model_cache: the server loads it at its start instead of training it)
ENV FORESTVIZ_MODEL_CACHE=/home/forestviz/.cache/forestviz/models
RUN python -m forestviz.app.model_cache

# The model library (published models, the audit trail, the signing key) outside the
# container's writable layer: a volume (docker-compose.yml names it), owned by the app's user
ENV FORESTVIZ_DATA_DIR=/home/forestviz/library
RUN mkdir -p /home/forestviz/library /home/forestviz/.streamlit
VOLUME /home/forestviz/library

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health').status != 200)"

# Streamlit's command line through ui.launch, which starts loading the default model at once.
# On 0.0.0.0 the app starts only with sign-in: mount a secrets.toml with an [auth] section at
# /home/forestviz/.streamlit/secrets.toml (docker-compose.yml does). In local mode it refuses in
# one line (docs/security.md, "Who may reach the server"), unless
# FORESTVIZ_UNSAFE_LOCAL_MODE_ON_NETWORK=1 says to accept that anyone reaching the port is admin.
CMD ["python", "-m", "ui.launch", "run", "app.py", "--server.address", "0.0.0.0", "--server.port", "8501"]
