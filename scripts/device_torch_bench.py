"""Median latency (ms) of a torch.export archive on CUDA: eager, then torch.compile.

Usage: python3 device_torch_bench.py MODEL.pt2 MODEL.io.safetensors
Prints two numbers on one line. Used by device-check.sh.
"""
import statistics
import sys
import time

import torch
from safetensors.torch import load_file


def median_ms(fn, args, runs=20, warmup=3):
    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn(*args)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    ep = torch.export.load(sys.argv[1])
    io = load_file(sys.argv[2])
    n = len([k for k in io if k.startswith("input.")])
    args = [io[f"input.{i}"].cuda() for i in range(n)]
    mod = ep.module().cuda()
    with torch.no_grad():
        eager = median_ms(mod, args)
        compiled = median_ms(torch.compile(mod), args)
    print(f"{eager:.3f} {compiled:.3f}")


if __name__ == "__main__":
    main()
