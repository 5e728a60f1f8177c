"""The decomposition table torchtpu hands AOTAutograd keeps every op's
contract with its consumers: each decomposition returns what the op's
kernel returns (structure, shapes, dtypes; auxiliary outputs' values), so
that a backward op no decomposition reaches reads what the kernel would
have saved (tools/decomp_audit/audit.py runs the whole op database)."""

from __future__ import annotations

import sys

from conftest import ROOT, need

sys.path.insert(0, str(ROOT.parent / "tools" / "decomp_audit"))

# OpInfos of ops whose forward returns auxiliary outputs a backward reads
# (attention's logsumexp, norms' mean and rstd, pooling indices, dropout
# masks, sort/topk indices, embedding bags' offsets and sizes).
AUX_OPS = ["scaled_dot_product_attention", "layer_norm", "batch_norm", "group_norm", "instance_norm",
           "max_pool", "adaptive_max_pool", "dropout", "embedding_bag", "var_mean", "std_mean", "topk",
           "sort", "kthvalue", "native_layer_norm", "cummax", "cummin", "frexp", "mode", "median"]


def test_decompositions_keep_the_ops_contract():
    need("expecttest")  # PyTorch's op database imports it
    import torch

    import audit

    from torchtpu._dynamo import _decompositions

    seen, findings = audit.audit(_decompositions(), AUX_OPS)
    assert seen > 100, seen
    assert findings == [], findings
    # the audit sees the contract break the table leaves out
    op = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default
    table = dict(_decompositions())
    from torch._decomp import core_aten_decompositions

    table[op] = core_aten_decompositions()[op]
    _, found = audit.audit(table, ["scaled_dot_product_attention"])
    assert [f["op"] for f in found] == [str(op)], found
