"""Audits the decomposition table torchtpu hands AOTAutograd against
PyTorch's own kernels: does every decomposition keep its op's contract?

A decomposition that returns an output of another shape or dtype than the
op's kernel is harmless while every consumer is decomposed with it, and
wrong when a consumer is not: an op's backward that no decomposition
reaches reads what the decomposition saved (the wrong attention gradients
of _scaled_dot_product_flash_attention_for_cpu, whose decomposition saved
the attention weights as its logsumexp). For every OpInfo sample of
PyTorch's op_db, each aten op the sample runs that has an entry in the
table is run both ways on the same arguments, under a dispatch mode, and
the outputs compared: structure, shape and dtype exactly, values loosely
(decompositions may round differently).

    python tools/decomp_audit/audit.py [--ops NAME,...] [--core] [--json OUT]

Prints each op whose decomposition breaks the contract, with the first
sample that shows it; exit status 1 when there is one that torchtpu's
table still holds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))


def _table(core: bool) -> dict[Any, Any]:
    if core:  # PyTorch's Core ATen table as it is, without torchtpu's exclusions
        from torch._decomp import core_aten_decompositions

        return dict(core_aten_decompositions())
    from torchtpu._dynamo import _decompositions

    return _decompositions()


def _describe(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return ("tensor", tuple(x.shape), x.dtype)
    return ("value", type(x).__name__)


class CrossRef(TorchDispatchMode):
    """Runs each op with a table entry both ways and records contract
    breaks (shape, dtype, structure) and large value differences."""

    def __init__(self, table: dict[Any, Any], findings: dict[str, dict[str, Any]], where: str) -> None:
        super().__init__()
        self.table, self.findings, self.where = table, findings, where
        self.depth = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        real = func(*args, **kwargs)
        decomp = self.table.get(func)
        if decomp is None or self.depth or str(func) in self.findings:
            return real
        self.depth += 1
        try:
            with torch.no_grad():
                cloned = tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, (args, kwargs))
                got = decomp(*cloned[0], **cloned[1])
        except Exception:  # a decomposition that refuses a sample is not a contract break
            return real
        finally:
            self.depth -= 1
        want_flat, _ = tree_flatten(real)
        got_flat, _ = tree_flatten(got)
        problem = None
        if len(want_flat) != len(got_flat):
            problem = f"{len(got_flat)} outputs, the kernel returns {len(want_flat)}"
        else:
            for i, (w, g) in enumerate(zip(want_flat, got_flat)):
                if _describe(w) != _describe(g):
                    problem = f"output {i}: {_describe(g)}, the kernel returns {_describe(w)}"
                    break
                if isinstance(w, torch.Tensor) and w.is_floating_point() and w.numel():
                    ok = torch.isclose(g.float(), w.float(), rtol=1e-2, atol=1e-2, equal_nan=True).all()
                    if not ok and len(want_flat) > 1:  # an auxiliary output with other values
                        problem = f"output {i}: values differ from the kernel's"
                        break
        if problem:
            self.findings[str(func)] = {"op": str(func), "problem": problem, "sample": self.where}
        return real


def audit(table: dict[Any, Any], wanted: list[str]) -> tuple[int, list[dict[str, Any]]]:
    """Runs the OpInfo samples whose names contain one of wanted (all: [])
    through CrossRef; returns the samples run and the findings."""
    from torch.testing._internal.common_methods_invocations import op_db

    findings: dict[str, dict[str, Any]] = {}
    seen = 0
    for info in op_db:
        if wanted and not any(w in info.name for w in wanted):
            continue
        for dt in (torch.float32, torch.bfloat16):
            if dt not in info.supported_dtypes("cpu"):
                continue
            try:
                samples = list(info.sample_inputs("cpu", dt, requires_grad=False))[:3]
            except Exception:
                continue
            for i, s in enumerate(samples):
                seen += 1
                try:
                    with CrossRef(table, findings, f"{info.name} {dt} sample {i}"):
                        info.op(s.input, *s.args, **s.kwargs)
                except Exception:
                    continue
    return seen, sorted(findings.values(), key=lambda f: f["op"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default="", help="only OpInfos whose name contains one of these (comma-separated)")
    ap.add_argument("--json", default="")
    ap.add_argument("--core", action="store_true", help="audit PyTorch's Core ATen table without torchtpu's exclusions")
    args = ap.parse_args()
    from torch.testing._internal.common_methods_invocations import op_db

    table = _table(args.core)
    seen, findings = audit(table, [w for w in args.ops.split(",") if w])
    print(f"{seen} samples of {len(op_db)} OpInfos; {len(table)} decompositions in torchtpu's table")
    for f in findings:
        print(f"  {f['op']}: {f['problem']}  ({f['sample']})")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(findings, out, indent=1)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
