"""Bad input on the tpu device is a Python exception with a clear message,
never a dead process: an op the engine cannot run under the "error" policy,
shape and dtype mistakes, a freed buffer, a bad option, a bad device. And the
fallback policy: counted, warned once, listed by torchtpu.report()."""

from __future__ import annotations

import warnings

import pytest
import torch

import torchtpu
from torchtpu import _lib

# An op torchtpu's registry cannot know: its own test namespace, with a CPU
# kernel only.
_test_lib = torch.library.Library("torchtpu_test", "DEF")
_test_lib.define("twice(Tensor x) -> Tensor")
_test_lib.impl("twice", lambda x: x * 2, "CPU")


def test_unknown_op_falls_back_counted_and_warned_once(capfd):
    x = torch.arange(4.0, device="tpu")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = torch.ops.torchtpu_test.twice(x)
        z = torch.ops.torchtpu_test.twice(x)
    assert y.device.type == "tpu" and torch.equal(z.cpu(), torch.arange(4.0) * 2)
    # PyTorch turns the kernel's warning into a Python warning, or (Debian's
    # torch 2.14, for torch.ops calls) prints it
    msgs = [str(m.message) for m in w] + capfd.readouterr().err.splitlines()
    msgs = [m for m in msgs if "torchtpu_test::twice" in m]
    assert len(msgs) == 1 and "runs on the CPU" in msgs[0], msgs
    f = {e["op"]: e for e in torch.tpu.fallbacks()}
    assert f["torchtpu_test::twice.default"]["calls"] >= 2
    assert "torchtpu_test::twice" in str(torchtpu.report())


def test_unknown_op_raises_under_error_policy():
    x = torch.arange(4.0, device="tpu")
    torch.tpu.set_fallback("error")
    try:
        with pytest.raises(RuntimeError, match=r"torchtpu_test::twice.*cannot run on the tpu device.*\"error\""):
            torch.ops.torchtpu_test.twice(x)
    finally:
        torch.tpu.set_fallback("cpu")
    assert torch.equal(x.cpu(), torch.arange(4.0))  # the device still works


def test_freed_buffer_is_an_error():
    x = torch.ones(3, device="tpu")
    h = torch.ops.torchtpu._buffer_handle(x)
    _lib.free(h)
    with pytest.raises(RuntimeError, match=f"buffer handle {h} was already freed"):
        x + 1
    with pytest.raises(RuntimeError, match="already freed"):
        x.cpu()
    del x  # its storage's deleter frees the handle again: an error the deleter swallows


def test_bad_options_and_devices():
    with pytest.raises(ValueError, match="mode 'fast'"):
        torch.tpu.set_mode("fast")
    with pytest.raises(RuntimeError, match="one tpu device"):
        torch.ones(2, device="tpu:1")
    with pytest.raises(Exception, match="no backend for device \\\"nope\\\"|already holds buffers"):
        torch.tpu.set_backend("nope")
    with pytest.raises(RuntimeError, match="rank 17 is over the limit"):
        torch.ones([1] * 17, device="tpu") + 1
    assert torch.tpu.get_mode() == "async"


@pytest.mark.parametrize("mode", ["debug", "async", "fused"])
def test_errors_in_each_mode(mode):
    with torch.tpu.mode(mode):
        a, b = torch.ones(3, 4, device="tpu"), torch.ones(5, device="tpu")
        with pytest.raises(RuntimeError, match="must match the size"):
            a + b
        with pytest.raises(RuntimeError, match="cannot be multiplied"):
            a @ a
        # the device goes on working after an error
        assert torch.equal((a * 2).sum().cpu(), torch.tensor(24.0))


def test_data_dependent_ops_run():
    x = torch.tensor([0.0, 1.5, 0.0, -2.0])
    t = x.to("tpu")
    assert torch.equal(torch.nonzero(t).cpu(), torch.nonzero(x))
    assert torch.equal(t[t != 0].cpu(), x[x != 0])
    assert torch.equal(torch.unique(t).cpu(), torch.unique(x))
