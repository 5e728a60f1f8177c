"""The OpInfo sweep's cases: every entry of PyTorch's op_db, every dtype its
CPU kernels support, up to --samples sample inputs per dtype.

Each case is a module that calls the OpInfo's op on one sample input, with
the sample's tensors as the module's inputs and everything else (numbers,
shapes, flags) baked in. It is exported with torch.export.export (as a user
would) and saved as NAME.pt2 beside NAME.io.safetensors: input.N, then
PyTorch's eager outputs output.N (the CLI's I/O convention).

    /work/shared/tools/torch-oracle run sid -- python3 gen.py OUT [--shard I/N]
        [--samples 3] [--ops NAME,...] [--errors]

Eigenvectors and singular vectors are unique only up to their phases:
for linalg.eigh, linalg.svd, svd, svd_lowrank and pca_lowrank the module
normalizes them after the
op (CANON), so PyTorch and torchtpu are compared on the same canonical
form ("canonical": true in the index).

OUT/index-I.jsonl gets one line per case, the case's status first:
  ok                  exported; the runner checks it
  eager_error         PyTorch's eager call raised (not counted)
  export_error        torch.export.export raised (not counted)
  export_mismatch     the exported program's values differ from eager (not counted)
  no_tensor_output    nothing to compare (not counted)
  io_unsupported      a dtype the I/O file cannot hold (not counted; listed)
  eager_accepts       an error input PyTorch's eager call runs (not counted)
and, with "random": true, ops whose values depend on the random generator
or on uninitialized memory (two seeds give different eager values, or the
OpInfo says so): the runner compares their dtypes and shapes only.

--errors writes OpInfo's error_inputs instead (OUT/index-errors-I.jsonl,
cases NAME__error__K): samples that PyTorch's eager call rejects, exported
where torch.export lets them through, with the inputs only and the
expected error in the index ("expect_error").

Each (op, dtype) has its own seed (crc32 of its names). A rerun skips the
ops already finished in OUT (one "done" line per op), so a sweep can be
stopped and resumed; --redo --ops A,B regenerates those ops.
"""
import argparse
import itertools
import json
import os
import re
import signal
import struct
import sys
import traceback
import zlib

import torch
import torch.utils._pytree as pytree
from torch.testing._internal.common_methods_invocations import op_db

# safetensors names of the dtypes torchtpu's I/O reader knows.
ST_DTYPES = {
    torch.bool: "BOOL", torch.uint8: "U8", torch.int8: "I8", torch.int16: "I16",
    torch.uint16: "U16", torch.int32: "I32", torch.uint32: "U32", torch.int64: "I64",
    torch.uint64: "U64", torch.float16: "F16", torch.bfloat16: "BF16", torch.float32: "F32",
    torch.float64: "F64", torch.complex64: "C64", torch.complex128: "C128",
    torch.float8_e4m3fn: "F8_E4M3", torch.float8_e5m2: "F8_E5M2",
}


class CaseTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise CaseTimeout("case took longer than the generator's limit")


def save_safetensors(tensors, path):
    """Writes a safetensors file (header JSON, then raw little-endian data).
    Written here because the safetensors package of the chroot has no
    complex128 and no unsigned or float8 types beyond uint8."""
    header, blobs, off = {}, [], 0
    for name, t in tensors.items():
        # A fresh dense copy: contiguous() keeps the zero strides of an
        # expanded tensor whose sizes are 1.
        t = t.detach().resolve_conj().resolve_neg()
        t = torch.empty(t.shape, dtype=t.dtype).copy_(t)
        data = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": ST_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def case_base(op, dt):
    name = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
    return name, str(dt).removeprefix("torch.")


def spread(xs, k):
    """k items of xs spread evenly, first and last included: OpInfo's
    samples go from plain to empty, batched and broadcast ones."""
    if len(xs) <= k:
        return xs
    if k == 1:
        return xs[:1]
    return [xs[round(i * (len(xs) - 1) / (k - 1))] for i in range(k)]


def safe(s):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", s)


def phases(q):
    """The phase (sign, for real values) of each column's largest entry."""
    if q.shape[-2] == 0:
        return torch.ones(q.shape[:-2] + (1, q.shape[-1]), dtype=q.dtype)
    idx = q.abs().argmax(dim=-2, keepdim=True)
    p = q.gather(-2, idx)
    a = p.abs()
    return torch.where(a == 0, torch.ones_like(p), p / a)


def canon_eigh(out):
    vals, vecs = out
    return vals, vecs * phases(vecs).conj()


def canon_svd(out, v_is_vh):
    """U·diag(conj φ), S, diag(φ)·Vᴴ with φ the phases of U's first k
    columns: the factors LAPACK and any other SVD agree on. The columns a
    full SVD adds beyond k (any orthonormal completion) are checked as
    UᴴU and VᴴV."""
    u, s, v = out
    k = s.shape[-1]
    uk = u[..., :k]
    ph = phases(uk)
    res = [uk * ph.conj(), s]
    if v_is_vh:
        res.append(v[..., :k, :] * ph.mT)
    else:
        res.append(v[..., :k] * ph.conj())
    if u.shape[-1] > k:
        res.append(u.mH @ u)
    if (v.shape[-2] if v_is_vh else v.shape[-1]) > k:
        res.append(v @ v.mH if v_is_vh else v.mH @ v)
    return tuple(res)


# Ops whose results are unique only up to the phase of each vector: both
# sides run the same normalization after the op under test.
CANON = {
    "linalg.eigh": canon_eigh,
    "linalg.svd": lambda out: canon_svd(out, True),
    "svd": lambda out: canon_svd(out, False),
    "svd_lowrank": lambda out: canon_svd(out, False),
    "pca_lowrank": lambda out: canon_svd(out, False),
}


class Call(torch.nn.Module):
    """Calls fn on the sample: tensors come in as inputs, the rest is fixed."""

    def __init__(self, fn, leaves, spec, slots, canon=None):
        super().__init__()
        self.fn, self.leaves, self.spec, self.slots, self.canon = fn, leaves, spec, slots, canon

    def forward(self, *ts):
        leaves = list(self.leaves)
        for i, t in zip(self.slots, ts):
            leaves[i] = t
        inp, args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        out = self.fn(inp, *args, **kwargs)
        if self.canon is not None:
            out = self.canon(out)
        return tuple(x for x in pytree.tree_leaves(out) if isinstance(x, torch.Tensor))


def short(e):
    lines = [l for l in str(e).splitlines() if l.strip()]
    return f"{type(e).__name__}: {lines[0] if lines else ''}"[:300]


def same(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        try:
            torch.testing.assert_close(x, y, equal_nan=True, check_layout=False, check_stride=False,
                                       rtol=0 if not (x.is_floating_point() or x.is_complex()) else None,
                                       atol=0 if not (x.is_floating_point() or x.is_complex()) else None)
        except AssertionError:
            return False
    return True


def dense(out):
    return all(t.layout == torch.strided and not t.is_quantized for t in out)


def export_case(out_dir, name, sample, fn, rec, expect_error=None):
    leaves, spec = pytree.tree_flatten((sample.input, tuple(sample.args), dict(sample.kwargs)))
    slots = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
    ts = [leaves[i].detach() for i in slots]
    for i, t in zip(slots, ts):
        leaves[i] = t
    if any(t.dtype not in ST_DTYPES for t in ts) or any(t.layout != torch.strided for t in ts):
        rec.update(status="io_unsupported", error="input dtype or layout: " +
                   ",".join(sorted({str(t.dtype) + "/" + str(t.layout) for t in ts})))
        return
    m = Call(fn, leaves, spec, slots, CANON.get(rec["op"]))
    if rec["op"] in CANON:
        rec["canonical"] = True
    rec["inputs"] = [[str(t.dtype).removeprefix("torch."), list(t.shape)] for t in ts]
    if expect_error is None:
        try:
            with torch.no_grad():
                torch.manual_seed(rec["seed"])
                want = fresh(m(*fresh(ts)))
                for k in range(1, 4):
                    torch.manual_seed(rec["seed"] + k)
                    again = fresh(m(*fresh(ts)))
                    if not same(want, again):
                        break
        except Exception as e:
            rec.update(status="eager_error", error=short(e))
            return
        if not want:
            rec.update(status="no_tensor_output")
            return
        if not dense(want) or any(t.dtype not in ST_DTYPES for t in want):
            rec.update(status="io_unsupported", error="output dtype or layout: " +
                       ",".join(sorted({str(t.dtype) + "/" + str(t.layout) for t in want})))
            return
        rec["random"] = bool(rec.get("random")) or not same(want, again)
    else:
        try:
            with torch.no_grad():
                m(*fresh(ts))
            rec.update(status="eager_accepts", error="PyTorch's eager call did not raise " + expect_error)
            return
        except Exception as e:
            expect_error = short(e)
    try:
        ep = torch.export.export(m, tuple(ts))
    except Exception as e:
        rec.update(status="export_error", error=short(e))
        return
    rec["ops"] = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
    if expect_error is None and not rec["random"] and seeded(ep):
        # A random op whose eager call seeds the generator itself (OpInfo's
        # wrapper_set_seed) is deterministic eagerly; its export is not.
        try:
            first = run_exported(ep, ts, rec["seed"])
            rec["random"] = any(not same(first, run_exported(ep, ts, rec["seed"] + k)) for k in range(1, 9))
        except Exception:
            pass
    io = {f"input.{i}": t for i, t in enumerate(ts)}
    if expect_error is None:
        if not rec["random"]:
            try:
                got = run_exported(ep, ts, rec["seed"])
                if not same(want, got):
                    # An op that seeds the generator itself (OpInfo's
                    # wrapper_set_seed) is deterministic eagerly, but its
                    # export draws fresh numbers: random after all.
                    if same(got, run_exported(ep, ts, rec["seed"] + 1)):
                        rec.update(status="export_mismatch", error="the exported program's values differ from eager")
                        return
                    rec["random"] = True
            except Exception as e:
                rec.update(status="export_mismatch", error="the exported program fails: " + short(e))
                return
        io.update({f"output.{i}": t for i, t in enumerate(want)})
        rec["outputs"] = [[str(t.dtype).removeprefix("torch."), list(t.shape)] for t in want]
    else:
        rec["expect_error"] = expect_error
    save_safetensors(io, os.path.join(out_dir, name + ".io.safetensors"))
    torch.export.save(ep, os.path.join(out_dir, name + ".pt2"))
    rec["status"] = "ok"


def seeded(ep):
    """Reports whether the graph calls an op that draws from the random
    generator."""
    for n in ep.graph.nodes:
        tags = getattr(n.target, "tags", ()) if n.op == "call_function" else ()
        if torch.Tag.nondeterministic_seeded in tags:
            return True
    return False


def fresh(ts):
    """Copies of the tensors: an in-place op (uniform_, resize_as_) must
    not change the inputs that are saved, nor an earlier call's outputs."""
    return tuple(t.clone() for t in ts)


def run_exported(ep, ts, seed):
    with torch.no_grad():
        torch.manual_seed(seed)
        got = ep.module()(*fresh(ts))
    return fresh(x for x in pytree.tree_leaves(got) if isinstance(x, torch.Tensor))


def run_op(op, args, out_dir, log):
    opname, _ = case_base(op, torch.float32)
    dts = sorted(op.supported_dtypes("cpu"), key=str)
    if args.errors:
        if op.error_inputs_func is None:
            return
        dts = [None]
    for dt in dts:
        dts_name = "error" if dt is None else str(dt).removeprefix("torch.")
        seed = zlib.crc32(f"{opname}/{dts_name}".encode()) & 0x7FFFFFFF
        torch.manual_seed(seed)
        try:
            if dt is None:
                it = ((e.sample_input, f"{e.error_type.__name__}: {e.error_regex}") for e in op.error_inputs("cpu"))
            else:
                it = ((s, None) for s in op.sample_inputs("cpu", dt, requires_grad=False))
            # Every error input (each is its own condition), up to 20.
            samples = list(itertools.islice(it, 20)) if dt is None else spread(list(itertools.islice(it, 200)), args.samples)
        except Exception as e:
            log(dict(op=opname, dtype=dts_name, sample=-1, status="sample_error", error=short(e)))
            continue
        for k, (s, err) in enumerate(samples):
            name = safe(f"{opname}__{dts_name}__{k}")
            rec = dict(name=name, op=opname, dtype=dts_name, sample=k, seed=seed,
                       random=bool(op.has_nondeterministic_output))
            signal.alarm(args.timeout)
            try:
                export_case(out_dir, name, s, op.op, rec, expect_error=err)
            except CaseTimeout as e:
                rec.update(status="export_error", error=short(e))
            except Exception as e:
                rec.update(status="export_error", error="generator: " + short(e))
                traceback.print_exc()
            finally:
                signal.alarm(0)
            log(rec)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--shard", default="0/1")
    p.add_argument("--samples", type=int, default=3)
    p.add_argument("--ops", default="")
    p.add_argument("--errors", action="store_true")
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--redo", action="store_true", help="regenerate the --ops even if done")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    shard, nshards = map(int, args.shard.split("/"))
    index = os.path.join(args.out, f"index-{'errors-' if args.errors else ''}{shard}.jsonl")
    done = set()
    if os.path.exists(index):
        with open(index) as f:
            for line in f:
                r = json.loads(line)
                if r.get("status") == "done":
                    done.add(r["op"])
    only = set(filter(None, args.ops.split(",")))
    if args.redo:
        # Drop the listed ops' lines from every index of this kind; their
        # new lines go to this shard's file.
        kind = "index-errors-" if args.errors else "index-"
        for path in os.listdir(args.out):
            if path.startswith(kind) and path.endswith(".jsonl") and (args.errors or "errors" not in path):
                full = os.path.join(args.out, path)
                with open(full) as f:
                    keep = [l for l in f if json.loads(l)["op"] not in only]
                with open(full, "w") as f:
                    f.writelines(keep)
        done -= only
    signal.signal(signal.SIGALRM, _alarm)
    torch.set_num_threads(1)
    with open(index, "a") as f:
        def log(rec):
            f.write(json.dumps(rec) + "\n")
            f.flush()
        for i, op in enumerate(op_db):
            opname, _ = case_base(op, torch.float32)
            if i % nshards != shard or opname in done or (only and opname not in only):
                continue
            run_op(op, args, args.out, log)
            log(dict(op=opname, status="done"))
            print(f"[{i}/{len(op_db)}] {opname}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
