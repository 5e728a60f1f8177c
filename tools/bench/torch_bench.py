"""PyTorch side of scripts/bench-compare.sh (run through torch-oracle).

For each MODEL.pt2 with its MODEL.io.safetensors inputs, it runs
torch.export.load(MODEL).module() in inference mode with the given thread
count: warm-up runs, then timed runs; and it times torch.mm on random
square float32 matrices. It prints one JSON object per line:

  {"kind": "model", "name": ..., "median_ms": ..., "p90_ms": ..., "cpu_ms": ...}
  {"kind": "gemm", "n": ..., "gflops": ..., "cpu_gflops": ...}

cpu_ms is process CPU time per run divided by the thread count, and
cpu_gflops the rate over that time: on a loaded machine they show what
the threads reach while they run.
"""

import argparse
import json
import math
import time

import torch
from safetensors.torch import load_file


def percentile(xs, q):
    s = sorted(xs)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def timed(fn, runs, warmup, threads):
    for _ in range(warmup):
        fn()
    lat = []
    c0 = time.process_time()
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        lat.append((time.perf_counter() - t) * 1000)
    cpu = (time.process_time() - c0) * 1000 / runs / threads
    return lat, cpu


def bench_model(path, io_path, runs, warmup, threads):
    mod = torch.export.load(path).module()
    tensors = load_file(io_path)
    inputs = []
    i = 0
    while f"input.{i}" in tensors:
        inputs.append(tensors[f"input.{i}"])
        i += 1
    with torch.inference_mode():
        lat, cpu = timed(lambda: mod(*inputs), runs, warmup, threads)
    return {"kind": "model", "name": path.rsplit("/", 1)[-1].removesuffix(".pt2"),
            "median_ms": median(lat), "p90_ms": percentile(lat, 0.9), "cpu_ms": cpu}


def bench_gemm(n, runs, threads):
    g = torch.Generator().manual_seed(0)
    a = torch.randn(n, n, generator=g)
    b = torch.randn(n, n, generator=g)
    c = torch.empty(n, n)
    lat, cpu = timed(lambda: torch.mm(a, b, out=c), runs, 2, threads)
    flop = 2.0 * n ** 3
    return {"kind": "gemm", "n": n, "gflops": flop / (median(lat) / 1000) / 1e9,
            "cpu_gflops": flop / (cpu / 1000) / 1e9}


def loaded_blas():
    """Names the BLAS library mapped into the process (Debian's torch links
    libblas.so.3, which the alternatives system points at OpenBLAS)."""
    try:
        with open("/proc/self/maps") as f:
            maps = f.read()
    except OSError:
        return "unknown"
    for name in ("openblas", "mkl", "blis", "libblas"):
        if name in maps:
            return name
    return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--gemm", default="1024,2048", help="square sizes, comma separated ('' for none)")
    ap.add_argument("models", nargs="*", help="MODEL.pt2:MODEL.io.safetensors")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.mm(torch.ones(64, 64), torch.ones(64, 64))  # loads the BLAS library
    blas = loaded_blas()
    print(json.dumps({"kind": "info", "torch": torch.__version__, "threads": torch.get_num_threads(), "blas": blas}), flush=True)
    for n in [int(x) for x in args.gemm.split(",") if x]:
        print(json.dumps(bench_gemm(n, max(3, args.runs), args.threads)), flush=True)
    for spec in args.models:
        pt2, io = spec.split(":", 1)
        print(json.dumps(bench_model(pt2, io, args.runs, args.warmup, args.threads)), flush=True)


if __name__ == "__main__":
    main()
