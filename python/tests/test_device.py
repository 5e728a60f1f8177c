"""The tpu device: registration, storage in engine buffers, copies, factories,
memory counters, streams and events. Every expected value is PyTorch's own
result on CPU."""

from __future__ import annotations

import io

import pytest
import torch

import torchtpu

TPU = "tpu"


def same(got: torch.Tensor, want: torch.Tensor, **kw) -> None:
    assert got.device.type == TPU, got.device
    torch.testing.assert_close(got.cpu(), want, **kw)


def test_registered():
    assert torch._C._get_privateuse1_backend_name() == "tpu"
    assert torch.tpu is torchtpu.device
    assert torch.tpu.is_available(), torchtpu.device._state
    assert torch.tpu.device_count() == 1
    x = torch.ones(2, device="tpu")
    assert x.device == torch.device("tpu", 0) and x.is_tpu
    assert torch.tpu.stats()["backend"] == "cpu"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                                   torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool, torch.complex64])
def test_round_trip(dtype):
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(3, 5, generator=g) * 10).to(dtype)
    t = x.to("tpu")
    assert t.dtype == dtype and t.shape == x.shape
    assert torch.equal(t.cpu(), x)
    # a strided CPU tensor and a strided tpu view
    assert torch.equal(x.t().to("tpu").cpu(), x.t())
    assert torch.equal(t.t().cpu(), x.t())
    assert torch.equal(t[1:, ::2].cpu(), x[1:, ::2])


def test_factories_match_cpu():
    for f in (lambda d: torch.zeros(2, 3, device=d), lambda d: torch.ones(4, dtype=torch.int64, device=d),
              lambda d: torch.full((2, 2), 3.5, device=d), lambda d: torch.arange(10, device=d),
              lambda d: torch.arange(1.0, 4.0, 0.5, device=d), lambda d: torch.eye(3, device=d),
              lambda d: torch.linspace(0, 1, 5, device=d), lambda d: torch.zeros_like(torch.empty(3), device=d),
              lambda d: torch.tensor([[1, 2], [3, 4]], device=d)):
        torch.testing.assert_close(f("tpu").cpu(), f("cpu"))


def test_random_matches_cpu():
    torch.manual_seed(7)
    want = (torch.randn(4, 4), torch.rand(3), torch.randint(0, 10, (5,)))
    torch.manual_seed(7)
    got = (torch.randn(4, 4, device="tpu"), torch.rand(3, device="tpu"), torch.randint(0, 10, (5,), device="tpu"))
    for g, w in zip(got, want):
        assert torch.equal(g.cpu(), w)


def test_dropout_matches_cpu():
    # native_dropout takes no Generator but draws from the default one (it is
    # tagged nondeterministic_seeded): the same seed drops the same elements.
    x = torch.randn(8, 16)
    for f in (lambda t: torch.nn.functional.dropout(t, 0.4, training=True),
              lambda t: torch.nn.functional.scaled_dot_product_attention(t[None], t[None], t[None], dropout_p=0.3)):
        torch.manual_seed(11)
        want = f(x)
        torch.manual_seed(11)
        got = f(x.to("tpu"))
        torch.testing.assert_close(got.cpu(), want)


def test_conj_and_neg_views_reach_the_engine_resolved():
    # mm and addmm take lazy x.conj() / negated views as they are (conj-aware
    # ops): the values they stand for must reach the engine.
    g = torch.Generator().manual_seed(5)
    a = torch.randn(3, 4, dtype=torch.complex64, generator=g)
    b = torch.randn(4, 3, dtype=torch.complex64, generator=g)
    ta, tb = a.to("tpu"), b.to("tpu")
    for f in (lambda x, y: x.conj() @ y, lambda x, y: torch.mm(x, y.conj()), lambda x, y: (-x) @ y.conj(),
              lambda x, y: torch.addmm((x @ y).conj(), x, y.conj()), lambda x, y: torch.cov(x)):
        torch.testing.assert_close(f(ta, tb).cpu(), f(a, b))


def test_integer_linspace_logspace_truncate_endpoints():
    for f in (lambda d: torch.linspace(2.5, 8.3, 5, dtype=torch.int64, device=d),
              lambda d: torch.logspace(2.5, 8.3, 5, base=2.0, dtype=torch.int64, device=d),
              lambda d: torch.logspace(-1.7, 3.2, 4, dtype=torch.int32, device=d)):
        assert torch.equal(f("tpu").cpu(), f("cpu"))


def test_print_item_tolist():
    x = torch.tensor([[1.5, -2.0], [3.0, 4.25]])
    t = x.to("tpu")
    s = str(t)
    assert "device='tpu:0'" in s and "1.5000" in s and "4.2500" in s
    assert t[1, 1].item() == 4.25
    assert t.tolist() == x.tolist()
    assert t.sum().item() == x.sum().item()
    assert bool((t > 0).any())


def test_save_load(tmp_path):
    x = torch.randn(3, 4)
    t = x.to("tpu")
    buf = io.BytesIO()
    torch.save({"t": t, "view": t[1]}, buf)
    buf.seek(0)
    on_cpu = torch.load(buf, map_location="cpu")
    assert torch.equal(on_cpu["t"], x) and torch.equal(on_cpu["view"], x[1])
    buf.seek(0)
    back = torch.load(buf, map_location="tpu")
    assert back["t"].device.type == "tpu" and torch.equal(back["t"].cpu(), x)
    p = tmp_path / "x.pt"
    torch.save(x, p)
    assert torch.equal(torch.load(p, map_location="tpu").cpu(), x)


def test_copy_across_devices():
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = torch.zeros(2, 3, device="tpu")
    t.copy_(x)                                  # CPU -> tpu
    same(t, x)
    c = torch.empty(2, 3, dtype=torch.float64)
    c.copy_(t)                                  # tpu -> CPU, with a dtype change
    assert torch.equal(c, x.double())
    u = torch.zeros(2, 3, dtype=torch.int64, device="tpu")
    u.copy_(t * 2)                              # tpu -> tpu, dtype change
    assert torch.equal(u.cpu(), (x * 2).long())
    r = torch.zeros(4, 3, device="tpu")
    r.copy_(torch.tensor([1.0, 2.0, 3.0]))     # broadcast from CPU
    assert torch.equal(r.cpu(), torch.tensor([1.0, 2.0, 3.0]).expand(4, 3))
    r[1:3].copy_(t)                             # into a view, tpu -> tpu
    want = torch.tensor([1.0, 2.0, 3.0]).expand(4, 3).clone()
    want[1:3] = x
    assert torch.equal(r.cpu(), want)


def test_memory_counters():
    torch.tpu.synchronize()
    before = torch.tpu.memory_allocated()
    torch.tpu.reset_peak_memory_stats()
    x = torch.empty(1024, 256, device="tpu")     # 1 MiB
    assert torch.tpu.memory_allocated() - before == 1024 * 256 * 4
    del x
    assert torch.tpu.memory_allocated() == before
    assert torch.tpu.max_memory_allocated() >= before + 1024 * 256 * 4


def test_streams_and_events():
    s = torch.tpu.Stream()
    a = torch.tpu.Event(enable_timing=True)
    b = torch.tpu.Event(enable_timing=True)
    x = torch.randn(64, 64, device="tpu")
    a.record()
    for _ in range(5):
        x = x @ x.T / 64
    b.record()
    b.synchronize()
    assert a.query() and b.query()
    assert a.elapsed_time(b) >= 0
    with torch.tpu.stream(s):
        y = x + 1
    s.synchronize()
    b.wait(s)
    torch.tpu.synchronize()
    assert torch.isfinite(y.cpu()).all()


def test_report_lists_fallbacks():
    r = torchtpu.report()
    assert "device" in r and r["device"]["backend"] == "cpu"
    s = torch.tpu.stats()
    assert s["stats"]["ops"] > 0 and s["compiles"] > 0
