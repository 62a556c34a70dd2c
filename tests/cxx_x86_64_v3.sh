#!/bin/sh
# A C++ driver for the JIT (CGRAD_CXX) that compiles kernels for x86-64-v3 (AVX2, FMA, F16C, no
# AVX-512) in place of -march=native, so that an AVX-512 machine also tests the kernels an AVX2
# machine compiles (their trig vector variants, f16 blocks). Where the CPU lacks one of those
# features the flags pass unchanged. The driver: $CGRAD_TEST_CXX, else c++. Its --version line
# names the target, so these kernels never share a cache key with -march=native ones.
cxx=${CGRAD_TEST_CXX:-c++}
if [ "$1" = "--version" ]; then
  "$cxx" --version | sed '1s/$/ [cgrad test driver: -march=x86-64-v3]/'
  exit 0
fi
if grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo && grep -qw f16c /proc/cpuinfo; then
  for a in "$@"; do
    shift
    if [ "$a" = "-march=native" ]; then set -- "$@" -march=x86-64-v3; else set -- "$@" "$a"; fi
  done
fi
exec "$cxx" "$@"
