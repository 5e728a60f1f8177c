"""The tpu device against PyTorch's CPU eager, side by side in one run.

    PYTHONPATH=python python tools/bench/device_bench.py [--repeats 5] [--json out.json]

- per-op time of a small add (64 floats) and a small matmul (16x16) in
  PyTorch CPU eager and on tpu in each mode (async, debug, fused): N ops in a
  loop, then a synchronisation, best of the repeats; each op's result is a
  new tensor, as in real code.
- one training step (forward, backward, AdamW) of a 1024-wide MLP (four
  Linear/GELU/LayerNorm blocks, batch 256) on CPU eager and on tpu, async
  and fused: large tensors (--mlp-steps, 0 to skip it);
- one training step (forward, backward, AdamW) of the tiny GPT of
  python/tests/test_device_training.py on CPU eager and on tpu: async eager,
  fused, and the model compiled with torch.compile on tpu tensors (the rest
  of the step async or fused); the CPU-tensor compile path for scale.

Columns alternate within each repeat (CPU, then each tpu mode), so load on
the machine hits all of them alike. Ratios are tpu/CPU: below 1 is faster.
Both wall time and process CPU time are reported: on a shared machine the
CPU time is the steadier measure of the work each side does.

--profile DIR takes the engine's Go CPU profile (torchtpu.profile_engine) of each training-step
column that runs torchtpu (all but CPU eager): after the timed repeats, one more run of that
column whose timed steps (the batches again and again, for at least --profile-seconds) run under
the profile, into DIR/gpt_step-MODE.pprof; a line per column gives the engine's samples and their
share in spin-wait or idle-wait code: the parallel-loop pool waiting (helpers polling between
loops, the caller polling for them) and runtime.futex/usleep/procyield/osyield (see
engine_profile.py). Read a file with `go tool pprof -top python/torchtpu/lib/libtorchtpu.so FILE`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "python" / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import torchtpu  # noqa: E402,F401
import engine_profile  # noqa: E402  (beside this file)


def timed(fn, n: int, sync) -> tuple[float, float]:
    """Seconds per call (wall, process CPU) of n calls and one sync."""
    w, c = time.perf_counter(), time.process_time()
    for _ in range(n):
        fn()
    sync()
    return (time.perf_counter() - w) / n, (time.process_time() - c) / n


def nosync() -> None:
    pass


def op_bench(repeats: int, n: int) -> dict:
    x, m = torch.randn(64), torch.randn(16, 16)
    cases = {"add64": lambda a, b: a + b, "mm16": lambda a, b: a @ b}
    inputs = {"add64": x, "mm16": m}
    out: dict = {}
    for name, f in cases.items():
        cpu_in = inputs[name]
        tpu_in = cpu_in.to("tpu")
        best: dict[str, list[float]] = {}
        for mode in ("cpu", "async", "debug", "fused"):
            best[mode] = [1e9, 1e9]
        for _ in range(repeats):
            for mode in ("cpu", "async", "debug", "fused"):
                if mode == "cpu":
                    a = cpu_in
                    fn, sync = (lambda: f(a, a)), nosync
                else:
                    torch.tpu.set_mode(mode)
                    a = tpu_in
                    fn, sync = (lambda: f(a, a)), torch.tpu.synchronize
                timed(fn, n // 10, sync)  # warm: plans, blocks, caches
                wall, cpu = timed(fn, n, sync)
                best[mode] = [min(best[mode][0], wall), min(best[mode][1], cpu)]
        torch.tpu.set_mode("async")
        out[name] = {m: {"wall_us": v[0] * 1e6, "cpu_us": v[1] * 1e6} for m, v in best.items()}
        for m in ("async", "debug", "fused"):
            out[name][m]["ratio_wall"] = best[m][0] / best["cpu"][0]
            out[name][m]["ratio_cpu"] = best[m][1] / best["cpu"][1]
    return out


# The training step's columns: PyTorch CPU eager; the tpu device in async
# eager mode, in fused mode, and with the model compiled (torch.compile on
# tpu tensors: the forward and backward graphs run on the device's
# buffers, the loss and AdamW are eager tpu ops, async or fused); and, for
# scale, the CPU-tensor compile path (torch.compile with backend torchtpu
# on CPU tensors).
STEP_MODES = ("cpu", "async", "fused", "compiled", "compiled+fused", "cpu-compiled")


def gpt_bench(repeats: int, steps: int, profile: str = "", profile_seconds: float = 1.0) -> dict:
    import torch.nn.functional as F
    from test_device_training import TinyGPT

    g = torch.Generator().manual_seed(2)
    data = [torch.randint(0, 50, (4, 17), generator=g) for _ in range(steps)]

    def run(device: str, compiled: bool, prof: str = "") -> Any:
        """(wall, CPU) seconds per timed step; with prof, the profiled run's
        engine_profile.profiled dict instead."""
        torch.manual_seed(0)
        model = TinyGPT().to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
        fwd = model
        if compiled:
            torch._dynamo.reset()  # a new model per run: no recompile limit
            fwd = torch.compile(model, backend="torchtpu")
        batches = [(s[:, :-1].to(device), s[:, 1:].to(device)) for s in data]

        def step(x, y):
            opt.zero_grad()
            logits = fwd(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
            loss.backward()
            opt.step()
            return loss.item()

        for x, y in batches[:3]:  # warm: plans, the step's block, compiles
            step(x, y)
        if prof:
            timed_batches = itertools.cycle(batches[3:])
            return engine_profile.profiled(lambda: step(*next(timed_batches)), prof, len(batches) - 3,
                                           profile_seconds)
        w, c = time.perf_counter(), time.process_time()
        for x, y in batches[3:]:
            step(x, y)
        k = len(batches) - 3
        return (time.perf_counter() - w) / k, (time.process_time() - c) / k

    best = {m: [1e9, 1e9] for m in STEP_MODES}
    for _ in range(repeats):
        for mode in STEP_MODES:
            if mode.startswith("cpu"):
                r = run("cpu", mode == "cpu-compiled")
            else:
                torch.tpu.set_mode("fused" if mode.endswith("fused") else "async")
                r = run("tpu", mode.startswith("compiled"))
                torch.tpu.set_mode("async")
            best[mode] = [min(best[mode][0], r[0]), min(best[mode][1], r[1])]
    profiles = {}
    for mode in STEP_MODES[1:] if profile else ():
        torch.tpu.set_mode("fused" if mode.endswith("fused") else "async")
        path = str(Path(profile) / f"gpt_step-{mode}.pprof")
        profiles[mode] = run("cpu" if mode.startswith("cpu") else "tpu", "compiled" in mode, path)
        torch.tpu.set_mode("async")
    if torchtpu.report()["on_eager"]:
        raise SystemExit(f"a compiled graph ran in eager PyTorch:\n{torchtpu.report()}")
    out = {m: {"wall_ms": v[0] * 1e3, "cpu_ms": v[1] * 1e3} for m, v in best.items()}
    for m in STEP_MODES[1:]:
        out[m]["ratio_wall"] = best[m][0] / best["cpu"][0]
        out[m]["ratio_cpu"] = best[m][1] / best["cpu"][1]
        if m in profiles:
            out[m]["profile"] = profiles[m]
    return out


MLP_MODES = ("cpu", "async", "fused")


def mlp_bench(repeats: int, steps: int) -> dict:
    """Training steps of a 1024-wide MLP (4 blocks of Linear, GELU and
    LayerNorm, then a 10-way head; batch 256; cross-entropy, AdamW): large
    tensors, where the tiny GPT's are small. Best of the repeats, columns
    in turn."""
    import torch.nn as nn
    import torch.nn.functional as F

    def run(device: str) -> tuple[float, float]:
        torch.manual_seed(0)
        model = nn.Sequential(*[nn.Sequential(nn.Linear(1024, 1024), nn.GELU(), nn.LayerNorm(1024))
                                for _ in range(4)], nn.Linear(1024, 10)).to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        x, y = torch.randn(256, 1024).to(device), torch.randint(0, 10, (256,)).to(device)

        def step() -> float:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss.item()

        for _ in range(2):
            step()
        w, c = time.perf_counter(), time.process_time()
        for _ in range(steps):
            step()
        return (time.perf_counter() - w) / steps, (time.process_time() - c) / steps

    best = {m: [1e9, 1e9] for m in MLP_MODES}
    for _ in range(repeats):
        for mode in MLP_MODES:
            if mode == "cpu":
                r = run("cpu")
            else:
                torch.tpu.set_mode(mode)
                r = run("tpu")
                torch.tpu.set_mode("async")
            best[mode] = [min(best[mode][0], r[0]), min(best[mode][1], r[1])]
    out = {m: {"wall_ms": v[0] * 1e3, "cpu_ms": v[1] * 1e3} for m, v in best.items()}
    for m in MLP_MODES[1:]:
        out[m]["ratio_wall"] = best[m][0] / best["cpu"][0]
        out[m]["ratio_cpu"] = best[m][1] / best["cpu"][1]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--ops", type=int, default=4000, help="ops per timed loop")
    ap.add_argument("--steps", type=int, default=13, help="training steps per run (3 warm)")
    ap.add_argument("--mlp-steps", type=int, default=4, help="timed steps per run of the 1024-wide MLP (0: skip it)")
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "1")))
    ap.add_argument("--json", default="")
    ap.add_argument("--profile", metavar="DIR", default="",
                    help="profile each torchtpu training-step column into DIR, report the spin-wait share")
    ap.add_argument("--profile-seconds", type=float, default=1.0,
                    help="the least time a column runs under the profile (default 1)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    res = {"torch": torch.__version__, "threads": args.threads, "ops": op_bench(args.repeats, args.ops),
           "gpt_step": gpt_bench(args.repeats, args.steps, args.profile, args.profile_seconds)}
    if args.mlp_steps > 0:
        res["mlp_step"] = mlp_bench(args.repeats, args.mlp_steps)
    for name, r in res["ops"].items():
        print(f"{name}: CPU eager {r['cpu']['wall_us']:.2f} us/op (cpu time {r['cpu']['cpu_us']:.2f})")
        for m in ("async", "debug", "fused"):
            print(f"  tpu {m:<6} {r[m]['wall_us']:8.2f} us/op  ratio {r[m]['ratio_wall']:.2f}  "
                  f"(cpu time {r[m]['cpu_us']:.2f}, ratio {r[m]['ratio_cpu']:.2f})")
    g = res["gpt_step"]
    print(f"tiny GPT training step: CPU eager {g['cpu']['wall_ms']:.2f} ms (cpu time {g['cpu']['cpu_ms']:.2f})")
    for m in STEP_MODES[1:]:
        where = "CPU" if m.startswith("cpu") else "tpu"
        print(f"  {where} {m:<15} {g[m]['wall_ms']:8.2f} ms  ratio {g[m]['ratio_wall']:.2f}  "
              f"(cpu time {g[m]['cpu_ms']:.2f}, ratio {g[m]['ratio_cpu']:.2f})")
        if "profile" in g[m]:
            print("      " + engine_profile.line(m, g[m]["profile"]))
    if "mlp_step" in res:
        g = res["mlp_step"]
        print(f"1024-wide MLP training step: CPU eager {g['cpu']['wall_ms']:.2f} ms (cpu time {g['cpu']['cpu_ms']:.2f})")
        for m in MLP_MODES[1:]:
            print(f"  tpu {m:<15} {g[m]['wall_ms']:8.2f} ms  ratio {g[m]['ratio_wall']:.2f}  "
                  f"(cpu time {g[m]['cpu_ms']:.2f}, ratio {g[m]['ratio_cpu']:.2f})")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
