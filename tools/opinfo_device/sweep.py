"""OpInfo on the tpu device: every sample of PyTorch's OpInfo database run with
its tensors on ``tpu`` and compared with the same call on CPU.

    python tools/opinfo_device/sweep.py --out docs/opinfo_device.jsonl [--ops add,mul] [--dtypes float32]
    python tools/opinfo_device/table.py docs/opinfo_device.jsonl > docs/device.md   (the table)

For each OpInfo of ``op_db`` and each dtype the CPU supports (among those the
device stores), the samples are made for the device, ``op.sample_inputs("tpu",
dtype)``, as PyTorch's own device-vs-CPU test does (test_ops.py,
test_compare_cpu); each runs on CPU first, with its tensors and device
arguments moved to CPU (a sample CPU rejects is not counted), then on tpu.
Outputs are compared as that test does: same dtypes and shapes, values
within atol = rtol = 1e-3 (NaN equal), after ``output_process_fn_grad``.
Where making the samples on tpu fails, they are made on CPU and moved. Each
sample is one of:

  pass            engine only (no op ran on PyTorch's CPU kernels, random ops aside)
  pass_fallback   right, but some op ran on PyTorch's CPU kernels (the fallback policy)
  mismatch        wrong values, dtype or shape
  error           tpu raised where CPU did not

Ops run in child processes (a crash loses only the op it hit, recorded as
``crash``); results are JSON lines, one per (op, dtype) with per-sample
outcomes and the first failure's detail.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "complex128"]


def load_op_db():
    """PyTorch's OpInfo database. Its test utilities import ``expecttest``
    (a test-only package neither torch install here has); only its TestCase
    base class is used at import, so a stand-in is given when it is missing."""
    try:
        import expecttest  # noqa: F401
    except ImportError:
        import types
        import unittest

        sys.modules["expecttest"] = types.SimpleNamespace(TestCase=unittest.TestCase)
    from torch.testing._internal.common_methods_invocations import op_db

    return op_db


def name_of(op) -> str:
    """The OpInfo's name as the table spells it ("div.no_rounding_mode")."""
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def _same_layout(x, device):
    """x on device with the same storage layout (offset, strides, the
    whole storage): views of a storage (as_strided with a storage offset)
    must see the same storage on both sides, with the same conjugate and
    negative bits."""
    import torch

    st = x.untyped_storage()
    st = st.cpu() if device == "cpu" else st.to(device)
    y = torch.empty(0, dtype=x.dtype, device=device).set_(st, x.storage_offset(), x.size(), x.stride())
    # the storage holds the stored values; lazy conjugate and negative bits
    # are the tensor's, and go with it
    if x.is_conj():
        y = y.conj()
    if x.is_neg():
        y = y._neg_view()
    return y


def _to_tpu(x):
    import torch

    if isinstance(x, torch.Tensor) and x.device.type == "cpu":
        return _same_layout(x, "tpu") if x.layout == torch.strided else x.to("tpu")
    if isinstance(x, torch.device) and x.type == "cpu":
        return torch.device("tpu")
    if isinstance(x, str) and x == "cpu":
        return "tpu"
    return x


def _to_cpu(x):
    import torch

    if isinstance(x, torch.Tensor):
        if x.device.type == "tpu" and x.layout == torch.strided:
            return _same_layout(x, "cpu")
        return x.cpu()
    if isinstance(x, torch.device) and x.type == "tpu":
        return torch.device("cpu")
    if isinstance(x, str) and x in ("tpu", "tpu:0"):
        return "cpu"
    return x


def _asks_cpu(s) -> bool:
    """Whether a sample names the CPU device itself (x.to("cpu")): its
    outputs are on CPU on both sides."""
    import torch
    from torch.utils._pytree import tree_flatten

    leaves, _ = tree_flatten((s.args, s.kwargs))
    return any(isinstance(v, torch.device) and v.type == "cpu" or v == "cpu" for v in leaves
               if isinstance(v, (torch.device, str)))


def _names_tpu(ti, ta, tk) -> bool:
    """Whether a call has a tpu tensor or names the tpu device: a factory
    sample with neither (``arange(2)``) makes CPU tensors on both sides."""
    import torch
    from torch.utils._pytree import tree_flatten

    leaves, _ = tree_flatten((ti, ta, tk))
    for v in leaves:
        if isinstance(v, torch.Tensor) and v.device.type == "tpu":
            return True
        if isinstance(v, torch.device) and v.type == "tpu" or isinstance(v, str) and v.startswith("tpu"):
            return True
    return False


def _moved(s, f):
    from torch.utils._pytree import tree_map

    return tree_map(f, s.input), tree_map(f, s.args), tree_map(f, s.kwargs)


# Ops whose results are uninitialised memory: only dtype, shape and device
# are compared.
UNINITIALISED = {"empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided", "empty_permuted"}


def tolerance(dt) -> tuple[float, float]:
    """(atol, rtol): PyTorch's test_compare_cpu uses 1e-3 for both; float16
    and bfloat16 results are compared at their own resolution
    (torch.testing's defaults for them) where that is looser."""
    import torch

    if dt == torch.bfloat16:
        return 1e-3, 1.6e-2
    if dt == torch.float16:
        return 1e-3, 2e-3
    return 1e-3, 1e-3


def compare(got, want, values: bool = True, cpu_ok: bool = False) -> str:
    """Why got (from tpu) differs from want (CPU), or "". values=False
    compares only dtypes, shapes and devices; cpu_ok allows outputs on CPU."""
    import torch
    from torch.utils._pytree import tree_flatten

    g, _ = tree_flatten(got)
    w, _ = tree_flatten(want)
    if len(g) != len(w):
        return f"{len(g)} outputs, CPU {len(w)}"
    for i, (a, b) in enumerate(zip(g, w)):
        if isinstance(b, torch.Tensor):
            if not isinstance(a, torch.Tensor):
                return f"output {i} is {type(a).__name__}, CPU a tensor"
            if a.device.type != "tpu" and b.numel() > 0 and not cpu_ok:
                return f"output {i} is on {a.device}"
            a = a.cpu()
            if a.dtype != b.dtype:
                return f"output {i} dtype {a.dtype}, CPU {b.dtype}"
            if a.shape != b.shape:
                return f"output {i} shape {tuple(a.shape)}, CPU {tuple(b.shape)}"
            if not values:
                continue
            atol, rtol = tolerance(b.dtype)
            try:
                torch.testing.assert_close(a, b, atol=atol, rtol=rtol, equal_nan=True)
            except AssertionError as e:
                return f"output {i}: " + " ".join(str(e).split("\n")[:4])
        elif isinstance(b, float) and isinstance(a, float):
            if not (abs(a - b) <= 1e-3 + 1e-3 * abs(b) or (a != a and b != b)):
                return f"output {i} = {a}, CPU {b}"
        elif a != b:
            return f"output {i} = {a!r}, CPU {b!r}"
    return ""


def run_op(op, dt) -> dict:
    """Runs every sample of OpInfo op for dtype dt on tpu and CPU; returns
    the (op, dtype) record."""
    import torch

    rec = {"op": name_of(op), "dtype": str(dt).replace("torch.", ""), "pass": 0, "pass_fallback": 0,
           "mismatch": 0, "error": 0, "cpu_error": 0, "first": "", "fallback_ops": []}
    t0 = time.time()
    on = "tpu"
    try:
        torch.manual_seed(0)
        samples = list(op.sample_inputs("tpu", dt, requires_grad=False))
    except Exception:
        on = "cpu"
        try:
            torch.manual_seed(0)
            samples = list(op.sample_inputs("cpu", dt, requires_grad=False))
        except Exception as e:
            rec["first"] = f"sample_inputs: {e}"
            samples = []
    rec["samples_made_on"] = on
    before_ops = {e["op"]: e["calls"] for e in torch.tpu.fallbacks() if not e["random"]}
    for s in samples:
        torch.manual_seed(0)
        try:
            ci, ca, ck = _moved(s, _to_cpu)
            want = op(ci, *ca, **ck)
            want = s.output_process_fn_grad(want)
        except Exception:
            rec["cpu_error"] += 1
            continue
        before = torch.tpu.fallback_calls()
        torch.manual_seed(0)
        try:
            ti, ta, tk = (s.input, s.args, s.kwargs) if on == "tpu" else _moved(s, _to_tpu)
            got = op(ti, *ta, **tk)
            got = s.output_process_fn_grad(got)
            why = compare(got, want, values=op.name not in UNINITIALISED, cpu_ok=_asks_cpu(s) or not _names_tpu(ti, ta, tk))
            torch.tpu.synchronize()
        except Exception as e:
            rec["error"] += 1
            if not rec["first"]:
                rec["first"] = "error: " + " ".join(f"{type(e).__name__}: {e}".split("\n")[:3])[:400]
            continue
        fell = torch.tpu.fallback_calls() != before
        if why:
            rec["mismatch"] += 1
            if not rec["first"]:
                rec["first"] = "mismatch: " + why[:400]
        elif fell:
            rec["pass_fallback"] += 1
        else:
            rec["pass"] += 1
    rec["seconds"] = round(time.time() - t0, 2)
    if rec["pass_fallback"] or rec["mismatch"] or rec["error"]:
        rec["fallback_ops"] = sorted(e["op"] for e in torch.tpu.fallbacks()
                                     if not e["random"] and e["calls"] != before_ops.get(e["op"], 0))
    return rec


def done_pairs(out: str) -> set[tuple[str, str]]:
    """The (OpInfo, dtype) pairs already in a results file."""
    done = set()
    if os.path.exists(out):
        for line in open(out):
            r = json.loads(line)
            done.add((r["op"], r["dtype"]))
    return done


def child(names: list[str], dtypes: list[str], out: str, resume: bool = False) -> None:
    import warnings

    import torch

    import torchtpu  # noqa: F401

    op_db = load_op_db()
    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    wanted = set(names)
    dts = {getattr(torch, d) for d in dtypes}
    done = done_pairs(out) if resume else set()
    with open(out, "a") as f:
        for op in op_db:
            key = name_of(op)
            if key not in wanted:
                continue
            for dt in sorted(op.supported_dtypes("cpu") & dts, key=str):
                if (key, str(dt).replace("torch.", "")) in done:
                    continue
                print(f"START {key} {dt}", flush=True)
                f.write(json.dumps(run_op(op, dt)) + "\n")
                f.flush()
                print(f"DONE {key} {dt}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ops", default="", help="comma-separated OpInfo names (default: all)")
    ap.add_argument("--dtypes", default=",".join(DTYPES))
    ap.add_argument("--chunk", type=int, default=40, help="OpInfos per child process")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--resume", action="store_true", help="skip (op, dtype) pairs already in --out")
    args = ap.parse_args()
    dtypes = [d for d in args.dtypes.split(",") if d]
    if args.child:
        child(args.ops.split(","), dtypes, args.out, args.resume)
        return
    op_db = load_op_db()
    names = [name_of(o) for o in op_db]
    if args.ops:
        want = set(args.ops.split(","))
        names = [n for n in names if n in want or n.split(".")[0] in want]
    done = set()
    if args.resume:
        done = done_pairs(args.out)
    elif os.path.exists(args.out):
        os.unlink(args.out)
    import torch

    dts = {getattr(torch, d) for d in dtypes}
    by_name = {name_of(o): o for o in op_db}
    todo = [n for n in names
            if any((n, str(dt).replace("torch.", "")) not in done for dt in by_name[n].supported_dtypes("cpu") & dts)]
    here = Path(__file__).resolve()
    while todo:
        chunk, todo = todo[:args.chunk], todo[args.chunk:]
        while chunk:
            cmd = [sys.executable, str(here), "--child", "--out", args.out, "--ops", ",".join(chunk),
                   "--dtypes", ",".join(dtypes)] + (["--resume"] if args.resume else [])
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True)
            current, finished = None, set()
            for line in p.stdout:
                if line.startswith("START "):
                    current = line.split()[1:3]
                elif line.startswith("DONE "):
                    current = None
                    finished.add(line.split()[1])
            rc = p.wait()
            if rc == 0:
                chunk = []
                continue
            # a crash: record it, go on after the op that crashed
            if current:
                with open(args.out, "a") as f:
                    f.write(json.dumps({"op": current[0], "dtype": current[1].replace("torch.", ""), "pass": 0,
                                        "pass_fallback": 0, "mismatch": 0, "error": 0, "cpu_error": 0,
                                        "crash": rc, "first": f"process died (exit {rc})"}) + "\n")
                crashed = current[0]
                chunk = chunk[chunk.index(crashed) + 1:] if crashed in chunk else []
            else:
                print(f"sweep: child exited {rc} outside an op; giving up on {chunk}", file=sys.stderr)
                chunk = []
        print(f"sweep: {len(names) - len(todo)}/{len(names)} OpInfos", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
