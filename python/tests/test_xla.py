"""torch.compile(backend="torchtpu", options={"device": "xla-cpu"}): the same
graphs through XLA's CPU compiler as a PJRT plugin (scripts/install-pjrt.sh
xla-cpu). The chroot cannot see the plugin's cache folder, so these run in
the venv; in CI there they must run."""

from __future__ import annotations

import os

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import torchtpu

from conftest import IN_CI
from test_training import WEIGHT_TOL, LOSS_TOL, _cnn, _cycle, _train


@pytest.fixture(autouse=True)
def _xla_cpu():
    devs = {d["name"]: d for d in torchtpu.devices()}
    d = devs.get("xla-cpu")
    if d is None or not d["available"]:
        why = d["error"] if d else "no xla-cpu device registered"
        if IN_CI and os.environ.get("TORCHTPU_TEST_ENV") != "chroot":
            pytest.fail(f"xla-cpu is not available in CI: {why}")
        pytest.skip(f"xla-cpu is not available: {why}")


def test_cnn_training_on_xla_cpu():
    g = torch.Generator().manual_seed(5)
    batches = _cycle([(torch.randn(4, 3, 16, 16, generator=g), torch.randint(0, 10, (4,), generator=g))
                      for _ in range(4)])
    import copy

    torch.manual_seed(0)
    m0 = _cnn()
    eager, comp = copy.deepcopy(m0), copy.deepcopy(m0)

    def opt(p):
        return torch.optim.SGD(p, lr=0.05, momentum=0.9)

    le = _train(eager, batches, lambda m, b: F.cross_entropy(m(b[0]), b[1]), opt, compiled=False)
    f = torch.compile(comp, backend="torchtpu", options={"device": "xla-cpu"})
    o = opt(comp.parameters())
    lc = []
    for b in batches:
        o.zero_grad()
        loss = F.cross_entropy(f(b[0]), b[1])
        loss.backward()
        o.step()
        lc.append(loss.item())
    torch.testing.assert_close(torch.tensor(lc), torch.tensor(le), **LOSS_TOL)
    for a, b in zip(eager.state_dict().values(), comp.state_dict().values()):
        torch.testing.assert_close(b, a, **WEIGHT_TOL)
    r = torchtpu.report()
    assert r["on_eager"] == 0 and all(e["device"] == "xla-cpu" for e in r["entries"]), str(r)


def test_inference_on_xla_cpu():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 14 * 14, 5)).eval()
    x = torch.randn(2, 3, 16, 16)
    with torch.no_grad():
        torch.testing.assert_close(torch.compile(m, backend="torchtpu", options={"device": "xla-cpu"})(x), m(x),
                                   rtol=1e-4, atol=1e-4)
