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


def _specialisations(entry) -> int:
    """Executables a graph needed: compiled, or found in the process's or
    the disk's compile cache (an earlier test compiled the same program)."""
    e = entry["engine"]
    hits = e.get("hits_by") or {}
    return e["compiles"] + hits.get("disk", 0) + hits.get("memory", 0)


@pytest.mark.parametrize("buckets,limit", [("pow2", 6), (None, 6), ("exact", 7)])
def test_dynamic_batch_buckets_on_xla_cpu(buckets, limit):
    # Seven batch sizes: pow2 buckets (the default on XLA devices) share the
    # executables of 5 and 7 (bucket 8); exact sizes compile each.
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).eval()
    opts = {"device": "xla-cpu"}
    if buckets is not None:
        opts["buckets"] = buckets
    f = torch.compile(m, backend="torchtpu", dynamic=True, options=opts)
    with torch.no_grad():
        for b in (2, 3, 5, 7, 16, 33, 100):
            x = torch.randn(b, 16)
            torch.testing.assert_close(f(x), m(x), rtol=1e-5, atol=1e-6)
    r = torchtpu.report()
    assert r["on_eager"] == 0 and len(r["entries"]) == 1, str(r)
    n = _specialisations(r["entries"][0])
    assert n == limit, str(r["entries"][0])
    bucketing = r["entries"][0]["engine"]["bucketing"]  # absent when exact sizes were asked for
    assert bool(bucketing and bucketing["enabled"]) == (buckets != "exact"), str(bucketing)


@pytest.mark.parametrize("use_cache", [False, True])
def test_gpt2_generate_buckets_on_xla_cpu(use_cache):
    # generate() of 20 tokens from 5: the sequence (or the KV cache) grows
    # from 5 to 24, three pow2 buckets (8, 16, 32): one compile each.
    from conftest import need

    transformers = need("transformers")
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(vocab_size=256, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                                  bos_token_id=0, eos_token_id=0)
    model = transformers.GPT2LMHeadModel(cfg).eval()
    ids = torch.randint(1, 256, (1, 5))
    kw = dict(max_new_tokens=20, do_sample=False, use_cache=use_cache, pad_token_id=0)
    with torch.no_grad():
        want = model.generate(ids, **kw)
        model.forward = torch.compile(model.forward, backend="torchtpu", dynamic=True, options={"device": "xla-cpu"})
        got = model.generate(ids, **kw)
    assert torch.equal(got, want)
    r = torchtpu.report()
    assert r["on_eager"] == 0, str(r)
    for e in r["entries"]:
        assert _specialisations(e) <= 3, str(e)
    assert sum(e["runs"] for e in r["entries"]) == 20
