"""torch.compile(backend="torchtpu") against eager PyTorch and inductor, side by side in one run.

    python tools/bench/compile_bench.py [--threads 2] [--runs 20] [--warmup 3] [--json FILE] [MODEL...]

Models (random weights, no hub): resnet18 (1x3x224x224, inference), resnet18_train (batch 8 at
112x112: forward, backward and an SGD step), gpt2 (GPT-2 small-config LM, 4 layers, d=128,
batch 4 x seq 64: inference) and gpt2_train (the same model: forward, loss, backward, AdamW
step). Each column compiles the model its own way and warms up; then the columns are timed
round-robin (a step of each in turn, --runs rounds, so load changes fall on all alike). The
table shows median wall times, the ratios torchtpu / eager and torchtpu / inductor of the
medians (below 1: torchtpu is faster) and the same ratios of median process CPU time per step
(steadier on a shared machine). Every column checks its outputs against eager first.

Inside PyTorch the engine's parallel loops run on PyTorch's intra-op threads, lent for each
run (one thread runs the program, the others serve its loops); --host-threads adds a column
"tt-own" where they run on the engine's own helper threads instead, split for
torch.get_num_threads() (TORCHTPU_HOST_THREADS=0), switched per step in the same process, to
measure what one pool buys.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time
from typing import Any, Callable

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import torchtpu  # noqa: E402  (registers the backend)
import engine_profile  # noqa: E402  (beside this file)


def resnet18(train: bool):
    import torchvision

    torch.manual_seed(0)
    m = torchvision.models.resnet18(weights=None)
    if not train:
        return m.eval(), (torch.randn(1, 3, 224, 224),), None
    x, y = torch.randn(8, 3, 112, 112), torch.randint(0, 1000, (8,))
    return m.train(), (x, y), lambda out, b: torch.nn.functional.cross_entropy(out, b[1])


def gpt2(train: bool):
    import transformers

    torch.manual_seed(0)
    cfg = transformers.GPT2Config(vocab_size=1024, n_positions=128, n_embd=128, n_layer=4, n_head=4,
                                  resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0,
                                  eos_token_id=0)
    m = transformers.GPT2LMHeadModel(cfg)
    ids = torch.randint(0, 1024, (4, 64))
    return (m.train() if train else m.eval()), (ids,), (lambda out, b: out.loss) if train else None


MODELS: dict[str, Callable[[], Any]] = {
    "resnet18": lambda: resnet18(False),
    "resnet18_train": lambda: resnet18(True),
    "gpt2": lambda: gpt2(False),
    "gpt2_train": lambda: gpt2(True),
}


def step_fn(name: str, model, args, loss_fn, backend: str | None):
    f = model if backend is None else torch.compile(model, backend=backend)
    if loss_fn is None:
        def infer():
            with torch.no_grad():
                return f(*args)
        return infer
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4) if "gpt" in name else \
        torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)

    def train():
        opt.zero_grad(set_to_none=True)
        if "gpt" in name:
            out = f(args[0], labels=args[0])
        else:
            out = f(args[0])
        loss = loss_fn(out, args)
        loss.backward()
        opt.step()
        return loss.detach()
    return train


def first_tensor(out):
    if isinstance(out, torch.Tensor):
        return out
    if hasattr(out, "logits"):
        return out.logits
    return out[0]


def prepare(name: str, backend: str | None, warmup: int):
    """A column's step function, compiled and warmed up, with its first
    output and the first call's time (compile included)."""
    model, args, loss_fn = MODELS[name]()
    model = copy.deepcopy(model)
    step = step_fn(name, model, args, loss_fn, backend)
    t0 = time.perf_counter()
    out = step()
    first = time.perf_counter() - t0
    for _ in range(warmup):
        step()
    return step, first_tensor(out), first


def _pool_switch(step: Callable[[], Any], col: str) -> Callable[[], Any]:
    """step with the engine's loops on PyTorch's threads (torchtpu) or on
    its own helpers (tt-own), switched before each step."""
    from torchtpu.device import _ext

    lib = _ext.load()
    on = 0 if col == "tt-own" else 1

    def switched():
        if lib.ttx_host_parallel(on) != 0:
            raise RuntimeError("torchtpu: the engine library refused the thread pool switch")
        return step()

    return switched


def measure(steps: dict, runs: int) -> dict:
    """Times the columns round-robin (one step of each in turn), so that a
    change in the machine's load falls on every column alike: median wall
    time and median process CPU time per step, in ms."""
    wall: dict = {c: [] for c in steps}
    cpu: dict = {c: [] for c in steps}
    for _ in range(runs):
        for c, step in steps.items():
            c0, t0 = time.process_time(), time.perf_counter()
            step()
            wall[c].append(time.perf_counter() - t0)
            cpu[c].append(time.process_time() - c0)
    return {c: (statistics.median(wall[c]) * 1e3, statistics.median(cpu[c]) * 1e3) for c in steps}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*", default=list(MODELS))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--no-inductor", action="store_true", help="skip the inductor column")
    ap.add_argument("--host-threads", action="store_true",
                    help="add a torchtpu column whose loops run on the engine's own helper threads")
    ap.add_argument("--json", help="write the results as JSON to this file")
    ap.add_argument("--profile", metavar="DIR",
                    help="profile each torchtpu column (Go CPU profile) into DIR, report the spin-wait share")
    ap.add_argument("--profile-seconds", type=float, default=1.0,
                    help="the least time a column runs under the profile (default 1)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    os.environ.setdefault("TORCHTPU_THREADS", str(a.threads))
    columns = [("eager", None), ("torchtpu", "torchtpu")] + ([] if a.no_inductor else [("inductor", "inductor")])
    if a.host_threads:
        columns.append(("tt-own", "torchtpu"))
    results = []
    print(f"torch {torch.__version__}, {a.threads} threads, medians of {a.runs} runs after {a.warmup} warm-up;"
          f" load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"{'model':<16}" + "".join(f"{c:>12}" for c, _ in columns) +
          f"{'tt/eager':>10}{'tt/ind':>9}{'cpu t/e':>10}{'cpu t/i':>9}  first call (s)")
    for name in a.models:
        row: dict[str, Any] = {"model": name}
        steps = {}
        ref = None
        for col, backend in columns:
            torch._dynamo.reset()
            try:
                step, out, first = prepare(name, backend, a.warmup)
            except Exception as e:  # a column that cannot run says why
                row[col + "_error"] = f"{type(e).__name__}: {str(e)[:200]}"
                continue
            if ref is None:
                ref = out
            elif not torch.allclose(out.float(), ref.float(), rtol=1e-3, atol=1e-3):
                row[col + "_error"] = "outputs differ from eager"
            steps[col] = _pool_switch(step, col) if backend == "torchtpu" else step
            row[col + "_first_s"] = first
        for col, (ms, cpu_ms) in measure(steps, a.runs).items():
            row[col], row[col + "_cpu"] = ms, cpu_ms
        tt, ea, ind = row.get("torchtpu"), row.get("eager"), row.get("inductor")
        r1 = f"{tt / ea:.2f}" if tt and ea else "-"
        r2 = f"{tt / ind:.2f}" if tt and ind else "-"
        cells = "".join(f"{row[c]:>10.2f}ms" if row.get(c) else f"{'-':>12}" for c, _ in columns)
        cr1 = f"{row['torchtpu_cpu'] / row['eager_cpu']:.2f}" if tt and ea else "-"
        cr2 = f"{row['torchtpu_cpu'] / row['inductor_cpu']:.2f}" if tt and ind else "-"
        firsts = " ".join(f"{c}={row.get(c + '_first_s', 0):.1f}" for c, _ in columns if row.get(c))
        print(f"{name:<16}{cells}{r1:>10}{r2:>9}{cr1:>10}{cr2:>9}  {firsts}", flush=True)
        for c, _ in columns:
            if row.get(c + "_error"):
                print(f"    {c}: {row[c + '_error']}")
        if a.profile:
            for c, backend in columns:
                if backend == "torchtpu" and c in steps:
                    path = os.path.join(a.profile, f"{name}-{c}.pprof")
                    row[c + "_profile"] = engine_profile.profiled(steps[c], path, a.runs, a.profile_seconds)
                    print("    " + engine_profile.line(c, row[c + "_profile"]), flush=True)
        results.append(row)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
