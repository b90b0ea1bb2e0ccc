# Offline recipe: Debian bookworm's CPython 3.11 (python3 on PATH) with the pinned NumPy and Numba of
# requirements.txt. `hpceval images build --offline` installs them into site-packages/ of the build context with
# the host's pip (wheels only, for this CPython), so this build reaches only Debian's mirror.
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
COPY site-packages/ /usr/local/lib/python3.11/dist-packages/
RUN python3 -c "import numba, numpy"
LABEL org.hpceval.probe="python3 -c 'import sys, numpy, numba; print(\"python\", sys.version.split()[0], \"numpy\", numpy.__version__, \"numba\", numba.__version__)'"
USER 65534:65534
WORKDIR /w
