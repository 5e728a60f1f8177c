"""The rest of the torch.cuda surface on torch.tpu that training scripts
touch: memory queries and the cache, the device's name and properties,
bfloat16 support, torch.accelerator's memory functions, pinned memory."""

from __future__ import annotations

import warnings

import torch

import torchtpu  # noqa: F401


def test_memory_queries_and_cache():
    torch.tpu.synchronize()
    torch.tpu.reset_peak_memory_stats()
    base = torch.tpu.memory_allocated()
    x = torch.empty(1000, 1000, device="tpu")
    n = x.nelement() * x.element_size()
    assert torch.tpu.memory_allocated() == base + n
    assert torch.tpu.memory_reserved() == torch.tpu.memory_allocated()
    assert torch.tpu.max_memory_reserved() >= base + n
    stats = torch.tpu.memory_stats()
    assert stats["allocated_bytes.all.current"] == base + n and stats["reserved_bytes.all.peak"] >= base + n
    assert torch.accelerator.memory_allocated() == base + n
    assert torch.accelerator.max_memory_allocated() >= base + n
    summary = torch.tpu.memory_summary()
    assert "Allocated memory" in summary and "tpu:0" in summary
    del x
    torch.tpu.empty_cache()
    torch.accelerator.empty_cache()
    assert torch.tpu.memory_allocated() == base
    torch.accelerator.reset_peak_memory_stats()
    assert torch.accelerator.max_memory_allocated() == base
    free, total = torch.tpu.mem_get_info()
    assert 0 < free <= total


def test_device_identity():
    backend = torch.tpu.stats()["backend"]
    assert torch.tpu.get_device_name() == torch.tpu.get_device_name(0) == f"torchtpu tpu:0 ({backend} backend)"
    p = torch.tpu.get_device_properties(0)
    assert p.name == torch.tpu.get_device_name() and p.total_memory > 0 and p.multi_processor_count >= 1
    assert torch.tpu.is_bf16_supported()
    assert torch.tpu.get_device_capability() == (0, 0)
    assert torch.accelerator.current_accelerator().type == "tpu"


def test_pinned_memory_and_data_loader():
    t = torch.randn(4, 3)
    assert not t.is_pinned()
    p = t.pin_memory()
    assert p.is_pinned() and torch.equal(p, t)
    torch.testing.assert_close(p.to("tpu", non_blocking=True).cpu(), t)
    ds = torch.utils.data.TensorDataset(torch.randn(8, 3), torch.arange(8))
    for kw in ({}, {"pin_memory_device": "tpu"}):  # the latter deprecated in newer torch: the accelerator is used
        seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loader = torch.utils.data.DataLoader(ds, batch_size=4, pin_memory=True, **kw)
            for x, y in loader:
                assert x.is_pinned() and y.is_pinned()
                seen.append(y.to("tpu", non_blocking=True))
        assert torch.cat(seen).cpu().tolist() == list(range(8))
