# Offline recipe (hpceval images build --offline): Debian bookworm's g++ 12, which the debootstrap base already
# has (images.BASE_INCLUDE). OpenMP via libgomp; OpenACC and OpenMP target run as GCC's host fallback (no offload
# plugin installed).
ARG BASE
FROM ${BASE}
LABEL org.hpceval.probe="echo g++ \$(g++ -dumpfullversion)"
USER 65534:65534
WORKDIR /w
