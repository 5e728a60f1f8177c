"""The peers' side of scripts/bench-compare.sh: PyTorch eager, inductor and
ONNX Runtime on the same exported programs, with the same timing loop.

  python peers_bench.py [--threads N] [--runs N] [--warmup N]
      [--sides eager,inductor,ort] [--gemm 512,1024] [DIR/NAME ...]

DIR/NAME names DIR/NAME.pt2 with DIR/NAME.io.safetensors (inputs and
PyTorch's outputs) and DIR/NAME.onnx. eager runs
torch.export.load(NAME.pt2).module(); inductor runs torch.compile of that
module (default options); ort runs NAME.onnx in an InferenceSession
(sequential, all graph optimisations, N intra-op threads). Each output is
checked against the .io file's (max_abs_err). For --gemm, eager and
inductor time torch.mm and ort a one-MatMul ONNX model on random square
float32 matrices. One JSON object per line:

  {"kind": "model", "side": ..., "name": ..., "median_ms": ..., "p90_ms": ..., "cpu_ms": ..., "max_abs_err": ...}
  {"kind": "gemm", "side": ..., "n": ..., "gflops": ..., "cpu_gflops": ...}
  {"kind": "error", "side": ..., "name": ..., "error": ...}
"""

import argparse
import json
import os
import statistics
import time

import numpy as np
import torch
from safetensors.torch import load_file


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
    lat.sort()
    p90 = lat[max(0, -(-9 * len(lat) // 10) - 1)]
    return {"median_ms": statistics.median(lat), "p90_ms": p90, "min_ms": lat[0], "cpu_ms": cpu}


def flat(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, np.ndarray):
        return [torch.from_numpy(out)]
    return [t for o in out for t in flat(o)]


def max_err(outs, want):
    err = 0.0
    for i, o in enumerate(outs):
        w = want[f"output.{i}"]
        err = max(err, (o.to(w.dtype) - w).abs().max().item() if w.numel() else 0.0)
    return err


def ort_session(path, threads):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def bench_model(spec, side, args):
    name = os.path.basename(spec)
    t = load_file(spec + ".io.safetensors")
    inputs = [t[f"input.{i}"] for i in range(sum(k.startswith("input.") for k in t))]
    want = {k: v for k, v in t.items() if k.startswith("output.")}
    res = {"kind": "model", "side": side, "name": name}
    t0 = time.perf_counter()
    if side == "ort":
        s = ort_session(spec + ".onnx", args.threads)
        feed = {i.name: x.numpy() for i, x in zip(s.get_inputs(), inputs)}
        fn = lambda: s.run(None, feed)  # noqa: E731
    else:
        mod = torch.export.load(spec + ".pt2").module()
        if side == "inductor":
            mod = torch.compile(mod)
        fn = lambda: mod(*inputs)  # noqa: E731
    with torch.inference_mode():
        outs = flat(fn())
        res["first_run_ms"] = (time.perf_counter() - t0) * 1000
        res["max_abs_err"] = max_err(outs, want)
        res.update(timed(fn, args.runs, args.warmup, args.threads))
    return res


def bench_gemm(n, side, args):
    g = torch.Generator().manual_seed(0)
    a = torch.randn(n, n, generator=g)
    b = torch.randn(n, n, generator=g)
    if side == "ort":
        import onnx
        from onnx import TensorProto, helper

        x = helper.make_tensor_value_info("a", TensorProto.FLOAT, [n, n])
        y = helper.make_tensor_value_info("b", TensorProto.FLOAT, [n, n])
        z = helper.make_tensor_value_info("c", TensorProto.FLOAT, [n, n])
        graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["c"])], "mm", [x, y], [z])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        s = ort_session(model.SerializeToString(), args.threads)
        feed = {"a": a.numpy(), "b": b.numpy()}
        fn = lambda: s.run(None, feed)  # noqa: E731
    else:
        mm = torch.mm if side == "eager" else torch.compile(torch.mm)
        fn = lambda: mm(a, b)  # noqa: E731
    with torch.inference_mode():
        r = timed(fn, max(3, args.runs // 2), 2, args.threads)
    flop = 2.0 * n**3
    return {"kind": "gemm", "side": side, "n": n, "gflops": flop / r["median_ms"] / 1e6,
            "cpu_gflops": flop / r["cpu_ms"] / 1e6}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--sides", default="eager,inductor,ort")
    ap.add_argument("--gemm", default="")
    ap.add_argument("models", nargs="*")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    sides = [s for s in args.sides.split(",") if s]
    import onnxruntime

    print(json.dumps({"kind": "info", "torch": torch.__version__, "onnxruntime": onnxruntime.__version__,
                      "threads": torch.get_num_threads(), "mkldnn": torch.backends.mkldnn.is_available()}), flush=True)
    jobs = [(bench_gemm, int(n)) for n in args.gemm.split(",") if n] + [(bench_model, m) for m in args.models]
    for fn, what in jobs:
        for side in sides:
            try:
                print(json.dumps(fn(what, side, args)), flush=True)
            except Exception as e:  # a peer that cannot run a model is reported, not fatal
                key = "n" if fn is bench_gemm else "name"
                what_s = what if fn is bench_gemm else os.path.basename(what)
                msg = f"{type(e).__name__}: {e}".splitlines()[0][:300]
                print(json.dumps({"kind": "error", "side": side, key: what_s, "error": msg}), flush=True)


if __name__ == "__main__":
    main()
