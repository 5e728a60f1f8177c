"""Partial graphs: an op torchtpu cannot run costs that op, not the graph.

A graph holding ops the engine lacks is split with PyTorch's partitioner:
those ops run in eager PyTorch, the rest in parts on torchtpu. The report
counts the nodes each side ran (getitem not counted)."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

import torchtpu


@torch.library.custom_op("tt_part::mysin", mutates_args=())
def mysin(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x)


@mysin.register_fake
def _(x):
    return torch.empty_like(x)


def _mysin_backward(ctx, g):
    (x,) = ctx.saved_tensors
    return g * torch.cos(x)


mysin.register_autograd(_mysin_backward, setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]))


@torch.library.custom_op("tt_part::sincos", mutates_args=())
def sincos(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.sin(x), torch.cos(x)


@sincos.register_fake
def _(x):
    return torch.empty_like(x), torch.empty_like(x)


@torch.library.custom_op("tt_part::add_into", mutates_args=("x",))
def add_into(x: torch.Tensor, y: torch.Tensor) -> None:
    x.add_(y)


@torch.library.custom_op("tt_part::noauto", mutates_args=())
def noauto(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x)


@noauto.register_fake
def _(x):
    return torch.empty_like(x)


class Sandwich(nn.Module):
    """One custom op between two Linear layers (the issue's model)."""

    def __init__(self, op=mysin) -> None:
        super().__init__()
        self.a, self.b, self.op = nn.Linear(8, 16), nn.Linear(16, 4), op

    def forward(self, x):
        return self.b(self.op(self.a(x)).relu())


def _entries(kind=None):
    es = torchtpu.report()["entries"]
    return [e for e in es if kind is None or e["kind"] == kind]


def test_inference_runs_exactly_the_unsupported_op_in_eager():
    torch.manual_seed(0)
    m, x = Sandwich(), torch.randn(4, 8)
    cm = torch.compile(m, backend="torchtpu")
    with torch.no_grad(), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = cm(x)
        cm(x)
    torch.testing.assert_close(got, m(x))
    msgs = [str(m.message) for m in w if "torchtpu" in str(m.message)]
    assert len(msgs) == 1 and "tt_part::mysin.default" in msgs[0] and "test_partition.py" in msgs[0], msgs
    (e,) = _entries()
    assert e["ran_on"] == "split" and e["runs"] == 2
    assert e["nodes_on_eager"] == 1 and e["nodes_on_torchtpu"] >= 4, e
    assert [o["op"] for o in e["eager_ops"]] == ["tt_part::mysin.default"]
    assert "self.op(self.a(x))" in e["eager_ops"][0]["source"]
    assert all(p["ran_on"] == "torchtpu" and p["runs"] == 2 for p in e["parts"]) and len(e["parts"]) == 2
    r = torchtpu.report()
    assert r["split"] == 1 and r["on_eager"] == 0
    assert "tt_part::mysin.default" in str(r) and "part1" in str(r)


def test_training_splits_forward_and_backward_runs_whole():
    torch.manual_seed(0)
    m, x = Sandwich(), torch.randn(4, 8)
    ref = Sandwich()
    ref.load_state_dict(m.state_dict())
    cm = torch.compile(m, backend="torchtpu")
    cm(x).square().sum().backward()
    ref(x).square().sum().backward()
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad)
    (fw,) = _entries("forward")
    (bw,) = _entries("backward")
    assert fw["nodes_on_eager"] == 1 and fw["nodes_on_torchtpu"] > 0, fw
    # the op's autograd formula (g * cos(x)) is aten: the backward runs whole
    assert bw["ran_on"] == "torchtpu" and bw["nodes_on_eager"] == 0, bw


def test_training_with_the_backward_split_too():
    # forcing cos (the op's backward formula) into eager splits the backward graph as well
    torch.manual_seed(0)
    m, x = Sandwich(), torch.randn(4, 8)
    ref = Sandwich()
    ref.load_state_dict(m.state_dict())
    cm = torch.compile(m, backend="torchtpu", options={"eager_ops": ["aten::cos"]})
    cm(x).sum().backward()
    ref(x).sum().backward()
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad)
    (bw,) = _entries("backward")
    assert bw["ran_on"] == "split" and bw["nodes_on_eager"] == 1, bw


def test_fallback_error_names_the_op_and_the_line():
    cm = torch.compile(Sandwich(), backend="torchtpu", options={"fallback": "error"})
    with pytest.raises(Exception) as ei, torch.no_grad():
        cm(torch.randn(4, 8))
    msg = str(ei.value)
    assert "torchtpu cannot run tt_part::mysin.default" in msg
    assert "test_partition.py" in msg and "self.op(self.a(x))" in msg


def test_several_outputs():
    def f(x):
        s, c = sincos(x * 2)
        return (s * c).relu() + s, c.exp()

    x = torch.randn(5, 3)
    got = torch.compile(f, backend="torchtpu")(x)
    torch.testing.assert_close(got, f(x))
    (e,) = _entries()
    assert e["nodes_on_eager"] == 1 and [o["op"] for o in e["eager_ops"]] == ["tt_part::sincos.default"], e


def test_mutating_op_in_eager_mutates_the_input():
    def f(a, b):
        h = a * 2
        add_into(h, b)       # mutates an intermediate
        r = (h + 1).relu()
        add_into(b, r)       # mutates a graph input
        return r

    a, b = torch.randn(4, 8), torch.randn(4, 8)
    b_eager, b_comp = b.clone(), b.clone()
    want = f(a, b_eager)
    got = torch.compile(f, backend="torchtpu")(a, b_comp)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(b_comp, b_eager)
    (e,) = _entries()
    assert e["ran_on"] == "split" and e["nodes_on_eager"] == 2, e
    assert {o["op"] for o in e["eager_ops"]} == {"tt_part::add_into.default"}


def test_dynamic_shapes():
    torch.manual_seed(0)
    m = Sandwich()
    cm = torch.compile(m, backend="torchtpu")
    with torch.no_grad():
        for n in (3, 5, 9):
            x = torch.randn(n, 8)
            torch._dynamo.mark_dynamic(x, 0)
            torch.testing.assert_close(cm(x), m(x))
    (e,) = _entries()
    assert e["ran_on"] == "split" and e["runs"] == 3 and e["nodes_on_eager"] == 1, e


def test_dynamic_part_fed_only_by_derived_sizes():
    # the part after the eager op sees [s0*3] tensors and s0 only through
    # its SymInt argument: the size symbol is handed to the engine
    def f(x):
        y = mysin(x.reshape(-1))
        return (y.reshape(x.shape[0], 3) * 2).sum(1)

    cf = torch.compile(f, backend="torchtpu", dynamic=True)
    for n in (4, 7):
        x = torch.randn(n, 3)
        torch.testing.assert_close(cf(x), f(x))
    (e,) = _entries()
    assert e["nodes_on_eager"] == 1 and all(p["ran_on"] == "torchtpu" for p in e["parts"]), e


def test_eager_ops_option_and_min_part_size():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2))
    x = torch.randn(3, 8)
    with torch.no_grad():
        got = torch.compile(m, backend="torchtpu", options={"eager_ops": "aten.relu.default"})(x)
        torch.testing.assert_close(got, m(x))
        (e,) = _entries()
        assert e["nodes_on_eager"] == 1 and e["eager_ops"][0]["reason"] == "options eager_ops", e
        torchtpu.reset_report()
        torch._dynamo.reset()
        # parts smaller than min_part_size join eager PyTorch
        got = torch.compile(m, backend="torchtpu", options={"eager_ops": ["aten::tanh"], "min_part_size": 100})(x)
        torch.testing.assert_close(got, m(x))
        (e,) = _entries()
        assert e["nodes_on_torchtpu"] == 0 and e["parts"] == [], e


def test_custom_op_without_autograd_formula_raises_pytorchs_error_at_backward():
    lin = nn.Linear(8, 8)

    def f(x):
        return noauto(lin(x)).sum()

    x = torch.randn(2, 8)
    with pytest.raises(RuntimeError, match="no autograd formula was registered") as eager_err:
        f(x).backward()
    out = torch.compile(f, backend="torchtpu")(x)  # the forward runs, as in eager
    with pytest.raises(RuntimeError, match="no autograd formula was registered") as ei:
        out.backward()
    assert str(ei.value) == str(eager_err.value)
    assert not any("/torchtpu/_" in f.filename for f in __import__("traceback").extract_tb(ei.tb))
