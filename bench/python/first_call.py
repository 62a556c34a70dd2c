"""First call and steady state of one peer library on one workload, in this fresh process.

bench/first_call.sh starts one process per sample, interleaved with cgrad's (bench_first), so
every library's first call is measured the same way: the library imported and the inputs made
before the clock starts (import time is the `import` section of workloads.py), then the first
call alone (it compiles for torch.compile and jax.jit; torch.compile gets a fresh inductor cache
dir from first_call.sh), the second, and the median of `reps` more (the steady state).
The workloads and the MLP step are those of workloads.py (same code, same inputs).

usage: python first_call.py cgrad|numpy|torch|torch.compile|jax.jit W1|W2|W3|W4|MLP [log2 n] [reps]
output: one line `workload,n,first_ms,second_ms,steady_ms`
cgrad: from Python, with an empty kernel cache (workloads._env makes one per process unless
CGRAD_CACHE_DIR is set) and the wheel's prebuilt kernels (CGRAD_PREBUILT_KERNELS=0: without them).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # noqa: E402


def main():
    impl, wl = sys.argv[1], sys.argv[2]
    log2n = int(sys.argv[3]) if len(sys.argv) > 3 else 24
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    threads = int(os.environ.get("BENCH_THREADS", "2"))
    workloads._env(threads)
    import numpy as np

    libs = {"np": np}
    if impl == "cgrad":
        import cgrad as cg

        libs["cg"] = cg
    if impl.startswith("torch"):
        import torch

        torch.set_num_threads(threads)
        libs["torch"] = torch
    if impl.startswith("jax"):
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)
        libs["jax"], libs["jnp"] = jax, jnp
    name = {"torch": "torch eager"}.get(impl, impl)
    if wl == "MLP":
        call = workloads.mlp_implementations(libs)[name]
        n = workloads.MLP_B
    else:
        arrs = workloads.inputs(np, wl, log2n)
        call = workloads.implementations(libs, wl, arrs)[name]
        n = arrs[0].size
    t0 = time.perf_counter()
    call()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    call()
    second = time.perf_counter() - t0
    v = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = call()
        v.append(time.perf_counter() - t0)
        del out
    v.sort()
    print(f"{wl},{n},{first * 1e3:.3f},{second * 1e3:.3f},{v[len(v) // 2] * 1e3:.3f}", flush=True)


if __name__ == "__main__":
    main()
