// bench::loop: the hand loops built with -O3 -march=native.
#define BENCH_LOOP_NS loop
#include "loops_impl.inc"
