"""The tpu device in torch.profiler: each engine op, fused block and compiled
graph the device runs is a device activity with its device time, counted in
the op that launched it (device_time_total, self_device_time_total);
compiled graphs are one span each, named as in torchtpu.report(); a Chrome
trace has host and device rows."""

from __future__ import annotations

import json

import torch
from torch.profiler import ProfilerActivity, profile

import torchtpu


def _profile(fn):
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        fn()
        torch.tpu.synchronize()
    return prof


def test_eager_ops_have_device_time(tmp_path):
    a, b = torch.randn(64, 64, device="tpu"), torch.randn(64, 64, device="tpu")
    (a @ b).relu().sum().item()  # compile the ops' programs first

    prof = _profile(lambda: (a @ b).relu().sum().item())
    ev = {e.key: e for e in prof.key_averages()}
    for op in ("aten::mm", "aten::relu", "aten::sum"):
        assert ev[op].device_time_total > 0 and ev[op].self_device_time_total > 0, (op, ev[op])
    assert ev["aten::mm"].device_time_total <= prof.profiler.self_cpu_time_total * 10
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    names = {e["args"]["name"] for e in trace if e.get("ph") == "M" and e.get("name") == "process_name"}
    assert "tpu" in names, names
    device = [e for e in trace if e.get("cat") == "kernel"]
    assert {"aten::mm.default", "aten::relu.default"} <= {e["name"] for e in device}
    assert all(e["pid"] == 0 and e["dur"] >= 0 for e in device)
    host = [e for e in trace if e.get("cat") == "cpu_op"]
    assert host and all(e["pid"] != 0 for e in host)


def test_fused_blocks_and_compiled_graphs():
    m = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).to("tpu")
    cm = torch.compile(m, backend="torchtpu")
    x = torch.randn(16, 32, device="tpu")

    def step():
        cm(x).sum().backward()

    step()
    prof = _profile(step)
    names = [g["name"] for g in torchtpu.report()["entries"]]
    assert [n.split("_")[0] for n in names] == ["forward", "backward"], names
    ev = {e.key: e for e in prof.key_averages()}
    for name in names:
        span = ev[f"torchtpu graph {name}"]
        assert span.count == 1 and span.device_time_total > 0, span
        assert ev[name].self_device_time_total > 0  # the graph's device activity

    with torch.tpu.mode("fused"):
        y = torch.randn(8, 8, device="tpu")
        ((y * 2 + 1).relu() * y).sum().item()
        prof = _profile(lambda: ((y * 2 + 1).relu() * y).sum().item())
    blocks = [e for e in prof.events() if e.name.startswith("fused block")]
    assert blocks and all(e.device_time_total > 0 for e in blocks)


def test_without_device_activity_nothing_is_recorded():
    x = torch.randn(8, device="tpu")
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        (x * 2).sum().item()
    assert all(e.device_time_total == 0 for e in prof.key_averages())
    assert all(e.device_type == torch.autograd.DeviceType.CPU for e in prof.events())


def test_legacy_profiler_times_ops_with_device_events():
    """torch.autograd.profiler.profile(use_device="tpu") without Kineto's
    device tracing: device events around each op."""
    a = torch.randn(32, 32, device="tpu")
    (a @ a).sum().item()
    with torch.autograd.profiler.profile(use_device="tpu") as prof:
        (a @ a).sum().item()
    ev = {e.key: e for e in prof.key_averages()}
    assert ev["aten::mm"].device_time_total > 0 and ev["aten::mm"].cpu_time_total > 0
    assert all(e.cpu_time_total >= 0 for e in prof.key_averages())
