#!/usr/bin/env bash
# First calls in fresh processes (issue #20): cgrad (bench_first; by default and with
# CGRAD_JIT_ASYNC=1) beside NumPy, torch eager, torch.compile and jax.jit (python/first_call.py),
# one process per sample, the implementations interleaved within each round so that the shared
# machine's slow and fast phases fall on all of them alike. Every cgrad process gets an empty
# kernel cache, every torch.compile process an empty inductor cache. Also W1-W3 at 2^27 elements
# (past the L3: DRAM-bound), steady state beside NumPy and torch.
#
# usage: bench/first_call.sh [rounds (default 5)] > bench/results/first_call.md
#        (bench/run.sh puts that file into bench/RESULTS.md as the section "First calls")
# env:   BENCH_FIRST_BIN  bench_first to run (default build/release/bench/bench_first)
#        BENCH_PEERS_PY   a Python with numpy, torch and jax (default build/peers-venv/bin/python;
#                         make it with: python3 -m venv build/peers-venv &&
#                         build/peers-venv/bin/pip install numpy torch jax); a peer whose library it lacks is left out
#        BENCH_FIRST_WL   workloads of the first-call table (default W1,W2,W3,W4,MLP)
#        BENCH_BIG_ROUNDS rounds of the 2^27 table (default 3; 0 skips it)
#        BENCH_THREADS    threads for every library (default 2)
#        BENCH_FIRST_BEFORE  another bench_first (e.g. built from an older commit): its rows are
#                         `cgrad_before`, interleaved with the others (before/after tables)
# Raw samples go to bench/results/first_call.csv; the markdown tables (medians) to stdout.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
ROUNDS=${1:-5}
BIN=${BENCH_FIRST_BIN:-build/release/bench/bench_first}
PY=${BENCH_PEERS_PY:-build/peers-venv/bin/python}
WLS=${BENCH_FIRST_WL:-W1,W2,W3,W4,MLP}
BIG=${BENCH_BIG_ROUNDS:-3}
export BENCH_THREADS=${BENCH_THREADS:-2} CGRAD_NUM_THREADS=${BENCH_THREADS:-2} OMP_NUM_THREADS=${BENCH_THREADS:-2}
[ -x "$BIN" ] || { echo "no $BIN: cmake --preset release && cmake --build build/release --target bench_first" >&2; exit 1; }
# The peers whose library $PY imports (a venv without torch's 3 GB still compares NumPy and jax).
PEERS="" BIG_PEERS=""  # BIG_PEERS: those of the 2^27 table (NumPy and torch eager)
for p in numpy torch torch.compile jax.jit; do
  if ! "$PY" -c "import ${p%%.*}" 2>/dev/null; then echo "# $PY lacks ${p%%.*}: no $p rows" >&2; continue; fi
  PEERS="$PEERS $p"
  case $p in numpy | torch) BIG_PEERS="$BIG_PEERS $p" ;; esac
done
mkdir -p bench/results
CSV=bench/results/first_call.csv
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs;" \
  "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); git $(git rev-parse --short HEAD 2>/dev/null)"
echo "- $ROUNDS rounds; in each, one fresh process per implementation and workload, in turn; BENCH_THREADS=$BENCH_THREADS"
echo "table,impl,round,workload,n,first_ms,second_ms,steady_ms,compiled,launched,self_cpu_ms,compiler_cpu_ms" >"$CSV"

# sample TABLE IMPL ROUND WL LOG2N REPS: one fresh process, one CSV row
sample() {
  local table=$1 impl=$2 round=$3 wl=$4 log2n=$5 reps=$6 tmp line
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/cgrad_first_XXXXXX")
  case $impl in
    cgrad) line=$(CGRAD_CACHE_DIR=$tmp "$BIN" "$wl" "$log2n" "$reps") ;;
    cgrad_before) line=$(CGRAD_CACHE_DIR=$tmp "$BENCH_FIRST_BEFORE" "$wl" "$log2n" "$reps") ;;
    cgrad_async) line=$(CGRAD_JIT_ASYNC=1 CGRAD_CACHE_DIR=$tmp "$BIN" "$wl" "$log2n" "$reps") ;;
    *) line=$(TORCHINDUCTOR_CACHE_DIR=$tmp/inductor "$PY" bench/python/first_call.py "$impl" "$wl" "$log2n" "$reps" 2>/dev/null) ;;
  esac
  rm -rf "$tmp"
  [ -n "$line" ] && echo "$table,$impl,$round,$line" >>"$CSV"
}

for r in $(seq 1 "$ROUNDS"); do
  for wl in ${WLS//,/ }; do
    for impl in ${BENCH_FIRST_BEFORE:+cgrad_before} cgrad cgrad_async $PEERS; do sample first "$impl" "$r" "$wl" 24 5; done
  done
done
for r in $(seq 1 "$BIG"); do
  for wl in W1 W2 W3; do
    for impl in ${BENCH_FIRST_BEFORE:+cgrad_before} cgrad $BIG_PEERS; do sample big "$impl" "$r" "$wl" 27 7; done
  done
done

echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$CSV" "$ROUNDS" "$BIG" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def med(v): return statistics.median(v) if v else float("nan")
def table(name, title, cols):
    sel = [r for r in rows if r["table"] == name]
    if not sel: return
    wls = list(dict.fromkeys(r["workload"] for r in sel))
    impls = list(dict.fromkeys(r["impl"] for r in sel))
    print(f"\n{title}\n")
    print("| workload | " + " | ".join(impls) + " |")
    print("|---|" + "---:|" * len(impls))
    for wl in wls:
        cells = []
        for im in impls:
            s = [r for r in sel if r["workload"] == wl and r["impl"] == im]
            if not s: cells.append("-"); continue
            cells.append(" / ".join(f"{med([float(r[c]) for r in s]):.{1 if c != 'steady_ms' or name != 'big' else 2}f}" for c in cols))
        print(f"| {wl} | " + " | ".join(cells) + " |")
table("first", f"First call / second call / steady (median of 5 later calls), ms; medians over {sys.argv[2]} fresh processes each, interleaved",
      ["first_ms", "second_ms", "steady_ms"])
sel = [r for r in rows if r["table"] == "first" and r["impl"].startswith("cgrad")]
if sel:
    print("\ncgrad's first call: CPU ms of the process / of the compilers it ran (medians; load-independent)\n")
    ims = list(dict.fromkeys(r["impl"] for r in sel))
    print("| workload | " + " | ".join(ims) + " | compiled units (cgrad) |")
    print("|---|" + "---:|" * (len(ims) + 1))
    for wl in dict.fromkeys(r["workload"] for r in sel):
        def f(s):
            if not s: return "-"
            return f"{med([float(r['self_cpu_ms']) for r in s]):.0f} / {med([float(r['compiler_cpu_ms']) for r in s]):.0f}"
        c = [r for r in sel if r["workload"] == wl and r["impl"] == "cgrad"]
        cells = [f([r for r in sel if r["workload"] == wl and r["impl"] == im]) for im in ims]
        print(f"| {wl} | " + " | ".join(cells) + f" | {c[0]['compiled'] if c else '-'} |")
table("big", f"W1-W3 at 2^27 elements (512 MiB per array, past the L3): first call / steady (median of 7 calls), ms; medians over {sys.argv[3]} processes",
      ["first_ms", "steady_ms"])
EOF
