# Offline recipe: Debian bookworm's CPython 3.11 with NumPy and Numba in a venv at /opt/hpceval (python3 on PATH).
# `hpceval images build --offline` puts the pinned wheels of requirements.txt into wheels/ with the host's pip,
# so this build reaches only Debian's mirror; the wheels stay in the discarded build stage.
ARG BASE
FROM ${BASE} AS py
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 \
 && apt-get clean && rm -rf /var/lib/apt/lists/*

FROM py AS venv
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3-venv \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
COPY requirements.txt /tmp/requirements.txt
COPY wheels/ /tmp/wheels/
RUN python3 -m venv --without-pip /opt/hpceval \
 && python3 -m venv /tmp/pipenv \
 && /tmp/pipenv/bin/pip install --no-index --find-links /tmp/wheels --prefix /opt/hpceval -r /tmp/requirements.txt \
 && /opt/hpceval/bin/python -c "import numba, numpy"

FROM py
COPY --from=venv /opt/hpceval /opt/hpceval
ENV PATH=/opt/hpceval/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LABEL org.hpceval.probe="python3 -c 'import sys, numpy, numba; print(\"python\", sys.version.split()[0], \"numpy\", numpy.__version__, \"numba\", numba.__version__)'"
USER 65534:65534
WORKDIR /w
