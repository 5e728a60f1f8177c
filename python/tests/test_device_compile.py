"""torch.compile on tpu tensors, the way CUDA users compile: graphs whose
tensors live on the tpu device run on the engine's buffers in place (no copy
to or from the host), return tpu tensors, train, mix with eager tpu ops, and
show as torchtpu in the report; a device option that disagrees with the
device's backend is an error at compile time."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import torchtpu


def _mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))


def _copies() -> tuple[int, int]:
    s = torch.tpu.stats()["stats"]
    return s["uploads"], s["downloads"]


def test_inference_runs_on_device_buffers():
    m = _mlp()
    x = torch.randn(5, 8)
    ref = m(x)
    mt = m.to("tpu")
    cm = torch.compile(mt, backend="torchtpu")
    xt = x.to("tpu")
    with torch.no_grad():
        cm(xt)  # compiles; the first run is checked at once
        torch.tpu.synchronize()
        before = _copies()
        out = cm(xt)
        torch.tpu.synchronize()
        assert _copies() == before, "a compiled call on tpu tensors copied to or from the host"
    assert out.device.type == "tpu"
    torch.testing.assert_close(out.cpu(), ref, rtol=1e-5, atol=1e-5)
    r = torchtpu.report()
    assert r["on_eager"] == 0 and r["on_torchtpu"] == r["graphs"] == 1, str(r)
    e = r["entries"][0]
    assert e["tensors_on"] == "tpu:0" and e["device"] == torch.tpu.stats()["backend"], e
    assert torch.tpu.stats()["stats"]["programs"] >= 2


@pytest.mark.parametrize("mode", ["async", "fused"])
def test_training_matches_cpu(mode):
    """Forward and backward graphs on tpu, Adam's state on tpu, eager tpu
    ops before (inputs), between (loss) and after (optimizer) the graphs."""
    torch.manual_seed(0)
    ref = _mlp()
    dev = _mlp().to("tpu")
    dev.load_state_dict({k: v.to("tpu") for k, v in ref.state_dict().items()})
    opt_c = torch.optim.Adam(ref.parameters(), lr=1e-2)
    opt_t = torch.optim.Adam(dev.parameters(), lr=1e-2)
    step = torch.compile(dev, backend="torchtpu")
    g = torch.Generator().manual_seed(3)
    with torch.tpu.mode(mode):
        for _ in range(4):
            x, y = torch.randn(6, 8, generator=g), torch.randn(6, 4, generator=g)
            lc = F.mse_loss(ref(x * 2), y)
            lc.backward()
            opt_c.step()
            opt_c.zero_grad()
            xt = x.to("tpu") * 2
            lt = F.mse_loss(step(xt), y.to("tpu"))
            lt.backward()
            opt_t.step()
            opt_t.zero_grad()
            torch.testing.assert_close(lt.item(), lc.item(), rtol=1e-4, atol=1e-5)
    for (name, p), q in zip(ref.named_parameters(), dev.parameters()):
        assert q.device.type == "tpu"
        torch.testing.assert_close(q.cpu(), p.detach(), rtol=1e-4, atol=1e-5, msg=name)
    assert all(s["exp_avg"].device.type == "tpu" for s in opt_t.state.values())
    r = torchtpu.report()
    assert r["on_eager"] == 0 and {e["kind"] for e in r["entries"]} == {"forward", "backward"}, str(r)


def test_layouts_aliases_and_cpu_outputs():
    """Outputs in the layouts PyTorch recorded (a transpose), an output that
    is an input, and an output the graph moves to the CPU."""

    def f(a, b):
        return (a @ b).t(), a, (a + 1).cpu()

    a, b = torch.randn(3, 4), torch.randn(4, 5)
    cf = torch.compile(f, backend="torchtpu")
    at, bt = a.to("tpu"), b.to("tpu")
    got = cf(at, bt)
    want = f(a, b)
    assert got[0].shape == want[0].shape and got[0].stride() == want[0].stride()
    assert got[0].device.type == "tpu" and got[2].device.type == "cpu"
    for g, w in zip(got, want):
        torch.testing.assert_close(g.cpu(), w, rtol=1e-5, atol=1e-5)
    # As in eager PyTorch, the returned input is the input (AOTAutograd
    # regenerates outputs that alias inputs).
    got[1].add_(1)
    torch.testing.assert_close(at.cpu(), a + 1)
    assert torchtpu.report()["on_eager"] == 0


def test_dynamic_shapes():
    def f(x):
        return torch.cat([x, x * 2]).sum(0)

    cf = torch.compile(f, backend="torchtpu", dynamic=True)
    for n in (3, 5, 7):
        x = torch.randn(n, 4)
        torch.testing.assert_close(cf(x.to("tpu")).cpu(), f(x), rtol=1e-5, atol=1e-5)
    assert torchtpu.report()["on_eager"] == 0


def test_device_option_must_match_the_backend():
    backend = torch.tpu.stats()["backend"]
    x = torch.randn(3, 3, device="tpu")
    same = torch.compile(lambda a: a.sin(), backend="torchtpu", options={"device": backend})
    torch.testing.assert_close(same(x).cpu(), x.cpu().sin())
    other = "xla-cpu" if backend != "xla-cpu" else "cpu"
    bad = torch.compile(lambda a: a.cos(), backend="torchtpu", options={"device": other})
    with pytest.raises(Exception) as e:
        bad(x)
    msg = str(e.value)
    assert "tpu device" in msg and repr(backend) in msg and repr(other) in msg, msg
    # The same graph on CPU tensors compiles for the device asked.
    torch._dynamo.reset()
    cpu_ok = torch.compile(lambda a: a.cos(), backend="torchtpu", options={"device": "cpu"})
    torch.testing.assert_close(cpu_ok(x.cpu()), x.cpu().cos())
