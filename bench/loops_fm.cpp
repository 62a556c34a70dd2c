// bench::loop_fm: the hand loops built with -O3 -march=native -ffast-math (vector exp).
#define BENCH_LOOP_NS loop_fm
#include "loops_impl.inc"
