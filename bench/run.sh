#!/usr/bin/env bash
# Builds the `release` preset's benchmarks and runs them, writing bench/results/*.csv and
# bench/RESULTS.md. See docs/benchmarks.md.
#
# usage: bench/run.sh
# env:   BENCH_REPS        repetitions per figure (default 15; median reported)
#        BENCH_JIT_REPS    kernels per JIT latency figure (default 9)
#        BENCH_QUIET_CORES before each process, wait until other processes use less than this many
#                          cores over 5 s (default 0.3) ...
#        BENCH_WAIT_MAX    ... for at most this many seconds per process (default 600), then run anyway
#        BENCH_SKIP_BUILD=1  use the existing build/release
#        BENCH_WERROR      ON/OFF: override the preset's CGRAD_WERROR (ON) for the build
#        BENCH_ANCHORS     anchors' results dir whose libtorch rows are quoted when bench_torch is
#                          not built (default /work/shared/anchors/results when it exists)
#        BENCH_ONLY        e.g. W1,W4: run only these workloads (quick checks; RESULTS.md is partial);
#                          ODE selects bench_odeint (the Lorenz ensemble through odeint, issue #7);
#                          MLP the MLP training step of bench/python/workloads.py (with BENCH_PYTHON)
#        BENCH_ODE_RUNS    bench_odeint processes (default 3; the summary takes the median per row)
#        BENCH_ODE_REPS    samples of 100 steps per row in each bench_odeint process (default 5)
#        BENCH_PROCS       e.g. cgrad_t2,odeint: run only these processes (cgrad_t2 cgrad_t1 host eigen
#                          torch odeint python) and keep the other processes' rows of the last run
#        BENCH_PYTHON      a Python interpreter with the cgrad wheel installed (and torch, jax when
#                          they are to be compared): also run bench/python/workloads.py, process
#                          `python` (docs/python.md, "Performance"); unset: not run; `auto`:
#                          bench/python/peers_venv.sh makes build/peers-venv (the wheel of this
#                          checkout, NumPy, jax and torch from PyPI; BENCH_PEERS_TORCH=0: no torch)
#        BENCH_PY_REPS     rounds per workload of that script (default 15)
#        BENCH_MLP_PROCS   its MLP step: rounds of one process per implementation (default 3; 0: all
#                          in the one process, where on 2 cores the libraries' threads slow each other)
#        OMP_WAIT_POLICY   for the bench_cgrad processes' hand loops (default here: passive)
#        BENCH_SUMMARY_ONLY=1  only rewrite bench/RESULTS.md from bench/results (e.g. after editing
#                          bench/NOTES.md, which is appended to it)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=bench/results
# In the bench_cgrad processes, the hand loops' OpenMP workers sleep as soon as a loop ends
# instead of spinning for milliseconds on the cores cgrad's next measurement needs (docs/jit.md,
# "Sharing the cores with OpenMP"; the `@alt` rows alternate hand-loop and cgrad samples back to
# back). Not for bench_odeint: its steppers run many short OpenMP regions per step (et::Vector,
# the staged loops), which waking sleeping workers slowed by 25-45% (session 5).
OMP_CGRAD=OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
BUILD=build/release
mkdir -p "$OUT"
SUMMARY_ONLY=${BENCH_SUMMARY_ONLY:-0}
PROCS=${BENCH_PROCS:-}
# proc_wanted NAME: NAME is one of BENCH_PROCS (all when BENCH_PROCS is empty)
proc_wanted() { [ -z "$PROCS" ] || [[ ",$PROCS," == *",$1,"* ]]; }
# (first_call.csv and first_call.md are bench/first_call.sh's, run by hand: kept)
if [ "$SUMMARY_ONLY" != 1 ] && [ -z "$PROCS" ]; then
  find "$OUT" -maxdepth 1 \( -name '*.csv' -o -name '*.log' -o -name '*.txt' -o -name python.md \) \
    ! -name 'first_call.*' -delete
fi

# ---- build
BUILD_LOG=$BUILD/bench_build.log
mkdir -p "$BUILD"
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ] && [ "$SUMMARY_ONLY" != 1 ]; then
  {
    cmake --preset release ${BENCH_WERROR:+-DCGRAD_WERROR="$BENCH_WERROR"} &&
      targets="bench_cgrad" &&
      { grep -q 'build bench/bench_eigen:' "$BUILD/build.ninja" && targets="$targets bench_eigen" || true; } &&
      { grep -q 'build bench/bench_torch:' "$BUILD/build.ninja" && targets="$targets bench_torch" || true; } &&
      { grep -q 'build bench/bench_odeint:' "$BUILD/build.ninja" && targets="$targets bench_odeint" || true; } &&
      cmake --build --preset release --target $targets
  } >"$BUILD_LOG" 2>&1 || { echo "build failed, see $BUILD_LOG"; tail -20 "$BUILD_LOG"; exit 1; }
fi
B=$BUILD/bench

if [ "$SUMMARY_ONLY" != 1 ]; then
# ---- machine facts and versions (a BENCH_PROCS rerun adds its own facts below the full run's,
# whose CSVs it keeps, instead of replacing them)
facts() {
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "kernel: $(uname -srm)"
  lscpu | grep -E 'Model name|^CPU\(s\)|Thread\(s\)|Core\(s\)|Socket|L1d|L2|L3|Hypervisor|Flags' |
    sed -E 's/^(Flags:).*/\1 (avx512f: '"$(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"')/'
  echo "nproc: $(nproc)"
  free -g | head -2
  grep PRETTY_NAME /etc/os-release
  echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
  g++ --version | head -1
  clang++ --version 2>/dev/null | head -1
  cmake --version | head -1
  dpkg-query -W -f='${Package} ${Version}\n' libeigen3-dev libtorch-dev 2>/dev/null
  echo "git: $(git rev-parse --short HEAD 2>/dev/null) $(git status --porcelain 2>/dev/null | grep -c . ) files modified/untracked"
}
if [ -n "$PROCS" ] && [ -s "$OUT/machine.txt" ]; then
  { echo; echo "--- rerun of $PROCS:"; facts; } >>"$OUT/machine.txt" 2>&1
else
  facts >"$OUT/machine.txt" 2>&1
fi

HZ=$(getconf CLK_TCK)
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
# cores used by everything on the machine over `s` seconds (call it while we run nothing)
cores_busy() {
  local s=${1:-5} b0 b1
  b0=$(busy); sleep "$s"; b1=$(busy)
  awk -v b="$((b1 - b0))" -v hz="$HZ" -v s="$s" 'BEGIN{printf "%.2f", b/hz/s}'
}
wait_quiet() {
  local waited=0 max=${BENCH_WAIT_MAX:-600} thr=${BENCH_QUIET_CORES:-0.3} c
  while :; do
    c=$(cores_busy 5)
    awk -v c="$c" -v t="$thr" 'BEGIN{exit !(c < t)}' && break
    waited=$((waited + 5))
    if [ "$waited" -ge "$max" ]; then
      echo "  machine still busy ($c cores used by others) after ${max}s: running anyway" >&2
      break
    fi
  done
  echo "$c"
}

[ -n "$PROCS" ] && [ -f "$OUT/load.csv" ] ||
  echo "proc,wall_s,own_cores,other_cores,other_cores_before,loadavg1_before" >"$OUT/load.csv"
# run_one NAME ENV... -- CMD...: CSV rows to $OUT/NAME.csv, stderr to $OUT/NAME.log, one load line.
run_one() {
  local name=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  echo "waiting for a quiet machine before $name ..."
  local before; before=$(wait_quiet | tail -1)
  local la; la=$(cut -d' ' -f1 /proc/loadavg)
  local tf; tf=$(mktemp)
  local b0; b0=$(busy)
  echo "running $name (load $la, others ${before} cores)"
  [ -f "$OUT/load.csv" ] && { grep -v "^$name," "$OUT/load.csv" >"$OUT/load.csv.tmp"; mv "$OUT/load.csv.tmp" "$OUT/load.csv"; }
  rm -f "$OUT/$name.log"
  env "${envs[@]}" /usr/bin/env time -f "%e %U %S" -o "$tf" "$@" >"$OUT/$name.csv" 2>"$OUT/$name.log"
  local rc=$?
  local b1; b1=$(busy)
  local wall usr sys
  read -r wall usr sys <"$tf" || true
  rm -f "$tf"
  awk -v n="$name" -v la="$la" -v bf="$before" -v b="$((b1 - b0))" -v hz="$HZ" -v w="${wall:-0}" -v u="${usr:-0}" -v s="${sys:-0}" \
    'BEGIN{o=(w>0)?(b/hz-u-s)/w:0; if(o<0)o=0; printf "%s,%.1f,%.2f,%.2f,%s,%s\n", n, w, (u+s)/(w>0?w:1), o, bf, la}' >>"$OUT/load.csv"
  [ $rc = 0 ] || echo "  $name exited with $rc (see $OUT/$name.log and the '#' lines of $OUT/$name.csv)"
  echo "  $name done in ${wall:-?} s"
}

ONLY=()
[ -n "${BENCH_ONLY:-}" ] && ONLY=(--only "$BENCH_ONLY")
if [ -z "$PROCS" ]; then
  echo "loadavg at start: $(cat /proc/loadavg)" >"$OUT/loadavg.txt"
else
  echo "loadavg at start of a rerun of $PROCS: $(cat /proc/loadavg)" >>"$OUT/loadavg.txt"
fi
if [ "${BENCH_ONLY:-}" != ODE ]; then
proc_wanted cgrad_t2 && run_one cgrad_t2 CGRAD_NUM_THREADS=2 "$OMP_CGRAD" -- "$B/bench_cgrad" --proc cgrad_t2 --sections wl "${ONLY[@]}"
proc_wanted cgrad_t1 && run_one cgrad_t1 CGRAD_NUM_THREADS=1 "$OMP_CGRAD" -- "$B/bench_cgrad" --proc cgrad_t1 --sections wl "${ONLY[@]}"
proc_wanted host && run_one host CGRAD_NUM_THREADS=2 "$OMP_CGRAD" -- "$B/bench_cgrad" --proc host --sections host,jit
[ -x "$B/bench_eigen" ] && proc_wanted eigen && run_one eigen -- "$B/bench_eigen" --proc eigen
[ -x "$B/bench_torch" ] && proc_wanted torch && run_one torch -- "$B/bench_torch" --proc torch
# From Python: one process with cgrad, NumPy, torch and jax side by side; it prints markdown.
if [ "${BENCH_PYTHON:-}" = auto ] && proc_wanted python; then
  BENCH_PYTHON=$(bench/python/peers_venv.sh | tail -1) || { echo "bench/python/peers_venv.sh failed"; exit 1; }
fi
if [ -n "${BENCH_PYTHON:-}" ] && proc_wanted python; then
  run_one python -- "$BENCH_PYTHON" bench/python/workloads.py ${BENCH_ONLY:+--only "$BENCH_ONLY"} \
    --reps "${BENCH_PY_REPS:-15}" --mlp-procs "${BENCH_MLP_PROCS:-3}"
  mv "$OUT/python.csv" "$OUT/python.md"
fi
fi
if [ -x "$B/bench_odeint" ] && proc_wanted odeint && { [ -z "${BENCH_ONLY:-}" ] || [[ ",$BENCH_ONLY," == *,ODE,* ]]; }; then
  for k in $(seq 1 "${BENCH_ODE_RUNS:-3}"); do
    run_one "odeint_$k" CGRAD_NUM_THREADS=2 -- "$B/bench_odeint" --proc "odeint_$k" --reps "${BENCH_ODE_REPS:-5}"
  done
fi
echo "loadavg at end:   $(cat /proc/loadavg)" >>"$OUT/loadavg.txt"
find "$OUT" -name '*.log' -size 0 -delete  # stderr of the programs: kept only when not empty
fi  # SUMMARY_ONLY

ANCH=${BENCH_ANCHORS:-/work/shared/anchors/results}
[ -x "$B/bench_torch" ] && ANCH=""
[ -d "$ANCH" ] || ANCH=""

# ---- RESULTS.md
{
  echo "# cgrad benchmark results"
  echo
  echo "Generated by \`bench/run.sh\` (method and workloads: [docs/benchmarks.md](../docs/benchmarks.md));"
  echo "raw rows in \`bench/results/\`. Median of ${BENCH_REPS:-15} repetitions after warm-ups."
  echo
  echo "## Machine"
  echo
  echo '```'
  cat "$OUT/machine.txt" "$OUT/loadavg.txt"
  echo '```'
  echo
  if [ -x "$B/bench_torch" ]; then
    echo "libtorch: built and measured in this run (bench_torch)."
  else
    echo "libtorch: **not installed** on this machine (Debian's libtorch-dev pulls in ~160 packages,"
    echo "about 510 MB installed even with --no-install-recommends: OpenCV, Qt5, GDAL...), so"
    echo "bench_torch was not built. The \`torch (anchors rN)\` rows are the libtorch 1.13 C++ eager"
    echo "figures of the anchors (/work/shared/anchors: same method, quiet runs 3 and 4), each with"
    echo "\`x loop\` against the anchors' own 1-thread loop of that run. **They were measured on the"
    echo "anchors' machine** (see its RESULTS.md: AMD EPYC Zen 4, 2 vCPUs under KVM), which may not be"
    echo "this one: compare ratios rather than times, and the W6 line below with care."
  fi
  python3 bench/summarize.py "$OUT" "$ANCH"
  if [ -f "$OUT/python.md" ]; then
    echo
    echo "## From Python, $(sed -n 's/^- date: \([^;]*\);.*/\1/p' "$OUT/python.md" | head -1)"
    echo
    echo "\`bench/python/workloads.py\`, run by \`BENCH_PYTHON=... bench/run.sh\` (method: its docstring and"
    echo "docs/python.md, \"Performance\"): cgrad beside NumPy, torch eager, torch.compile and jax.jit in"
    echo "one Python process, samples alternating; each ratio is taken per round, so the machine's load"
    echo "falls on every library alike. Raw text: \`bench/results/python.md\`."
    echo
    cat "$OUT/python.md"
  fi
  if [ -f "$OUT/first_call.md" ]; then
    echo
    echo "## First calls"
    echo
    echo "\`bench/first_call.sh\` (run by hand: \`bench/first_call.sh 3 > bench/results/first_call.md\`; method:"
    echo "docs/benchmarks.md and docs/jit.md, \"First calls\"): each sample a fresh process with an empty"
    echo "kernel cache (and inductor cache), the implementations in turn within each round. Raw rows:"
    echo "\`bench/results/first_call.csv\`."
    echo
    cat "$OUT/first_call.md"
  fi
  [ -f bench/NOTES.md ] && { echo; cat bench/NOTES.md; }
} >bench/RESULTS.md
echo "wrote bench/RESULTS.md"
