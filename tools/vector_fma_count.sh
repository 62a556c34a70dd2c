#!/usr/bin/env bash
# FMAs per loop iteration of a kernel loop over each of cgrad's own float functions, as the JIT
# compiles it (its flags: src/backends/cpu/jit/compiler.cpp), in the vector body (zmm or ymm) and
# in the scalar remainder. Each function's formula has a known count (a polynomial of degree d is
# d FMAs); a vector count that is a multiple of it means GCC copied the polynomial into several
# paths (jump threading over a select made after it on the condition that chose its operand:
# docs/semantics.md, "f64 functions"). f32 functions computed in double take two double vectors
# per float vector, so their vector count is twice their scalar one.
#   tools/vector_fma_count.sh [-march=...] [FUNCTION...]   (default: native, the list below)
set -euo pipefail
cd "$(dirname "$0")/.."
march=-march=native
if [[ "${1:-}" == -march=* ]]; then march=$1; shift; fi
fns=("$@")
if [ ${#fns[@]} -eq 0 ]; then
  fns=(exp_f64 expm1_f64 tanh_f64 sinh_f64 cosh_f64 log_f64 log1p_f64 log2_f64 log10_f64 atan_f64
       asin_f64 acos_f64 atan2_f64 asinh_f64 acosh_f64 atanh_f64 pow_f64 tanh_f32 erf_f32 expm1_f32
       log1p_f32 sinh_f32 cosh_f32 log2_f32 log10_f32 atan_f32 asin_f32 acos_f32 atan2_f32 asinh_f32
       acosh_f32 atanh_f32 pow_f32 erf_f64)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "${fns[@]}"; do
  t=double args="x[i]"
  [[ $f == *_f32 ]] && t=float
  [[ $f == atan2_* || $f == pow_* ]] && args="x[i], x[i]"
  printf '#include <cgrad/scalar.hpp>\nvoid run(const %s* __restrict x, %s* __restrict y, long n) {\n#pragma omp simd\n  for (long i = 0; i < n; ++i) y[i] = cgrad::scalar::%s(%s);\n}\n' \
    "$t" "$t" "$f" "$args" >"$tmp/k.cpp"
  g++ -O3 "$march" -mprefer-vector-width=512 -std=c++17 -fno-math-errno -fno-trapping-math -fopenmp-simd \
    -ffp-contract=fast --param=vect-epilogues-nomask=0 -fno-schedule-insns2 -Iinclude -S "$tmp/k.cpp" -o "$tmp/k.s"
  vec=$(grep -E 'vf(n)?m(add|sub)[0-9]+p[sd]' "$tmp/k.s" | grep -cE 'zmm|ymm' || true)
  sca=$(grep -cE 'vf(n)?m(add|sub)[0-9]+s[sd]' "$tmp/k.s" || true)
  printf '%-10s vector %3d  scalar %3d\n' "$f" "$vec" "$sca"
done
