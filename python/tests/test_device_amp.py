"""Autocast on the tpu device: PyTorch's cast policy for accelerators (the
one CUDA uses) in eager mode and under torch.compile, bfloat16 by default;
GradScaler's ops on the engine, against PyTorch's CPU kernels."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchtpu


def test_default_dtype_and_policy():
    assert torch.get_autocast_dtype("tpu") == torch.bfloat16
    torch.manual_seed(0)
    a, b = torch.randn(4, 8, device="tpu"), torch.randn(8, 3, device="tpu")
    w = torch.randn(3, 8, device="tpu")
    img, k = torch.randn(1, 2, 5, 5, device="tpu"), torch.randn(3, 2, 3, 3, device="tpu")
    for dt in (torch.bfloat16, torch.float16):
        with torch.autocast("tpu", dtype=dt):
            assert torch.get_autocast_dtype("tpu") == dt and torch.is_autocast_enabled("tpu")
            lower = [a @ b, torch.mm(a, b), F.linear(a, w), F.conv2d(img, k),
                     F.scaled_dot_product_attention(a[None, None], a[None, None], a[None, None])]
            assert all(t.dtype == dt for t in lower), [t.dtype for t in lower]
            h = (a @ b)  # lower precision in, float32 out:
            fp32 = [h.softmax(-1), h.log_softmax(-1), F.layer_norm(h, (3,)), h.exp(), h.log1p(), h.pow(2),
                    F.mse_loss(h, h.detach() * 0), F.cross_entropy(h, torch.zeros(4, dtype=torch.long, device="tpu")),
                    h.sum()]
            assert all(t.dtype == torch.float32 for t in fp32), [t.dtype for t in fp32]
            # promote: the widest input type
            assert torch.addcmul(a, h.new_ones(4, 8), a).dtype == torch.float32
            assert (h + 1).dtype == dt  # other ops keep their inputs' dtype
            with pytest.raises(RuntimeError, match="unsafe to autocast"):
                F.binary_cross_entropy(h.sigmoid(), torch.zeros(4, 3, device="tpu"))
    assert (a @ b).dtype == torch.float32  # outside the region


def test_values_match_cpu_autocast():
    """Lower-precision ops round as on CPU (the same dtype conversions)."""
    torch.manual_seed(0)
    lin = torch.nn.Linear(16, 8)
    x = torch.randn(4, 16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ref = lin(x)
    lt = lin.to("tpu")
    with torch.autocast("tpu", dtype=torch.bfloat16):
        got = lt(x.to("tpu"))
    assert got.dtype == ref.dtype == torch.bfloat16
    torch.testing.assert_close(got.cpu().float(), ref.float(), rtol=1e-2, atol=1e-2)


def test_autocast_under_compile():
    torch.manual_seed(0)
    lin = torch.nn.Linear(8, 4).to("tpu")

    def f(x):
        with torch.autocast("tpu", dtype=torch.bfloat16):
            y = lin(x)
            return y, y.float().log_softmax(-1)

    x = torch.randn(5, 8, device="tpu")
    cf = torch.compile(f, backend="torchtpu")
    (y, p), (ye, pe) = cf(x), f(x)
    assert y.dtype == ye.dtype == torch.bfloat16 and p.dtype == pe.dtype == torch.float32
    torch.testing.assert_close(y.cpu(), ye.cpu())
    torch.testing.assert_close(p.cpu(), pe.cpu())
    assert torchtpu.report()["on_eager"] == 0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_unscale_matches_cpu(dtype):
    torch.manual_seed(0)
    grads = [torch.randn(5).to(dtype), torch.randn(2, 3).to(dtype), torch.randn(4).to(dtype)]
    cases = [[], [(1, (0, 2), float("inf"))], [(2, (3,), float("nan"))]]
    for bad in cases:
        cpu = [g.clone() for g in grads]
        for i, idx, v in bad:
            cpu[i][idx] = v
        dev = [g.to("tpu") for g in cpu]
        found_c, found_t = torch.zeros(1), torch.zeros(1, device="tpu")
        inv_c = torch.full((1,), 1 / 3.0)
        torch._amp_foreach_non_finite_check_and_unscale_(cpu, found_c, inv_c)
        torch._amp_foreach_non_finite_check_and_unscale_(dev, found_t, inv_c.to("tpu"))
        assert found_t.item() == found_c.item() == (1.0 if bad else 0.0)
        for c, t in zip(cpu, dev):
            torch.testing.assert_close(t.cpu(), c, rtol=0, atol=0, equal_nan=True)
    assert not [f for f in torch.tpu.fallbacks() if "amp" in f["op"]]


def test_update_scale_matches_cpu():
    for found, tracker, interval in ((0.0, 0, 3), (0.0, 2, 3), (1.0, 2, 3), (0.0, 0, 1)):
        sc, tc, fc = torch.full((1,), 1024.0), torch.full((1,), tracker, dtype=torch.int32), torch.full((1,), found)
        st, tt, ft = sc.to("tpu"), tc.to("tpu"), fc.to("tpu")
        rc = torch._amp_update_scale_(sc, tc, fc, 2.0, 0.5, interval)
        rt = torch._amp_update_scale_(st, tt, ft, 2.0, 0.5, interval)
        assert rt is st
        assert st.item() == sc.item() and tt.item() == tc.item(), (found, tracker, interval)
    big = torch.full((1,), 3e38)  # growth past float's range keeps the scale
    torch._amp_update_scale_(bt := big.to("tpu"), torch.zeros(1, dtype=torch.int32, device="tpu"),
                             torch.zeros(1, device="tpu"), 2.0, 0.5, 1)
    assert bt.item() == big.item()
    assert not [f for f in torch.tpu.fallbacks() if "amp" in f["op"]]


def test_grad_scaler_skips_steps_with_inf_as_on_cpu():
    torch.manual_seed(0)
    ref = torch.nn.Linear(4, 2)
    dev = torch.nn.Linear(4, 2).to("tpu")
    dev.load_state_dict({k: v.to("tpu") for k, v in ref.state_dict().items()})
    scalers = {"cpu": torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2),
               "tpu": torch.amp.GradScaler("tpu", init_scale=2.0**10, growth_interval=2)}
    opts = {"cpu": torch.optim.SGD(ref.parameters(), lr=0.1), "tpu": torch.optim.SGD(dev.parameters(), lr=0.1)}
    models = {"cpu": ref, "tpu": dev}
    g = torch.Generator().manual_seed(1)
    for step in range(5):
        x = torch.randn(3, 4, generator=g)
        if step == 2:
            x[0, 0] = float("inf")
        for d in ("cpu", "tpu"):
            with torch.autocast(d, dtype=torch.float16):
                loss = models[d](x.to(d)).float().pow(2).mean()
            scalers[d].scale(loss).backward()
            scalers[d].step(opts[d])
            scalers[d].update()
            opts[d].zero_grad()
        assert scalers["tpu"].get_scale() == scalers["cpu"].get_scale(), step
    for p, q in zip(ref.parameters(), dev.parameters()):
        torch.testing.assert_close(q.cpu(), p.detach(), rtol=2e-3, atol=2e-3)
