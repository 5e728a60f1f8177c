"""The table of scripts/bench-compare.sh, from its results.jsonl.

  python compare_table.py --threads N --cpu TEXT --load TEXT results.jsonl

Each line is one measurement: {"round", "side", "kind", ...} with kind
"peak" (one core's FMA peak), "gemm" (n, gflops), "model" (name,
median_ms, cpu_ms) or "error". Cells are medians over rounds. The best
peer is the fastest of inductor, ort and xla; ratio = torchtpu / best peer
for latency (< 1: torchtpu is faster) and torchtpu / best for GFLOP/s
(> 1: faster).
"""

import argparse
import json
import math
import statistics

SIDES = ["torchtpu", "eager", "inductor", "ort", "xla"]
PEERS = ["inductor", "ort", "xla"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--cpu", default="?")
    ap.add_argument("--load", default="?")
    ap.add_argument("--max-load", type=float, default=math.nan,
                    help="the most cores other processes kept busy while measuring")
    ap.add_argument("results")
    a = ap.parse_args()
    rows = [json.loads(line) for line in open(a.results) if line.startswith("{")]
    rounds = len({r["round"] for r in rows if r.get("round")})

    def med(kind, key, val, side, field):
        v = [r[field] for r in rows if r.get("kind") == kind and r.get(key) == val and r.get("side") == side and field in r]
        return statistics.median(v) if v else math.nan

    info = next((r for r in rows if r.get("kind") == "info"), {})
    peak = max((r.get("gflops", 0) for r in rows if r.get("kind") == "peak"), default=0)
    print(f"CPU: {a.cpu}; {a.threads} threads; load average at the end {a.load}; {rounds} rounds")
    if not math.isnan(a.max_load):
        cores = a.threads
        try:
            import os
            cores = os.cpu_count() or a.threads
        except Exception:  # noqa: BLE001
            pass
        quiet = a.max_load <= 0.5 * cores
        print(f"other processes' load while measuring: up to {a.max_load:.2f} busy cores ({a.max_load / cores:.2f} per core): " +
              ("quiet enough" if quiet else "LOADED, above 0.5 per core: wall times include other processes' work; read the CPU-time table"))
    print(f"one core's measured FMA peak: {peak:.1f} GFLOP/s (f32, register-only FMAs of the widest vectors: AVX-512 or AVX2); "
          f"{a.threads} cores: {a.threads * peak:.1f}")
    print(f"peers: torch {info.get('torch', '?')}, onnxruntime {info.get('onnxruntime', '?')}")
    cell = lambda v, f: "-" if math.isnan(v) else f.format(v)  # noqa: E731

    ns = sorted({r["n"] for r in rows if r.get("kind") == "gemm"})
    if ns:
        print()
        print("| GEMM f32, GFLOP/s | " + " | ".join(SIDES) + " | ours / best peer | ours / peak |")
        print("|---" * (len(SIDES) + 3) + "|")
        for n in ns:
            v = {s: med("gemm", "n", n, s, "gflops") for s in SIDES}
            best = max((v[s] for s in SIDES[1:] if not math.isnan(v[s])), default=math.nan)
            share = v["torchtpu"] / (a.threads * peak) if peak else math.nan
            print(f"| {n}³ | " + " | ".join(cell(v[s], "{:.0f}") for s in SIDES) +
                  f" | {cell(v['torchtpu'] / best, '{:.2f}')} | {cell(share, '{:.0%}')} |")

    names = list(dict.fromkeys(r["name"] for r in rows if r.get("kind") == "model"))
    if names:
        print()
        # busy: CPU time per run over threads × wall time per run, the share
        # of the threads' time the side kept busy (spinning included)
        print("| model, median ms | " + " | ".join(SIDES) + " | ours / best peer | ours cpu ms | ours busy | best peer busy |")
        print("|---" * (len(SIDES) + 5) + "|")
        for n in names:
            v = {s: med("model", "name", n, s, "median_ms") for s in SIDES}
            peers = [s for s in PEERS if not math.isnan(v[s])]
            bs = min(peers, key=lambda s: v[s]) if peers else None
            best = v[bs] if bs else math.nan
            cpu = med("model", "name", n, "torchtpu", "cpu_ms")
            busy = cpu / v["torchtpu"]
            pbusy = med("model", "name", n, bs, "cpu_ms") / best if bs else math.nan
            print(f"| {n} | " + " | ".join(cell(v[s], "{:.3g}") for s in SIDES) +
                  f" | {cell(v['torchtpu'] / best, '{:.2f}')} | {cell(cpu, '{:.3g}')} | {cell(busy, '{:.0%}')} | {cell(pbusy, '{:.0%}')} |")
    if names:
        # on a loaded machine wall times measure the other processes too:
        # CPU time per run per thread, and the fastest run, are steadier
        for field, title, fmt in (("cpu_ms", "model, CPU ms per run per thread", "{:.3g}"),
                                  ("min_ms", "model, fastest run ms", "{:.3g}")):
            print()
            print(f"| {title} | " + " | ".join(SIDES) + " | ours / best peer |")
            print("|---" * (len(SIDES) + 2) + "|")
            for n in names:
                v = {s: med("model", "name", n, s, field) for s in SIDES}
                best = min((v[s] for s in PEERS if not math.isnan(v[s])), default=math.nan)
                print(f"| {n} | " + " | ".join(cell(v[s], fmt) for s in SIDES) +
                      f" | {cell(v['torchtpu'] / best, '{:.2f}')} |")
    errs = {}
    for r in rows:
        if r.get("kind") == "error":
            errs[(r.get("side"), r.get("name", r.get("n")))] = r.get("error")
        if r.get("kind") == "model" and r.get("max_abs_err", 0) > 1e-2:
            errs[(r["side"], r["name"])] = f"output differs from PyTorch's by {r['max_abs_err']:.3g}"
    for (side, what), e in errs.items():
        print(f"note: {side} on {what}: {e}")


if __name__ == "__main__":
    main()
