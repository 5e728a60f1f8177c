"""Library ops real models carry: aten::_grouped_mm (torch.nn.functional.
grouped_mm) and transformers' MoE fallback op, in compiled graphs, in
exported programs (a .pt2 has no Python to fall back to) and on the tpu
device; and users' lowerings decomposed into a saved program."""

from __future__ import annotations

import io

import pytest
import torch

import torchtpu
from torchtpu import _lib

from conftest import need

torch.manual_seed(0)
OFFS = torch.tensor([3, 3, 7, 12], dtype=torch.int32)  # an empty group, and rows past the last offset
BF = dict(dtype=torch.bfloat16)  # torch 2.14's meta of _grouped_mm takes bfloat16 only
LAYOUTS = {
    "2d_3d": (torch.randn(16, 8, **BF), torch.randn(4, 8, 16, **BF), OFFS),
    "3d_2d": (torch.randn(4, 8, 8, **BF), torch.randn(16, 8, **BF).t(), OFFS),
    "2d_2d": (torch.randn(8, 16, **BF), torch.randn(16, 8, **BF).t().contiguous().t(), OFFS),
    "3d_3d": (torch.randn(4, 8, 8, **BF), torch.randn(4, 8, 16, **BF), None),
}
TOL = dict(rtol=1.6e-2, atol=1e-2)


def _grouped(a, b, offs):
    return torch._grouped_mm(a, b, offs=offs)


def _want(a, b, offs):
    out = _grouped(a, b, offs)
    if a.dim() == 2 and b.dim() == 3:  # rows past the last offset: uninitialised in PyTorch, zero here
        out[int(offs[-1]):] = 0
    if a.dim() == 3 and b.dim() == 2:  # columns past the last offset: the same
        out[:, int(offs[-1]):] = 0
    return out


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_grouped_mm_compiled(layout):
    a, b, offs = LAYOUTS[layout]
    got = torch.compile(_grouped, backend="torchtpu", options={"fallback": "error"})(a, b, offs)
    torch.testing.assert_close(got, _want(a, b, offs), **TOL)


@pytest.mark.parametrize("layout", ["2d_3d", "2d_2d"])
def test_grouped_mm_on_the_tpu_device(layout):
    a, b, offs = LAYOUTS[layout]
    before = sum(f["calls"] for f in torch.tpu.fallbacks() if "grouped_mm" in f["op"])
    got = torch._grouped_mm(a.to("tpu"), b.to("tpu"), offs=offs.to("tpu") if offs is not None else None)
    torch.testing.assert_close(got.cpu(), _want(a, b, offs), **TOL)
    assert sum(f["calls"] for f in torch.tpu.fallbacks() if "grouped_mm" in f["op"]) == before


def _moe_ops():
    need("transformers")
    from transformers.integrations import moe  # registers transformers::grouped_mm_fallback

    return moe


def test_transformers_grouped_mm_fallback_trains():
    _moe_ops()
    x = torch.randn(16, 8, requires_grad=True)
    w = torch.randn(4, 8, 12, requires_grad=True)
    offs = torch.tensor([3, 3, 7, 16], dtype=torch.int32)

    def f(x, w):
        return torch.ops.transformers.grouped_mm_fallback(x, w, offs).square().sum()

    f(x, w).backward()
    want = (x.grad.clone(), w.grad.clone())
    x.grad = w.grad = None
    torch.compile(f, backend="torchtpu", options={"fallback": "error"})(x, w).backward()
    torch.testing.assert_close((x.grad, w.grad), want, rtol=1e-4, atol=1e-4)
    assert torchtpu.report()["nodes_on_eager"] == 0


def _mixtral():
    transformers = need("transformers")
    _moe_ops()
    torch.manual_seed(0)
    cfg = transformers.MixtralConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                     num_attention_heads=4, num_key_value_heads=2, num_local_experts=4,
                                     num_experts_per_tok=2, max_position_embeddings=64)
    return transformers.MixtralForCausalLM(cfg).eval()


def _run_pt2(ep, args):
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    prog = _lib.Program(buf.getvalue(), {"cache_dir": "-"})
    return prog, prog.run(list(args))


def test_mixtral_moe_exported_program_runs():
    model = _mixtral()
    ids = torch.randint(0, 128, (1, 10))
    with torch.no_grad():
        want = model(ids).logits
        ep = torch.export.export(model, (ids,), kwargs={"use_cache": False})
    ops = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    assert ops & {"transformers.grouped_mm_fallback.default", "aten._grouped_mm.default"}, ops
    prog, outs = _run_pt2(ep, [ids])
    assert prog.info()["unsupported"] == []
    torch.testing.assert_close(outs[0], want, rtol=1e-4, atol=1e-4)


@torch.library.custom_op("tt_lib::swish", mutates_args=())
def swish(x: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(x)


@swish.register_fake
def _(x):
    return torch.empty_like(x)


torchtpu.register_lowering(swish, lambda x: x * torch.sigmoid(x))


def test_users_lowering_in_a_saved_program():
    class M(torch.nn.Module):
        def forward(self, x):
            return swish(x * 2) + 1

    x = torch.randn(3, 5)
    ep = torch.export.export(M(), (x,))
    # as exported, the program holds the op, which a .pt2 cannot run
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    assert [u["op"] for u in _lib.Program(buf.getvalue()).info()["unsupported"]] == ["tt_lib::swish.default"]
    # decomposed with the registered lowerings, it holds their aten ops
    prog, outs = _run_pt2(ep.run_decompositions(torchtpu.lowerings()), [x])
    assert prog.info()["unsupported"] == []
    torch.testing.assert_close(outs[0], M()(x))
