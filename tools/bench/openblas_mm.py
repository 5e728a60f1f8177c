"""torch.mm on square float32 matrices, for backend/native/gemm's
BenchmarkSgemmOpenBLAS (run through torch-oracle: Debian's torch, whose
BLAS is OpenBLAS).

  python3 openblas_mm.py THREADS RUNS N [N...]

prints one JSON line per size: {"n", "gflops" (median run), "blas"}.
"""

import json
import statistics
import sys
import time

import torch


def main():
    threads, runs, sizes = int(sys.argv[1]), int(sys.argv[2]), [int(a) for a in sys.argv[3:]]
    torch.set_num_threads(threads)
    torch.mm(torch.ones(64, 64), torch.ones(64, 64))
    blas = "unknown"
    with open("/proc/self/maps") as f:
        maps = f.read()
    for name in ("openblas", "mkl", "blis"):
        if name in maps:
            blas = name
            break
    for n in sizes:
        g = torch.Generator().manual_seed(n)
        a, b = torch.randn(n, n, generator=g), torch.randn(n, n, generator=g)
        c = torch.empty(n, n)
        for _ in range(2):
            torch.mm(a, b, out=c)
        lat = []
        for _ in range(runs):
            t = time.perf_counter()
            torch.mm(a, b, out=c)
            lat.append(time.perf_counter() - t)
        print(json.dumps({"n": n, "gflops": 2 * n**3 / statistics.median(lat) / 1e9, "blas": blas}), flush=True)


if __name__ == "__main__":
    main()
