"""torch.compile(backend="torchtpu"): inference, dynamic shapes, fallback
policy, the compile cache across processes, and errors."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch
import torch.nn as nn

import torchtpu
from torchtpu import _lib

from conftest import IN_CI, ROOT


def _close(a, b, **kw):
    torch.testing.assert_close(a, b, **kw)


def test_backend_by_name_matches_eager():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4)).eval()
    x = torch.randn(5, 16)
    with torch.no_grad():
        _close(torch.compile(m, backend="torchtpu")(x), m(x))
    r = torchtpu.report()
    assert r["graphs"] == 1 and r["on_torchtpu"] == 1 and r["on_eager"] == 0
    assert r["entries"][0]["kind"] == "inference"


def test_entry_point_needs_no_import():
    """After pip install, backend="torchtpu" resolves through the
    torch_dynamo_backends entry point without importing torchtpu (checked
    in a fresh interpreter that sees only the installed packages)."""
    code = textwrap.dedent("""
        import sys, torch
        from importlib.metadata import entry_points
        if not any(ep.name == "torchtpu" for ep in entry_points(group="torch_dynamo_backends")):
            print("no entry point")
            sys.exit(0)
        m = torch.nn.Linear(3, 2)
        x = torch.randn(4, 3)
        y = torch.compile(m, backend="torchtpu")(x)
        assert "torchtpu" in sys.modules, "the backend was not loaded"
        torch.testing.assert_close(y, m(x))
        print("ok")
    """)
    env = {**os.environ, "PYTHONPATH": ""}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/")
    assert out.returncode == 0, out.stderr[-3000:]
    if "no entry point" in out.stdout:
        if IN_CI and os.environ.get("TORCHTPU_TEST_ENV") != "chroot":
            pytest.fail("the torchtpu package is not installed (pip install -e python) in CI's venv")
        pytest.skip("package not installed with pip (no entry point)")
    assert "ok" in out.stdout, out.stdout


def test_outputs_keep_layout_and_aliases():
    class M(nn.Module):
        def forward(self, x):
            y = x * 2
            return y.t(), y.sum(0), x

    x = torch.randn(3, 5)
    out = torch.compile(M(), backend="torchtpu")(x)
    ref = M()(x)
    for a, b in zip(out, ref):
        _close(a, b)
    assert out[0].stride() == ref[0].stride()


@pytest.fixture(params=["cpp", "python"])
def graph_call(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The fast path's calls made by the C++ extension (loaded, or built,
    here) or in Python (TORCHTPU_GRAPH_CALL=0): both give the same
    outputs, layouts and aliases."""
    if request.param == "python":
        monkeypatch.setenv("TORCHTPU_GRAPH_CALL", "0")
    else:
        assert torch.tpu.is_available(), torchtpu.device._state
    return request.param


def test_input_outputs_are_the_inputs(graph_call: str):
    """A graph output that is an input as it is, an output returned before
    it (the same value twice), or a view of either (the weights a training
    forward saves for its backward, a transposed weight, an activation and
    its reshape), is that tensor or the same view of it, on the engine's
    first call and on its fast path: never a copy. An input the graph
    writes is no alias."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from torchtpu._graph import EngineGraph
    from torchtpu._options import Options

    def fn(x, w, b):
        y = torch.mm(x, w.t()) + b
        return y, w, w.t(), b.unsqueeze(0)[:, 1:], x.view(-1), y, y.view(-1)

    args = (torch.randn(4, 3), torch.randn(5, 3), torch.randn(5))
    gm = make_fx(fn, tracing_mode="fake")(*args)
    ex = [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"]
    eg = EngineGraph(gm, ex, Options(), guarded=True)
    assert sorted(eg.aliases) == [1, 2, 3, 4, 5, 6]
    ref = fn(*args)
    for call in range(3):  # the first call, then the fast path
        ts = eg.tensors(list(args))
        got = eg.run(ts)
        for g, r in zip(got, ref):
            torch.testing.assert_close(g, r, rtol=1e-5, atol=1e-6)
            assert g.stride() == r.stride()
        assert got[1] is ts[1]
        for i in (2, 3):
            assert got[i].untyped_storage().data_ptr() == args[1 + i // 3].untyped_storage().data_ptr()
            assert got[i].storage_offset() == ref[i].storage_offset()
        assert got[4]._base is ts[0] or got[4].data_ptr() == ts[0].data_ptr()
        assert got[5] is got[0] and got[6].data_ptr() == got[0].data_ptr()
        assert (eg._call_id is not None) == (graph_call == "cpp")
    # a call with a tensor missing is the engine's error on either path
    with pytest.raises(torchtpu.TorchTPUError, match="takes 3 tensors, 2 given"):
        eg.call_fast(eg.tensors(list(args))[:2])
    if graph_call == "cpp":
        # a plan (a private op's argument, which anyone can call) whose view
        # reaches past the tensor it views is an error, never such a view
        from torchtpu._graph_io import _layout_words

        fast = eg.fast
        plan = [fast.handle, fast.n_in, fast.n_out, 0]
        dtypes = []
        for o in fast._specs:
            plan += [0] if o is None else [1, *_layout_words(o[1], o[2])]
            dtypes.append(torch.empty(0, dtype=o[0]) if o is not None else torch.empty(0))
        plan += [1, 1, 0, 1, 0, *_layout_words([16], [1]), 0]  # output 1: 16 floats of w's 15
        bad = torch.ops.torchtpu._graph_call_bind(plan, dtypes)
        try:
            with pytest.raises(RuntimeError, match="outside the storage"):
                torch.ops.torchtpu._graph_call(bad, eg.tensors(list(args)))
        finally:
            torch.ops.torchtpu._graph_call_free(bad)

    # an input the graph writes (in place) is no alias, nor a view of it
    from torchtpu._graph import _alias

    g = torch.fx.Graph()
    x, w = g.placeholder("x"), g.placeholder("w")
    g.call_function(torch.ops.aten.add_.Tensor, (w, 1.0))
    wt = g.call_function(torch.ops.aten.t.default, (w,))
    g.output((x, w, wt))
    pos = {x: 0, w: 1}
    assert _alias(x, pos, {}) is not None
    assert _alias(w, pos, {}) is None and _alias(wt, pos, {}) is None


def test_permuted_inputs_and_outputs_in_place(graph_call: str):
    """An output that is a view of a row-major value the graph computes (a
    weight gradient's xᵀ, attention heads [b, h, t, d] of a [b, t, 3·h·d]
    projection's part, as a training forward saves them), in the layout
    PyTorch gives it, is that value written in place and viewed, views of
    one value sharing its memory; an output computed in a dense permuted
    layout (an elementwise op of a permuted input; the attention's output)
    is computed in its memory order and permuted; an input in a dense
    permuted layout is read in place as its row-major view. Values,
    strides and storage offsets are PyTorch's, on the first call and on
    the fast path, and an input in another layout than the bound one still
    gets the right answer."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from torchtpu._graph import EngineGraph
    from torchtpu._options import Options

    def fn(x, h, u):
        y = torch.tanh(x) * 2
        z = h[0] * 3
        heads = (h + 1).view(2, 3, 4, 5).permute(0, 2, 3, 1)
        q, k = (h * 2).split([8, 12], dim=2)
        e = torch.exp(u)
        w = h[1] * 3
        return (z.permute(1, 0), heads, y.permute(1, 0), y, torch.mm(x, y.permute(1, 0)), u.sum(1),
                q.view(2, 3, 2, 4).transpose(1, 2), k, torch.tanh(u), torch.ops.aten.alias.default(e), w.t(), w)

    torch.manual_seed(0)
    args = (torch.randn(6, 4).t(), torch.randn(2, 3, 20), torch.randn(2, 3, 4).permute(2, 0, 1))
    gm = make_fx(fn, tracing_mode="fake")(*args)
    ex = [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"]
    for guarded in (True, False):
        eg = EngineGraph(gm, ex, Options(), guarded=guarded)
        assert eg.in_orders == {0: [1, 0], 2: [1, 2, 0]}
        # q and k view one value; y (as x, from which it is computed),
        # tanh(u) and e's alias are computed in permuted layouts; w.t() is
        # a view of w, returned after it
        assert {i: k for i, (k, _) in eg.out_views.items()} == {0: 0, 1: 1, 3: 3, 6: 6, 7: 6, 8: 8, 9: 9, 10: 11}
        ref = fn(*args)
        for call in range(3):  # the first call, then the fast path
            got = eg.run(eg.tensors(list(args)))
            assert eg.fast is not None
            for g, r in zip(got, ref):
                torch.testing.assert_close(g, r, rtol=1e-5, atol=1e-6)
                assert g.stride() == r.stride() and g.storage_offset() == r.storage_offset()
            assert got[6].untyped_storage().data_ptr() == got[7].untyped_storage().data_ptr()
            assert got[10].data_ptr() == got[11].data_ptr()
            assert (eg._call_id is not None) == (graph_call == "cpp")
    # the backward's inputs are checked, not guarded: a row-major x is
    # another layout, which the general path reads right (the outputs keep
    # the graph's recorded layouts)
    xc = args[0].contiguous()
    got = eg.run(eg.tensors([xc, *args[1:]]))
    for g, r in zip(got, fn(xc, *args[1:])):
        torch.testing.assert_close(g, r, rtol=1e-5, atol=1e-6)


def test_output_in_memory_order_reuses_the_graphs_permute():
    """An output computed in a permuted layout (the attention's output,
    saved for the backward) is returned as its permute to memory order;
    where the graph already has that permute (the attention's output
    transposed back for the projection after it, through an alias or a
    same-shape view), the engine returns that one rather than a second
    transpose of the same value."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from torchtpu._graph_io import _permuted_io

    def fn(u):
        e = torch.exp(u)
        return torch.ops.aten.alias.default(e), e.view(4, 2, 3).permute(1, 2, 0).sum(0)

    u = torch.randn(2, 3, 4).permute(2, 0, 1)
    gm = make_fx(fn, tracing_mode="fake")(u)
    phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
    out = gm.graph.output_node().args[0]
    g2, _, views = _permuted_io(gm, phs, out, [True], {}, [u])
    exp = next(n for n in g2.graph.nodes if n.target is torch.ops.aten.exp.default)
    permutes = [n for n in g2.graph.nodes if n.target is torch.ops.aten.permute.default
                and (n.args[0] is exp or n.args[0] in exp.users)]
    assert len(permutes) == 1 and list(views) == [0]
    assert g2.graph.output_node().args[0][0] is permutes[0]


def test_dynamic_batch_does_not_recompile():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    cm = torch.compile(m, backend="torchtpu", dynamic=True)
    for b in (2, 3, 5, 8, 13):
        x = torch.randn(b, 8)
        _close(cm(x), m(x))
    r = torchtpu.report()
    # one forward graph and one (lazily compiled) backward at most: dynamo
    # did not recompile for the new batch sizes
    fw = [e for e in r["entries"] if e["kind"] == "forward"]
    assert len(fw) == 1 and fw[0]["runs"] == 5
    eng = fw[0]["engine"]
    # the engine specialises per concrete size (cheap, cached) and says why
    reasons = [r["reason"] for r in eng["recompiles"]]
    assert len(reasons) == 4, reasons
    assert "dim 0" in reasons[0] and "changed from 2 to 3" in reasons[0]


def test_mark_dynamic_and_buckets():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
    cm = torch.compile(m, backend="torchtpu", options={"buckets": "pow2"})
    seen = 0
    for b in (3, 4, 6, 7):
        x = torch.randn(b, 8)
        torch._dynamo.mark_dynamic(x, 0)
        with torch.no_grad():
            _close(cm(x), m(x))
        seen += 1
    r = torchtpu.report()
    assert r["graphs"] == 1 and r["entries"][0]["runs"] == seen


@torch.library.custom_op("torchtpu_test::mystery", mutates_args=())
def _mystery(x: torch.Tensor) -> torch.Tensor:
    return x * 3 + 1


@_mystery.register_fake
def _(x):
    return torch.empty_like(x)


class WithMystery(nn.Module):
    def forward(self, x):
        y = x.relu()
        return torch.ops.torchtpu_test.mystery(y) - 1  # an op torchtpu has never heard of


def test_fallback_eager_is_counted_warned_and_reported():
    x = torch.randn(4, 4)
    cm = torch.compile(WithMystery(), backend="torchtpu")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = cm(x)
        cm(x)
    _close(out, WithMystery()(x))
    msgs = [str(m.message) for m in w if "torchtpu" in str(m.message)]
    assert len(msgs) == 1, msgs  # warned once
    assert "torchtpu_test::mystery" in msgs[0] and "test_compile.py" in msgs[0]
    r = torchtpu.report()
    assert r["split"] == 1 and r["on_eager"] == 0
    e = r["entries"][0]
    # the graph is split: the op in eager PyTorch, relu and sub on torchtpu
    assert e["ran_on"] == "split" and e["runs"] == 2  # a split graph counts its runs too
    assert e["nodes_on_eager"] == 1 and e["nodes_on_torchtpu"] == 2
    assert e["unsupported"][0]["op"] == "torchtpu_test::mystery.default"
    assert "torchtpu_test::mystery" in str(r)


def test_fallback_error_names_op_and_source_line():
    cm = torch.compile(WithMystery(), backend="torchtpu", options={"fallback": "error"})
    with pytest.raises(Exception) as ei:
        cm(torch.randn(4, 4))
    msg = str(ei.value)
    assert "torchtpu cannot run torchtpu_test::mystery.default" in msg
    assert "test_compile.py" in msg and "mystery(y)" in msg


def test_bad_options_are_refused():
    with pytest.raises(Exception, match="unknown option 'devise'"):
        torch.compile(nn.Linear(2, 2), backend="torchtpu", options={"devise": "cpu"})(torch.randn(1, 2))
    with pytest.raises(Exception, match="want one of"):
        torch.compile(nn.Linear(2, 2), backend="torchtpu", options={"device": "gpu"})(torch.randn(1, 2))


_CHILD = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {root!r})
    import torch, torchtpu
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    x = torch.randn(4, 8)
    cm = torch.compile(m, backend="torchtpu")
    y = cm(x)
    torch.testing.assert_close(y, m(x))
    y.sum().backward()
    r = torchtpu.report()
    print(json.dumps([e["engine"] for e in r["entries"]]))
""")


def _child(cache) -> list:
    import json

    env = {**os.environ, "TORCHTPU_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", _CHILD.format(root=str(ROOT))], capture_output=True, text=True,
                         env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_does_not_recompile(tmp_path):
    """Forward and backward graphs compiled in one process are found in the
    disk cache by the next: it compiles nothing."""
    first = _child(tmp_path / "cache")
    second = _child(tmp_path / "cache")
    assert [e["compiles"] for e in first] == [1, 1]
    assert [e["compiles"] for e in second] == [0, 0]
    assert all(e["cache_hits"] >= 1 for e in second)


def test_corrupt_cache_entry_is_recompiled(tmp_path):
    """A damaged disk entry is detected by its checksum, removed and
    recompiled; the results stay right."""
    cache = tmp_path / "cache"
    _child(cache)
    entries = [p for p in cache.rglob("*") if p.is_file()]
    assert entries
    for p in entries:
        p.write_bytes(b"\x00garbage" * 7)
    again = _child(cache)  # asserts the values inside
    assert [e["compiles"] for e in again] == [1, 1]


def test_graph_breaks_are_left_to_dynamo():
    def f(x):
        y = x.sin()
        print("break", end="")  # a graph break
        return y.cos() + 1

    x = torch.randn(3)
    _close(torch.compile(f, backend="torchtpu")(x), f(x))
    assert torchtpu.report()["graphs"] == 2


@pytest.mark.parametrize("mask", ["none", "bool", "float", "causal"])
def test_attention_forward_and_backward(mask):
    """scaled_dot_product_attention runs through the math kernel (its fused
    CPU backward is one opaque op): values and gradients match eager."""
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 7, 8, generator=g, requires_grad=True) for _ in range(3))
    kw = {}
    if mask == "bool":
        m = torch.ones(2, 1, 7, 7, dtype=torch.bool)
        m[1, :, :, 5:] = False
        kw["attn_mask"] = m
    elif mask == "float":
        kw["attn_mask"] = torch.randn(2, 1, 7, 7, generator=g)
    elif mask == "causal":
        kw["is_causal"] = True

    def f(q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=0.3, **kw)

    want = f(q, k, v)
    gw = torch.autograd.grad(want.square().sum(), (q, k, v))
    got = torch.compile(f, backend="torchtpu")(q, k, v)
    gg = torch.autograd.grad(got.square().sum(), (q, k, v))
    _close(got, want, rtol=1e-5, atol=1e-5)
    for a, b in zip(gg, gw):
        _close(a, b, rtol=1e-4, atol=1e-5)
    assert torchtpu.report()["on_eager"] == 0
