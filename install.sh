#!/usr/bin/env bash
# Install hpceval and the CPU toolchains it drives on Debian/Ubuntu (run as root or with sudo).
#   ./install.sh            toolchains + hpceval with the embedded local model, reports, Docker SDK and tests
#   ./install.sh --minimal  toolchains + hpceval only
# llama-cpp-python is taken from ../shared/wheels when that folder exists, else compiled from source (~5 min).
set -euo pipefail
cd "$(dirname "$0")"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
APT_PACKAGES=(
  g++ gfortran make cmake                              # OpenMP / OpenACC (gcc host fallback), Fortran, Kokkos build
  clang-16 libomp-16-dev clang-tools-16 libffi-dev     # OpenMP offload to an x86-64 device (a separate address space)
  libtbb-dev                                           # Numba's threading layer
  llvm-16-dev libclang-16-dev libboost-context-dev libboost-fiber-dev  # SYCL: the AdaptiveCpp build (with clang-16)
  libclang-rt-16-dev                                   # SYCL: AddressSanitizer runtime (the second validation run)
)
[ "${1:-}" = "--minimal" ] || APT_PACKAGES+=(
  chromium                                             # the HTML leaderboard test renders in headless Chromium
  docker.io debootstrap                                # --executor docker and the offline image build
  slurm-wlm munge                                      # the --cluster slurm test: a single-node Slurm cluster
)
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${APT_PACKAGES[@]}" >/dev/null
PIP=(python3 -m pip install -q)
WHEELS=()
[ -d ../shared/wheels ] && WHEELS=(--find-links ../shared/wheels)
if [ "${1:-}" = "--minimal" ]; then
  "${PIP[@]}" -e .
else
  "${PIP[@]}" "${WHEELS[@]}" -e '.[local,report,test,docker,dask]'
fi
hpceval doctor || true
