# Offline recipe: clang 16 with OpenMP offload to an x86_64 "device" (libomptarget + clang-offload-packager),
# on top of the offline gcc image (libstdc++ headers, binutils).
ARG BASE
FROM ${BASE}
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends clang-16 libomp-16-dev clang-tools-16 \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
LABEL org.hpceval.probe="echo clang++-16 \$(clang++-16 -dumpversion)"
USER 65534:65534
WORKDIR /w
