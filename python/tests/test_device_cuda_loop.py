"""A CUDA training script moved to tpu by replacing "cuda" with "tpu":
torch.compile, autocast (bfloat16, or float16 with GradScaler), activation
checkpointing, a state_dict round trip through torch.save mid-run and a
profiled step, against the same loop in eager PyTorch on the CPU (CPU
autocast in the same dtype): losses and weights within 2e-2 with autocast,
1e-4 without, and every compiled graph on torchtpu."""

from __future__ import annotations

import io

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile
from torch.utils.checkpoint import checkpoint

import torchtpu

STEPS = 6


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inp = nn.Linear(16, 32)
        self.block = nn.Sequential(nn.Linear(32, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 32))
        self.out = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.inp(x))
        h = h + checkpoint(self.block, h, use_reentrant=False)
        return self.out(h)


def train(device: str, amp, compiled: bool) -> tuple[list[float], dict[str, torch.Tensor], object]:
    torch.manual_seed(0)
    model = Net().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    scaler = torch.amp.GradScaler(device, enabled=amp == torch.float16)
    fwd = torch.compile(model, backend="torchtpu") if compiled else model
    g = torch.Generator().manual_seed(1)
    data = [(torch.randn(8, 16, generator=g), torch.randint(0, 4, (8,), generator=g)) for _ in range(STEPS)]
    losses, prof = [], None
    for i, (x, y) in enumerate(data):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)

        def step() -> torch.Tensor:
            with torch.autocast(device, dtype=amp or torch.float32, enabled=amp is not None):
                loss = F.cross_entropy(fwd(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
            return loss

        if i == STEPS - 1 and device == "tpu":
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
                loss = step()
                torch.tpu.synchronize()
        else:
            loss = step()
        losses.append(loss.item())
        if i == STEPS // 2:  # checkpoint and resume, as a long run does
            buf = io.BytesIO()
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "scaler": scaler.state_dict()}, buf)
            buf.seek(0)
            state = torch.load(buf, weights_only=True)
            assert all(t.device.type == device for t in state["model"].values())
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["opt"])
            scaler.load_state_dict(state["scaler"])
    weights = {k: v.detach().cpu().float() for k, v in model.state_dict().items()}
    return losses, weights, prof


@pytest.mark.parametrize("amp,tol", [(None, 1e-4), (torch.bfloat16, 2e-2), (torch.float16, 2e-2)],
                         ids=["fp32", "bf16", "fp16-scaler"])
def test_cuda_style_loop_matches_cpu(amp, tol):
    got, w_got, prof = train("tpu", amp, compiled=True)
    want, w_want, _ = train("cpu", amp, compiled=False)
    for i, (a, b) in enumerate(zip(got, want)):
        assert abs(a - b) <= tol * max(1.0, abs(b)), (i, got, want)
    for k in w_want:
        torch.testing.assert_close(w_got[k], w_want[k], rtol=tol, atol=tol, msg=k)
    r = torchtpu.report()
    assert r["graphs"] >= 2 and r["on_eager"] == 0, str(r)
    assert all(e.get("tensors_on") == "tpu:0" for e in r["entries"])
    ev = {e.key: e for e in prof.key_averages()}
    spans = [k for k in ev if k.startswith("torchtpu graph ")]
    assert {s.split()[-1] for s in spans} <= {e["name"] for e in r["entries"]} and len(spans) >= 2, spans
    assert all(ev[s].device_time_total > 0 for s in spans)
    assert sum(e.self_device_time_total for e in prof.key_averages()) > 0
