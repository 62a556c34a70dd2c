#!/usr/bin/env python3
"""Turn the CSV rows of the benchmark programs into the markdown tables of bench/RESULTS.md.

usage: summarize.py RESULTS_DIR [ANCHORS_RESULTS_DIR]

RESULTS_DIR holds *.csv (one per process, columns as in bench/common.hpp) and load.csv.
`x loop` = median time / median time of the best hand loop measured in the *same process* for
the same workload and dtype: the fastest of loop and loop_fm (-ffast-math) at 1 and 2 threads
(for W5 the fastest `fused` loop). Lower is better; 1.00 = as fast as the best loop.
ANCHORS_RESULTS_DIR (optional): /work/shared/anchors/results; its libtorch C++ rows from the quiet
runs 3 and 4 are listed as `torch (anchors rN)`, with `x loop` against the anchors' own loop of
that run (the anchors' reference is loop_fm / fused with 1 thread; here the best of 1 and 2).
"""
import csv
import glob
import os
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "results"
anchors = sys.argv[2] if len(sys.argv) > 2 else ""

rows = []
for f in sorted(glob.glob(os.path.join(d, "*.csv"))):
    if os.path.basename(f) == "load.csv":
        continue
    with open(f) as fh:
        for line in fh:
            if line.startswith("#") or line.startswith("proc,") or not line.strip():
                continue
            p = next(csv.reader([line]))
            if len(p) < 15:
                continue
            keys = ["proc", "impl", "variant", "workload", "dtype", "n", "threads", "median_s", "min_s", "reps",
                    "bytes", "gbps", "kernels", "check", "note"]
            r = dict(zip(keys, p[:14] + [",".join(p[14:])]))
            for k in ("median_s", "min_s", "gbps", "kernels", "check", "bytes"):
                r[k] = float(r[k])
            rows.append(r)

# anchors' libtorch rows (quiet runs 3 and 4), with their own loop references
anchor_rows = []
if anchors and os.path.isdir(anchors):
    for run in ("3", "4"):
        f = os.path.join(anchors, f"run{run}.csv")
        if not os.path.exists(f):
            continue
        with open(f) as fh:
            for r in csv.DictReader(fh):
                try:
                    r["median_s"] = float(r["median_s"]); r["min_s"] = float(r["min_s"]); r["gbps"] = float(r["gbps"])
                except (ValueError, KeyError):
                    continue
                r["proc"] = f"anchors_r{run}"
                r["kernels"] = -1.0
                r["note"] = ""
                anchor_rows.append(r)

WL_N = {"W1": "16777216", "W2": "16777216", "W3": "16777216", "W4": "16777216", "W5": "3145728", "W6": "16"}


def best_loop(pool, proc, wl, dt):
    cands = [r for r in pool if r["proc"] == proc and r["workload"] == wl and r["dtype"] == dt
             and r["impl"] in ("loop", "loop_fm") and r["n"] == WL_N[wl] and "@alt" not in r["variant"]
             and (wl != "W5" or r["variant"] == "fused")]
    return min(cands, key=lambda r: r["median_s"]) if cands else None


def loop_ref(pool, proc, wl, dt, impl, thr):
    for r in pool:
        if (r["proc"] == proc and r["workload"] == wl and r["dtype"] == dt and r["impl"] == impl
                and r["threads"] == thr and r["n"] == WL_N[wl] and (wl != "W5" or r["variant"] == "fused")):
            return r
    return None


def fmt(v, digits=3):
    if v is None:
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}g}"


def xloop(r, pool):
    b = best_loop(pool, r["proc"], r["workload"], r["dtype"])
    return r["median_s"] / b["median_s"] if b else None


procs = []
for r in rows:
    if r["proc"] not in procs:
        procs.append(r["proc"])
main_proc = "cgrad_t2" if "cgrad_t2" in procs else (procs[0] if procs else "")

TITLES = {
    "W1": "W1 d = a*b + c, n = 2^24 (bytes 4 n sizeof)",
    "W2": "W2 y = 1/(1+exp(-x)), n = 2^24 (bytes 2 n sizeof)",
    "W3": "W3 s = sum(a*b), n = 2^24 (bytes 2 n sizeof)",
    "W4": "W4 row softmax, 4096 x 4096 (bytes 2 n sizeof)",
    "W5": "W5 one RK4 step, 2^20 Lorenz systems, SoA state 3 x 2^20 (bytes 2 x 3N sizeof)",
    "W6": "W6 chain of 100 element-wise ops on 16-element f32 tensors, graph rebuilt every call",
}
ORDER = ["loop", "loop_fm", "cgrad", "eigen", "torch"]


def table(wl):
    sel = [r for r in rows if r["workload"] == wl and r["n"] == WL_N[wl]]
    # loops: only from the main process (each other process has its own, used for its ratios)
    sel = [r for r in sel if r["impl"] not in ("loop", "loop_fm") or r["proc"] == main_proc]
    asel = [r for r in anchor_rows if r["workload"] == wl and r["n"] == WL_N[wl] and r["impl"] == "torch"]
    if not sel:
        return
    print(f"\n### {TITLES[wl]}\n")
    per_op = wl == "W6"
    hdr = ["impl", "variant", "thr", "dtype", "us/call" if per_op else "ms/call"]
    hdr += ["ns/op"] if per_op else ["GB/s"]
    hdr += ["kernels/eval", "x loop", "process"]
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    allr = sel + asel
    dts = ["f32", "f64"]
    allr.sort(key=lambda r: (dts.index(r["dtype"]) if r["dtype"] in dts else 9,
                             ORDER.index(r["impl"]) if r["impl"] in ORDER else 9, r["proc"].startswith("anchors"),
                             r["variant"], int(r["threads"]), r["proc"]))
    for r in allr:
        pool = anchor_rows if r["proc"].startswith("anchors") else rows
        if r["proc"].startswith("anchors"):
            ref = (loop_ref(pool, r["proc"], wl, r["dtype"], "loop_fm", "1") or
                   loop_ref(pool, r["proc"], wl, r["dtype"], "loop", "1"))
            xl = r["median_s"] / ref["median_s"] if ref else None
            impl = f"torch (anchors {r['proc'][-2:]})"
        else:
            xl = xloop(r, pool)
            impl = r["impl"]
        t = r["median_s"] * (1e6 if per_op else 1e3)
        cells = [impl, r["variant"] or "-", r["threads"], r["dtype"], fmt(t)]
        cells += [fmt(r["median_s"] * 1e9 / 100)] if per_op else [fmt(r["gbps"])]
        k = r["kernels"]
        cells += ["-" if k < 0 else fmt(k), fmt(xl), r["proc"]]
        print("| " + " | ".join(cells) + " |")
    others = []
    for p in procs:
        if p == main_proc:
            continue
        for dt in dts:
            b = best_loop(rows, p, wl, dt)
            if b:
                others.append(f"{p} {dt}: {fmt(b['median_s'] * (1e6 if per_op else 1e3))} "
                              f"({b['impl']}, {b['threads']}t)")
    if others:
        print(f"\nBest hand loop measured in the other processes ({'us' if per_op else 'ms'}/call): "
              + "; ".join(others) + ".")


def host_tables():
    sel = [r for r in rows if r["workload"] in ("HOST", "JIT")]
    if not sel:
        return
    print("\n### Host overhead and JIT latency\n")
    print("| what | thr | median | min | reps | counters / notes | process |")
    print("|---|---|---|---|---|---|---|")
    for r in sel:
        m, mn = r["median_s"], r["min_s"]
        unit, sc = ("ms", 1e3) if m >= 1e-3 else (("us", 1e6) if m >= 1e-6 else ("ns", 1e9))
        print(f"| {r['variant']} | {r['threads']} | {fmt(m * sc)} {unit} | {fmt(mn * sc)} {unit} | {r['reps']} | "
              f"{r['note'].replace('|', '/')} | {r['proc']} |")


def get(proc, impl, wl, dt, variant=None):
    for r in rows:
        if r["proc"] == proc and r["impl"] == impl and r["workload"] == wl and r["dtype"] == dt and \
                (variant is None or r["variant"] == variant) and (wl in ("HOST", "JIT") or r["n"] == WL_N[wl]):
            return r
    return None


def targets():
    print("\n## vs targets\n")
    print("Speed = best hand-loop time / cgrad time in the same process (higher is better; the loop "
          "reference is named per line, best of 1 and 2 threads). cgrad t2 = default threads (2), "
          "t1 = CGRAD_NUM_THREADS=1; `t1 vs 1-thread loop` compares cgrad t1 with the best 1-thread "
          "loop only (code quality per thread). `met?` judges cgrad t2, the default. The `vs Eigen` lines "
          "compare `x loop` ratios (each against its own process's loop; Eigen is single-threaded). "
          "Where the cgrad t2 process also measured a row with its samples alternating with those of "
          "the 2-thread loop_fm (`@alt` rows: both see the same phases of the shared VM's speed), "
          "that ratio is shown after the block ratio and decides `met?`.\n")
    print("| target | dtype | cgrad t2 | cgrad t1 | t1 vs 1-thread loop | goal | met? |")
    print("|---|---|---|---|---|---|---|")

    def speed(proc, wl, dt, variant, ref_impls, threads=None):
        r = get(proc, "cgrad", wl, dt, variant)
        if not r:
            return None, None
        cands = [x for x in rows if x["proc"] == proc and x["workload"] == wl and x["dtype"] == dt and
                 x["impl"] in ref_impls and x["n"] == WL_N[wl] and (wl != "W5" or x["variant"] == "fused")
                 and "@alt" not in x["variant"] and (threads is None or x["threads"] == threads)]
        if not cands:
            return None, r
        b = min(cands, key=lambda x: x["median_s"])
        return b["median_s"] / r["median_s"], r

    def alternating(proc, wl, dt, variant):
        c = get(proc, "cgrad", wl, dt, variant + "@alt")
        h = get(proc, "loop_fm", wl, dt, variant + "@alt")
        return h["median_s"] / c["median_s"] if c and h and c["median_s"] > 0 else None

    def line(name, wl, variant, refs, goal, dts=("f32", "f64")):
        for dt in dts:
            s2, r2 = speed("cgrad_t2", wl, dt, variant, refs)
            s1, _ = speed("cgrad_t1", wl, dt, variant, refs)
            s11, _ = speed("cgrad_t1", wl, dt, variant, refs, "1")
            if s2 is None and s1 is None:
                continue
            best = max(x for x in (s1, s2) if x is not None)
            k = f" ({fmt(r2['kernels'])} kernel(s))" if r2 else ""
            alt = alternating("cgrad_t2", wl, dt, variant)
            if alt is not None:  # the same-phase ratio decides (see the text above the table)
                k += f"; alternating with loop_fm: {fmt(alt)}x"
                verdict = "met" if alt >= goal else "missed"
            else:
                verdict = "met" if (s2 or 0) >= goal else ("t1 only" if best >= goal else "missed")
            print(f"| {name} | {dt} | {fmt(s2)}x{k} | {fmt(s1)}x | {fmt(s11)}x | >= {goal}x | {verdict} |")

    line("W1 vs best loop (loop or loop_fm, 1 or 2 threads)", "W1", "", ("loop", "loop_fm"), 0.9)
    line("W3 vs best loop (loop or loop_fm, 1 or 2 threads)", "W3", "", ("loop", "loop_fm"), 0.9)
    line("W2 vs loop_fm (vector exp, 1 or 2 threads)", "W2", "", ("loop_fm",), 0.9)
    line("W4 softmax op vs loop_fm", "W4", "softmax_op", ("loop_fm",), 0.8)
    line("W4 composed vs loop_fm", "W4", "composed", ("loop_fm",), 0.8)
    line("W5 (3 tensors) vs fused loop", "W5", "xyz", ("loop", "loop_fm"), 0.7)
    line("W5 (one state, slices + cat) vs fused loop", "W5", "state_cat", ("loop", "loop_fm"), 0.7)

    # vs Eigen (normalized by each process's best loop)
    for wl in ("W1", "W3"):
        for dt in ("f32", "f64"):
            e = get("eigen", "eigen", wl, dt, "")
            c2, c1 = get("cgrad_t2", "cgrad", wl, dt, ""), get("cgrad_t1", "cgrad", wl, dt, "")
            if not e or not (c1 or c2):
                continue
            xe = xloop(e, rows)
            x2 = xloop(c2, rows) if c2 else None
            x1 = xloop(c1, rows) if c1 else None
            print(f"| {wl} vs Eigen (x loop: Eigen {fmt(xe)}) | {dt} | {fmt(x2)} | {fmt(x1)} | - | <= Eigen | "
                  f"{'met' if x2 is not None and x2 <= xe else 'missed'} |")

    # W6 vs libtorch eager per op: preferably the torch process's side-by-side pair (samples
    # alternating in one process), else cgrad_t2's row against the eager row of another process
    c = get("torch", "cgrad", "W6", "f32", "beside_torch")
    tor = [r for r in rows if r["impl"] == "torch" and r["workload"] == "W6" and r["variant"] == "eager_beside_cgrad"]
    src = "bench_torch, samples alternating with cgrad's in one process"
    if not (c and tor):
        c = get("cgrad_t2", "cgrad", "W6", "f32", "")
        tor = [r for r in rows if r["impl"] == "torch" and r["workload"] == "W6" and r["variant"] == "eager"]
        src = "bench_torch"
    if not tor:
        tor = [r for r in anchor_rows if r["impl"] == "torch" and r["workload"] == "W6" and r["variant"] == "eager"]
        src = "anchors runs 3-4, Debian libtorch 1.13, anchors' machine"
    if c and tor:
        t = min(r["median_s"] for r in tor)
        sp = t / c["median_s"]
        print(f"| W6 per op vs libtorch eager ({fmt(t * 1e7)} ns/op, {src}) | f32 | {fmt(sp)}x "
              f"({fmt(c['median_s'] * 1e7)} ns/op) | - | - | >= 4x | {'met' if sp >= 4 else 'missed'} |")

    def host(name, proc, variant, goal_s, unit, sc):
        r = get(proc, "cgrad", "HOST" if proc == "host" else "JIT", "f32", variant)
        if not r:
            return
        print(f"| {name} | - | {fmt(r['median_s'] * sc)} {unit} | - | - | < {fmt(goal_s * sc)} {unit} | "
              f"{'met' if r['median_s'] < goal_s else 'missed'} |")

    host("node build (100-op chain, build + destroy, per node)", "host", "build_destroy_node", 200e-9, "ns", 1e9)
    host("node build (nodes kept alive, per node)", "host", "build_node", 200e-9, "ns", 1e9)
    host("plan replay per kernel, compile(fn) of the 100-op W6 chain (signature check + replay)", "host",
         "compile_replay_per_kernel_w6", 2e-6, "us", 1e6)
    host("plan key + lookup + replay per kernel (W6: eval() of a built 100-node graph)", "host", "replay_per_kernel_w6", 2e-6, "us", 1e6)
    host("plan replay, 1-op graph, whole call", "host", "one_op_eval_call", 2e-6, "us", 1e6)
    host("build + key + replay per kernel (eval() of softmax 32x32 built per call)", "host", "softmax32_per_kernel", 2e-6, "us", 1e6)
    host("cold compile, fused sigmoid kernel", "jit_cold", "cold_compile_sigmoid", 60e-3, "ms", 1e3)
    host("cold compile, fused RK4 step", "jit_cold", "cold_compile_rk4", 60e-3, "ms", 1e3)
    # The same cold compiles read against the anchors' control compile timed before each of them
    # (gcc -O2 -shared -fPIC on a 6-line C file: 26.2 ms median on the anchors' quiet VM): the
    # machine's compile speed at that moment, which a loaded VM host can halve.
    for name, variant in (("sigmoid kernel", "cold_compile_sigmoid"), ("RK4 step", "cold_compile_rk4")):
        r = get("jit_cold", "cgrad", "JIT", "f32", variant)
        ctl = get("jit_cold", "gcc", "JIT", "f32", "control_O2_" + variant)
        if r and ctl and ctl["median_s"] > 0:
            scaled = r["median_s"] * 26.2e-3 / ctl["median_s"]
            print(f"| cold compile, fused {name}, at the anchors' quiet compile speed (control {fmt(ctl['median_s'] * 1e3)} ms "
                  f"here, 26.2 ms there) | - | {fmt(scaled * 1e3)} ms | - | - | < 60 ms | {'met' if scaled < 60e-3 else 'missed'} |")
    host("warm disk-cache hit, sigmoid (whole first eval)", "jit_warm", "disk_hit_sigmoid", 1e-3, "ms", 1e3)
    host("warm disk-cache hit, RK4 step (whole first eval)", "jit_warm", "disk_hit_rk4", 1e-3, "ms", 1e3)

    # one kernel per evaluation for W1-W3
    bad = [r for r in rows if r["impl"] == "cgrad" and r["workload"] in ("W1", "W2", "W3") and r["kernels"] != 1]
    print("\nkernels_launched per evaluation, W1/W2/W3: " +
          ("1 everywhere (met)." if not bad else
           "NOT 1: " + ", ".join(f"{r['workload']} {r['variant']} {r['dtype']} = {fmt(r['kernels'])}" for r in bad)))


def load_table():
    f = os.path.join(d, "load.csv")
    if not os.path.exists(f):
        return
    print("\n### Machine load during each process (other_cores = CPU used by other processes)\n")
    with open(f) as fh:
        rr = list(csv.DictReader(fh))
    if not rr:
        return
    print("| " + " | ".join(rr[0].keys()) + " |")
    print("|" + "---|" * len(rr[0]))
    for r in rr:
        print("| " + " | ".join(r.values()) + " |")


def checks():
    print("\n### Checksums (sum of the output; the same inputs everywhere)\n")
    print("| workload | dtype | loop | cgrad | eigen |")
    print("|---|---|---|---|---|")
    for wl in ("W1", "W2", "W3", "W4", "W5", "W6"):
        for dt in ("f32", "f64"):
            lp = best_loop(rows, main_proc, wl, dt)
            cg = [r for r in rows if r["impl"] == "cgrad" and r["workload"] == wl and r["dtype"] == dt
                  and r["proc"] == main_proc]
            eg = [r for r in rows if r["impl"] == "eigen" and r["workload"] == wl and r["dtype"] == dt]
            if not lp and not cg:
                continue
            def g(x):
                return "; ".join((f"{r['variant']}: " if r["variant"] else "") + f"{r['check']:.7g}" for r in x)
            print(f"| {wl} | {dt} | {lp['check']:.7g} | {g(cg)} | {g(eg)} |" if lp else
                  f"| {wl} | {dt} | - | {g(cg)} | {g(eg)} |")
    print("\nW5: checksum of the state after exactly one step from the initial state. W3 f32 sums differ in "
          "the last digits (summation order and accumulator width).")


def ode_section():
    """bench_odeint (issue #7): one row per implementation, the median over the odeint_* processes
    of each process's median ms per step; ratios are taken inside each process, then the median
    (and range) over processes."""
    sel = [r for r in rows if r["workload"] == "ODE"]
    if not sel:
        return
    ps = sorted({r["proc"] for r in sel})

    def med(v):
        v = sorted(v)
        n = len(v)
        return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])

    def t(p, impl, variant, thr=None):
        c = [r for r in sel if r["proc"] == p and r["impl"] == impl and r["variant"] == variant and
             (thr is None or r["threads"] == thr)]
        return min(c, key=lambda r: r["median_s"]) if c else None

    n = sel[0]["n"]
    print(f"\n## Lorenz ensemble through Boost.Odeint (issue #7, `bench_odeint`)\n")
    print(f"{int(n) // 3} systems with their own rho, f64, runge_kutta4, dt = 0.001; each sample is 100 steps, "
          f"each row the median of the processes' medians ({len(ps)} processes: {', '.join(ps)}). "
          "`x fused` = time / best fused hand loop (1 or 2 threads) of the same process; `vs staged`: "
          "staged hand loop time / this time at the same thread count (higher is better). cgrad::Tensor runs "
          "with CGRAD_NUM_THREADS=2 (1 in a process named *_t1).\n")
    print("| impl | variant | thr | ms/step (median) | range over processes | x fused | vs staged (same thr) | "
          "kernels/step | max abs diff vs odeint std::vector |")
    print("|---|---|---|---|---|---|---|---|---|")
    keys = []
    for r in sel:
        k = (r["impl"], r["variant"], r["threads"])
        if k not in keys:
            keys.append(k)
    for impl, variant, thr in keys:
        ts, xf, vs, ks, ch = [], [], [], [], []
        for p in ps:
            r = t(p, impl, variant, thr)
            f = t(p, "hand", "fused")
            s = t(p, "hand", "staged", thr)
            if not r:
                continue
            ts.append(r["median_s"])
            ks.append(r["kernels"])
            ch.append(r["check"])
            if f:
                xf.append(r["median_s"] / f["median_s"])
            if s:
                vs.append(s["median_s"] / r["median_s"])
        if not ts:
            continue
        k = med(ks)
        print(f"| {impl} | {variant} | {thr} | {fmt(med(ts) * 1e3)} | {fmt(min(ts) * 1e3)}-{fmt(max(ts) * 1e3)} | "
              f"{fmt(med(xf)) if xf else '-'} | {fmt(med(vs)) + 'x' if vs and impl != 'hand' else '-'} | "
              f"{'-' if k < 0 else fmt(k)} | {max(ch):.2g} |")

    def ratio_line(name, num, den, goal):
        v = []
        for p in ps:
            a, b = num(p), den(p)
            if a and b:
                v.append(b["median_s"] / a["median_s"])
        if v:
            print(f"| {name} | {fmt(med(v))}x | {fmt(min(v))}-{fmt(max(v))}x | >= {goal}x | "
                  f"{'met' if med(v) >= goal else 'missed'} |")

    print("\n| target (ratios inside each process, median over processes) | speed | range | goal | met? |")
    print("|---|---|---|---|---|")
    for thr in ("1", "2"):
        ratio_line(f"et::Vector vs staged hand loop, {thr} thread(s)", lambda p: t(p, "et", "odeint", thr),
                   lambda p: t(p, "hand", "staged", thr), 0.9)
    ratio_line("et::Vector (best of 1, 2 threads) vs best staged hand loop", lambda p: t(p, "et", "odeint"),
               lambda p: t(p, "hand", "staged"), 0.9)
    ratio_line("cgrad::Tensor (the process's CGRAD_NUM_THREADS) vs best fused hand loop", lambda p: t(p, "cgrad", "odeint"),
               lambda p: t(p, "hand", "fused"), 0.5)
    ratio_line("cgrad::Tensor vs odeint on std::vector", lambda p: t(p, "cgrad", "odeint"),
               lambda p: t(p, "odeint", "std_range"), 6)
    ratio_line("best fused hand loop vs odeint on std::vector", lambda p: t(p, "hand", "fused"),
               lambda p: t(p, "odeint", "std_range"), 10)


targets()
ode_section()
print("\n## Tables\n")
print("`x loop` = time / time of the best hand loop (loop or loop_fm, 1 or 2 threads; W5: fused) "
      "measured in the same process; lower is better. Hand-loop rows are shown from process "
      f"`{main_proc}`.")
for wl in ("W1", "W2", "W3", "W4", "W5", "W6"):
    table(wl)
host_tables()
checks()
load_table()
