"""The C ABI through the package's bindings: programs from .pt2 bytes, runs
on CPU tensors, and clear errors (never a crash) for bad input."""

from __future__ import annotations

import io
import json

import pytest
import torch

import torchtpu
from torchtpu import _lib


def _pt2(module: torch.nn.Module, *args: torch.Tensor, dynamic_shapes=None) -> bytes:
    ep = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    return buf.getvalue()


class AddMul(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return (x + y) * 2


def test_abi_version_and_devices():
    assert _lib.lib().tt_abi_version() == _lib.ABI_VERSION
    v = torchtpu.version()
    assert v["abi"] == _lib.ABI_VERSION
    names = {d["name"]: d for d in torchtpu.devices()}
    assert names["cpu"]["available"]


def test_run_matches_pytorch():
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    p = _lib.Program(_pt2(AddMul(), x, y), {"cache_dir": "-"})
    (out,) = p.run([x, y])
    torch.testing.assert_close(out, AddMul()(x, y), rtol=0, atol=0)
    info = p.info()
    assert [i["shape"] for i in info["inputs"]] == [[3, 4], [3, 4]]
    assert info["unsupported"] == []


def test_strided_and_offset_inputs_are_read_in_place():
    base = torch.randn(6, 8)
    x = base.t()[1:5, 2:5]  # non-contiguous, with a storage offset
    y = torch.randn(4, 3)
    p = _lib.Program(_pt2(AddMul(), x.contiguous(), y), {"cache_dir": "-"})
    (out,) = p.run([x, y])
    torch.testing.assert_close(out, (x + y) * 2, rtol=0, atol=0)
    expanded = torch.randn(1, 3).expand(4, 3)  # stride 0
    (out,) = p.run([expanded, y])
    torch.testing.assert_close(out, (expanded + y) * 2, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.float64, torch.int64, torch.int32, torch.bfloat16, torch.float16, torch.bool])
def test_dtypes_round_trip(dtype):
    class Pick(torch.nn.Module):
        def forward(self, x):
            return torch.where(x == x, x, x), x.flip(0)

    x = (torch.rand(5, 2) * 10).to(dtype)
    p = _lib.Program(_pt2(Pick(), x), {"cache_dir": "-"})
    a, b = p.run([x])
    assert a.dtype == dtype and torch.equal(a, x) and torch.equal(b, x.flip(0))


def test_zero_size_and_scalar_inputs():
    class F(torch.nn.Module):
        def forward(self, x, s):
            return x * s, s + 1

    x, s = torch.randn(0, 3), torch.tensor(2.0)
    p = _lib.Program(_pt2(F(), x, s), {"cache_dir": "-"})
    a, b = p.run([x, s])
    assert a.shape == (0, 3) and b.item() == 3.0


@pytest.mark.filterwarnings("ignore:ComplexHalf")
def test_bad_inputs_raise_clear_errors():
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    p = _lib.Program(_pt2(AddMul(), x, y), {"cache_dir": "-"})
    with pytest.raises(torchtpu.TorchTPUError, match="dtype"):
        p.run([x.double(), y])
    with pytest.raises(torchtpu.TorchTPUError, match="2 given|takes 2"):
        p.run([x])
    with pytest.raises(torchtpu.TorchTPUError, match="dim 0 is 5"):
        p.run([torch.randn(5, 4), y])
    with pytest.raises(torchtpu.TorchTPUError, match="not a tensor"):
        p.run([x, 3.0])
    with pytest.raises(torchtpu.TorchTPUError, match="dtype"):
        p.run([x.to(torch.complex32) if hasattr(torch, "complex32") else x.to(torch.qint8), y])


def test_corrupt_archive_and_options():
    good = _pt2(AddMul(), torch.randn(2), torch.randn(2))
    with pytest.raises(torchtpu.TorchTPUError, match="read archive"):
        _lib.Program(b"not a zip at all", {})
    with pytest.raises(torchtpu.TorchTPUError):
        _lib.Program(good[: len(good) // 2], {})
    with pytest.raises(torchtpu.TorchTPUError, match="unknown field"):
        _lib.Program(good, {"devise": "cpu"})
    with pytest.raises(torchtpu.TorchTPUError, match="no backend for device"):
        _lib.Program(good, {"device": "nonesuch"})


def test_handles_are_checked():
    l = _lib.lib()
    p = _lib.Program(_pt2(AddMul(), torch.randn(2), torch.randn(2)), {"cache_dir": "-"})
    h = p.handle
    _lib.free(h)
    with pytest.raises(torchtpu.TorchTPUError, match="already freed"):
        _lib.free(h)
    with pytest.raises(torchtpu.TorchTPUError, match="already freed"):
        p.run([torch.randn(2), torch.randn(2)])
    p.handle = 0  # freed above
    with pytest.raises(torchtpu.TorchTPUError, match="null"):
        _lib.free(0)
    with pytest.raises(torchtpu.TorchTPUError, match="does not exist"):
        _lib.free(1 << 60)
    err = _lib.ctypes.c_void_p()
    assert l.tt_result_count(1 << 60, _lib.ctypes.byref(err)) == -1
    assert "does not exist" in _lib._take_string(err.value)


def test_descriptor_checks_guard_memory():
    """Raw descriptors that lie about their memory are refused before any
    byte is read: a wrong extent, negative or overflowing strides, ranks."""
    l = _lib.lib()
    ct = _lib.ctypes
    x = torch.randn(2, 2)
    p = _lib.Program(_pt2(AddMul(), x, x), {"cache_dir": "-"})

    def run_raw(shape, strides, extent, dtype=6, ndim=None, data=None):
        descs = (_lib._Tensor * 2)()
        keep = []
        for d in descs:
            d.data = x.data_ptr() if data is None else data
            d.extent = extent
            d.dtype = dtype
            d.ndim = len(shape) if ndim is None else ndim
            s = (ct.c_int64 * len(shape))(*shape)
            d.shape = s
            keep.append(s)
            if strides is not None:
                st = (ct.c_int64 * len(strides))(*strides)
                d.strides = st
                keep.append(st)
        err = ct.c_void_p()
        h = l.tt_program_run(p.handle, 2, descs, ct.byref(err))
        msg = _lib._take_string(err.value) if err.value else ""
        if h:
            _lib.free(h)
        return h, msg

    assert run_raw([2, 2], None, 16)[0]
    for args, want in [(([2, 2], None, 15), "past the 15 bytes"),
                       (([2, 2], [1, -1], 16), "negative stride"),
                       (([2, 2], [1 << 62, 1], 16), "overflow"),
                       (([2, -2], None, 16), "negative dimension"),
                       (([2, 2], None, 16, 99), "dtype code 99"),
                       (([2, 2], None, 16, 6, 17), "rank 17"),
                       (([2, 2], None, 16, 6, None, 0), "null data pointer"),
                       (([1 << 40, 1 << 40], None, 16), "elements")]:
        h, msg = run_raw(*args)
        assert h == 0 and want in msg, (args, msg)
    assert l.tt_program_run(p.handle, 2, None, None) == 0
    assert l.tt_program_run(p.handle, -1, None, None) == 0


def test_live_handles_do_not_leak():
    import gc

    gc.collect()
    before = _lib.live_handles()
    x = torch.randn(3)

    class F(torch.nn.Module):
        def forward(self, x):
            return x.sin(), x.cos()

    p = _lib.Program(_pt2(F(), x), {"cache_dir": "-"})
    for _ in range(20):
        p.run([x])
    assert _lib.live_handles().get("result", 0) == before.get("result", 0)
    del p
    gc.collect()
    assert _lib.live_handles().get("program", 0) == before.get("program", 0)


def test_large_outputs_are_shared_without_a_copy():
    """Outputs of TAKE_BYTES and more are tensors over the engine's pinned
    memory: right values, writable, released when the last view dies."""
    import gc

    class F(torch.nn.Module):
        def forward(self, x):
            return x * 2, x[:3] + 1

    x = torch.randn(256, 128)  # 128 KiB: taken; the second output is copied
    p = _lib.Program(_pt2(F(), x), {"cache_dir": "-"})
    gc.collect()
    before = _lib.live_handles().get("output", 0)
    big, small = p.run([x])
    assert _lib.live_handles().get("output", 0) == before + 1
    torch.testing.assert_close(big, x * 2, rtol=0, atol=0)
    torch.testing.assert_close(small, x[:3] + 1, rtol=0, atol=0)
    view = big[10:20]
    big.add_(1)  # writable in place
    torch.testing.assert_close(view, x[10:20] * 2 + 1, rtol=0, atol=0)
    del big
    gc.collect()
    assert _lib.live_handles().get("output", 0) == before + 1  # the view keeps it
    del view
    gc.collect()
    assert _lib.live_handles().get("output", 0) == before
    again, _ = p.run([x])  # the engine did not reuse the memory it handed over
    torch.testing.assert_close(again, x * 2, rtol=0, atol=0)


def test_fast_call_writes_outputs_in_place_and_checks_memory():
    """FastCall (the compile path's calls after the first): descriptors built
    once, outputs allocated in their layouts and written by the engine; a
    tensor that does not fit its descriptor is an error, never an access
    out of bounds."""
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    p = _lib.Program(_pt2(AddMul(), x, y), {"cache_dir": "-"})
    fast = _lib.FastCall(p, [x, y], [(torch.float32, [3, 4], [1, 3])])  # a column-major output
    for _ in range(3):
        x, y = torch.randn(3, 4), torch.randn(3, 4)
        (out,) = fast([x, y])
        torch.testing.assert_close(out, (x + y) * 2, rtol=0, atol=0)
        assert out.stride() == (1, 3)
    with pytest.raises(_lib.TorchTPUError, match="bytes"):
        fast([torch.randn(2), y])  # smaller than the descriptor says
    with pytest.raises(_lib.TorchTPUError, match="the result is"):
        _lib.FastCall(p, [x, y], [(torch.float32, [4, 3], [3, 1])])([x, y])  # wrong output shape
    with pytest.raises(_lib.TorchTPUError, match="takes 2 tensors"):
        fast([x])


def test_fast_call_with_layout_check_declines_other_layouts():
    """For inputs no guard holds (a backward's saved tensors and gradients),
    a FastCall made with check_layout returns None for an input whose
    layout differs from the bound one, even where its extent would pass
    (the same bytes seen transposed), so that the caller runs the program
    the general way."""
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    p = _lib.Program(_pt2(AddMul(), x, y), {"cache_dir": "-"})
    fast = _lib.FastCall(p, [x, y], [(torch.float32, [4, 4], [4, 1])], check_layout=True)
    (out,) = fast([x, y])
    torch.testing.assert_close(out, (x + y) * 2, rtol=0, atol=0)
    xt = torch.randn(4, 4).t()  # same extent, other strides
    assert fast([xt, y]) is None
    (out,) = p.run([xt, y])  # the general path reads the strides
    torch.testing.assert_close(out, (xt + y) * 2, rtol=0, atol=0)
    unchecked = _lib.FastCall(p, [x, y], [(torch.float32, [4, 4], [4, 1])])
    (wrong,) = unchecked([xt, y])  # why the check exists: the bytes are read as bound
    assert not torch.equal(wrong, (xt + y) * 2)


def test_compiled_backward_with_none_gradient_takes_the_fast_path():
    """A backward graph returning None (an input that needs no gradient)
    takes the fast path after its first call, and its gradients match
    eager's."""
    torch.manual_seed(0)
    lin = torch.nn.Linear(8, 4)
    f = torch.compile(lambda x: torch.tanh(lin(x)).sum(), backend="torchtpu")
    for _ in range(3):
        x = torch.randn(5, 8)  # needs no gradient: the backward returns None for it
        lin.zero_grad()
        f(x).backward()
        got = [p.grad.clone() for p in lin.parameters()]
        lin.zero_grad()
        torch.tanh(lin(x)).sum().backward()
        for g, w in zip(got, [p.grad for p in lin.parameters()]):
            torch.testing.assert_close(g, w)
    from torchtpu._dynamo import graphs

    bw = [g for g in graphs() if g.name.startswith("backward")][-1]
    assert bw.engine is not None and bw.engine.fast is not None
