#!/usr/bin/env bash
# Installs the Debian packages cgrad needs to build and test. Run as root it uses apt-get;
# otherwise it lists what is missing and how to install it, and fails.
#   tools/install_deps.sh            build + test dependencies
#   tools/install_deps.sh --bench    also the libraries the benchmarks compare against
set -euo pipefail

pkgs=(g++ cmake ninja-build libgtest-dev libgmock-dev libboost-dev clang clang-format graphviz libopenblas0 libopenmpi-dev openmpi-bin
      ccache  # tools/test.sh: rebuilds of unchanged sources
      libclang-rt-dev  # clang's sanitizer runtimes (the asan-ubsan preset builds with clang++)
      python3-dev python3-venv)  # the last two: the Python package (tools/test_python.sh)
if [[ "${1:-}" == "--bench" ]]; then
  pkgs+=(libeigen3-dev libbenchmark-dev)
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  echo "cgrad: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "cgrad: missing Debian packages: ${missing[*]}" >&2
  echo "cgrad: install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
