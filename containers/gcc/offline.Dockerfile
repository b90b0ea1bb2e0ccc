# Offline recipe (hpceval images build --offline): Debian bookworm's g++ 12 on the debootstrap base.
# OpenMP via libgomp; OpenACC and OpenMP target run as GCC's host fallback (no offload plugin installed).
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends g++ libc6-dev \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
LABEL org.hpceval.probe="echo g++ \$(g++ -dumpfullversion)"
USER 65534:65534
WORKDIR /w
