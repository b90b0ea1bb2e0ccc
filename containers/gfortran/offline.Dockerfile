# Offline recipe: Debian bookworm's gfortran 12 on top of the offline gcc image (shares its layers).
ARG BASE
FROM ${BASE}
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends gfortran \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
LABEL org.hpceval.probe="echo gfortran \$(gfortran -dumpfullversion)"
USER 65534:65534
WORKDIR /w
