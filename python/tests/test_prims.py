"""PyTorch's primitives (torch.ops.prims) in compiled graphs: what
decompositions leave in dynamic graphs (convert_element_type from _to_copy)
and reference implementations write. Each runs on torchtpu and matches
eager PyTorch, without promotion (prims keep their operands' dtype)."""

from __future__ import annotations

import pytest
import torch

from torch._subclasses.fake_tensor import FakeTensorMode

import torchtpu

P = torch.ops.prims
f32 = torch.randn(3, 4)
pos = torch.rand(3, 4) + 0.5
i32 = torch.randint(-9, 9, (3, 4), dtype=torch.int32)
nz32 = torch.randint(1, 5, (3, 4), dtype=torch.int32)

CASES = {
    "convert_element_type": (lambda x: P.convert_element_type(x, torch.float16), (f32,)),
    "convert_to_int": (lambda x: P.convert_element_type(x * 3, torch.int32), (f32,)),
    "device_put": (lambda x: P.device_put(x, torch.device("cpu")) + 1, (f32,)),
    "sin": (lambda x: P.sin(x), (f32,)),
    "exp": (lambda x: P.exp(x), (f32,)),
    "rsqrt": (lambda x: P.rsqrt(x), (pos,)),
    "erf_inv": (lambda x: P.erf_inv(x * 0.3), (f32,)),
    "bessel_i0e": (lambda x: P.bessel_i0e(x), (f32,)),
    "add": (lambda x, y: P.add(x, y), (f32, pos)),
    "mul_int": (lambda x, y: P.mul(x, y), (i32, nz32)),
    "div_float": (lambda x, y: P.div(x, y), (f32, pos)),
    "div_int_truncates": (lambda x, y: P.div(x, y), (i32, nz32)),
    "pow": (lambda x, y: P.pow(x, y), (pos, f32)),
    "remainder": (lambda x, y: P.remainder(x, y), (i32, nz32)),
    "lt": (lambda x, y: P.lt(x, y), (f32, pos)),
    "maximum": (lambda x, y: P.maximum(x, y), (f32, pos)),
    "shift_left": (lambda x, y: P.shift_left(x, y), (i32, nz32)),
    "where": (lambda x, y: P.where(P.gt(x, y), x, y), (f32, pos)),
    "sum_keeps_int32": (lambda x: P.sum(x, [1]), (i32,)),
    "prod": (lambda x: P.prod(x, [0, 1]), (nz32,)),
    "amax": (lambda x: P.amax(x, [0]), (f32,)),
    "var": (lambda x: P.var(x, [1], correction=1), (f32,)),
    "rev": (lambda x: P.rev(x, [0]), (f32,)),
    "cat": (lambda x, y: P.cat([x, y], 1), (f32, pos)),
    "iota": (lambda x: x + P.iota(4, start=3, step=2, dtype=torch.int64, device=torch.device("cpu"),
                                   requires_grad=False), (i32,)),
    "full": (lambda x: x + P.full([3, 4], 2.5, dtype=torch.float32, device=torch.device("cpu"),
                                   requires_grad=False), (f32,)),
    "fill": (lambda x: P.fill(x, 7), (i32,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_prim(name):
    fn, args = CASES[name]
    want = fn(*args)
    got = torch.compile(fn, backend="torchtpu", options={"fallback": "error"})(*args)
    # the dtype the graph records (prims' meta functions): eager prims
    # widen integer sums and products, their meta functions do not
    with FakeTensorMode() as mode:
        assert got.dtype == fn(*[mode.from_tensor(a) for a in args]).dtype
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5, check_dtype=False)
    assert torchtpu.report()["nodes_on_eager"] == 0


def test_dynamic_to_copy_leaves_convert_element_type():
    # dynamic=True: AOTAutograd's _to_copy decomposition writes prims ops
    def f(x):
        return (x.half() * 2).float().sum(-1)

    cf = torch.compile(f, backend="torchtpu", dynamic=True, options={"fallback": "error"})
    for n in (3, 7):
        x = torch.randn(n, 5)
        torch.testing.assert_close(cf(x), f(x))
    assert torchtpu.report()["nodes_on_eager"] == 0


VIEWS = {
    # prims that alias their input cannot be functionalized when called
    # directly; decompositions write them below functionalization. The
    # graphs are traced with make_fx and run as one engine program.
    "broadcast_in_dim": (lambda x: P.broadcast_in_dim(x, [2, 3, 5, 4], [1, 3]), (f32,)),
    "broadcast_size1": (lambda x: P.broadcast_in_dim(x[:1], [2, 3, 4], [1, 2]), (f32,)),
    "collapse_view": (lambda x: P.collapse_view(x.reshape(3, 2, 2), 1, 2), (f32,)),
    "collapse": (lambda x: P.collapse(x.reshape(3, 2, 2), 0, 1), (f32,)),
    "split_dim": (lambda x: P.split_dim(x, 1, 2), (f32,)),
    "squeeze": (lambda x: P.squeeze(x.reshape(3, 1, 4), [1]), (f32,)),
    "transpose": (lambda x: P.transpose(x, [1, 0]), (f32,)),
    "view_of": (lambda x: P.view_of(x), (f32,)),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_prim(name):
    from torch.fx.experimental.proxy_tensor import make_fx

    from torchtpu._graph import EngineGraph
    from torchtpu._options import Options

    fn, args = VIEWS[name]
    gm = make_fx(fn, tracing_mode="fake")(*args)
    assert any(str(n.target).startswith("prims.") for n in gm.graph.nodes), gm.graph
    ex = [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"]
    eg = EngineGraph(gm, ex, Options())
    assert eg.unsupported == []
    got = eg.run(eg.tensors(list(args)))
    torch.testing.assert_close(got, fn(*args))
