#!/usr/bin/env bash
# Makes the virtual environment the Python benchmarks compare cgrad in (bench/python/*.py):
# build/peers-venv, with the cgrad wheel built from ./python and the peers from PyPI (NumPy,
# jax with its CPU jaxlib, and torch unless BENCH_PEERS_TORCH=0: PyPI's torch brings its CUDA
# libraries, about 3 GB). Prints the venv's python on its last line. `BENCH_PYTHON=auto
# bench/run.sh` calls it. Versions: the newest on PyPI when it runs; the benchmarks print them.
#
# usage: bench/python/peers_venv.sh [venv dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${1:-$PWD/build/peers-venv}
py="${CGRAD_PYTHON:-$(command -v python3.11 || command -v python3)}"
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
pip() { "$venv/bin/python" -m pip -q --disable-pip-version-check "$@"; }
pip install scikit-build-core nanobind numpy "jax[cpu]" >&2
if [ "${BENCH_PEERS_TORCH:-1}" != 0 ]; then pip install torch >&2; fi
if command -v ccache >/dev/null && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
fi
# The wheel of this checkout, rebuilt every time (incremental: python/build/<tag> is kept).
pip install --no-build-isolation --force-reinstall --no-deps ./python >&2
"$venv/bin/python" -c 'import cgrad, numpy, jax; print("peers venv:", "numpy", numpy.__version__, "jax", jax.__version__)' >&2
echo "$venv/bin/python"
