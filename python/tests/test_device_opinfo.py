"""A small subset of the OpInfo sweep (tools/opinfo_device/sweep.py, whose
full table is docs/device.md): PyTorch's OpInfo samples of common ops, made
on tpu and compared with the same call on CPU as PyTorch's test_compare_cpu
does. No sample may differ from CPU or fail; nearly all must run on the
engine alone (a few edge cases, such as an empty index of another rank, go to
the CPU fallback, which counts them)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

import torchtpu  # noqa: F401

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "opinfo_device"))
import sweep  # noqa: E402

OPS = ["add", "mul", "div.no_rounding_mode", "sub", "abs", "exp", "log", "sqrt", "tanh", "sigmoid", "sum", "mean",
       "amax", "matmul", "mm", "bmm", "addmm", "softmax", "log_softmax", "nn.functional.relu", "nn.functional.gelu",
       "nn.functional.layer_norm", "nn.functional.linear", "nn.functional.conv2d", "nn.functional.embedding",
       "nn.functional.cross_entropy", "cat", "stack", "transpose", "permute", "reshape", "view", "expand", "where",
       "clamp", "cumsum", "gather", "index_select", "masked_fill", "maximum", "pow", "argmax"]
DTYPES = [torch.float32, torch.int64]


def _ops():
    db = {sweep.name_of(o): o for o in sweep.load_op_db()}
    return [db[n] for n in OPS]


_counts = {"pass": 0, "pass_fallback": 0}


@pytest.mark.parametrize("op", _ops(), ids=OPS)
def test_opinfo_samples(op):
    for dt in sorted(op.supported_dtypes("cpu") & set(DTYPES), key=str):
        rec = sweep.run_op(op, dt)
        assert rec["mismatch"] == 0 and rec["error"] == 0, rec
        assert rec["pass"] + rec["pass_fallback"] > 0 or rec["cpu_error"] > 0, rec
        _counts["pass"] += rec["pass"]
        _counts["pass_fallback"] += rec["pass_fallback"]


def test_zz_engine_share():
    total = _counts["pass"] + _counts["pass_fallback"]
    assert total > 500, _counts
    assert _counts["pass"] / total >= 0.98, _counts
