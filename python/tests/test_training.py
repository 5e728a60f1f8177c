"""Training through torch.compile(backend="torchtpu"): forward and backward
graphs on torchtpu, torch.optim steps in eager PyTorch (and compiled), 30+
steps from a fixed seed, compared with eager PyTorch CPU step by step.

Tolerances (float32): every step's loss within rtol 1e-5 / atol 1e-5 of
eager's; every final parameter and buffer within rtol 1e-4 / atol 1e-4
(AdamW divides by sqrt(v), which turns last-bit differences of small
gradients into larger steps; SGD runs stay near 1e-6)."""

from __future__ import annotations

import copy
from typing import Callable

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import torchtpu

from conftest import need

LOSS_TOL = dict(rtol=1e-5, atol=1e-5)
WEIGHT_TOL = dict(rtol=1e-4, atol=1e-4)


def _cycle(data: list, steps: int = 32) -> list:
    """A small fixed dataset seen over and over: the loss must fall."""
    return [data[i % len(data)] for i in range(steps)]


def _train(model: nn.Module, batches, loss_fn: Callable, make_opt: Callable, compiled: bool,
           compile_step: bool = False, options: dict | None = None) -> list[float]:
    f = torch.compile(model, backend="torchtpu", options=options) if compiled else model
    opt = make_opt(model.parameters())
    step = opt.step
    if compiled and compile_step:
        step = torch.compile(opt.step, backend="torchtpu")
    losses = []
    for b in batches:
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(f, b)
        loss.backward()
        step()
        losses.append(loss.item())
    return losses


def _compare(make_model, batches, loss_fn, make_opt, compile_step=False, options=None):
    torch.manual_seed(0)
    m0 = make_model()
    eager, comp = copy.deepcopy(m0), copy.deepcopy(m0)
    le = _train(eager, batches, loss_fn, make_opt, compiled=False)
    lc = _train(comp, batches, loss_fn, make_opt, compiled=True, compile_step=compile_step, options=options)
    assert len(le) == len(batches) >= 30
    torch.testing.assert_close(torch.tensor(lc), torch.tensor(le), **LOSS_TOL)
    for (name, a), b in zip(eager.state_dict().items(), comp.state_dict().values()):
        torch.testing.assert_close(b, a, **WEIGHT_TOL, msg=lambda m: f"{name}: {m}")
    assert sum(le[-4:]) < sum(le[:4])  # it trained
    r = torchtpu.report()
    assert r["on_eager"] == 0, str(r)
    kinds = {e["kind"] for e in r["entries"]}
    assert {"forward", "backward"} <= kinds, str(r)
    return r


def test_mlp_sgd_momentum():
    g = torch.Generator().manual_seed(1)
    batches = _cycle([(torch.randn(16, 20, generator=g), torch.randint(0, 5, (16,), generator=g)) for _ in range(4)])
    _compare(lambda: nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 5)),
             batches, lambda m, b: F.cross_entropy(m(b[0]), b[1]),
             lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9))


def _cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))


@pytest.mark.parametrize("opt", ["sgd", "adamw"])
def test_cnn_batchnorm(opt):
    g = torch.Generator().manual_seed(2)
    batches = _cycle([(torch.randn(4, 3, 16, 16, generator=g), torch.randint(0, 10, (4,), generator=g))
                      for _ in range(4)])
    make_opt = (lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)) if opt == "sgd" else \
        (lambda p: torch.optim.AdamW(p, lr=1e-3))
    _compare(_cnn, batches, lambda m, b: F.cross_entropy(m(b[0]), b[1]), make_opt)


def _tiny_gpt2() -> nn.Module:
    transformers = need("transformers")
    cfg = transformers.GPT2Config(vocab_size=128, n_positions=32, n_embd=32, n_layer=2, n_head=4,
                                  resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                                  bos_token_id=0, eos_token_id=0)
    return transformers.GPT2LMHeadModel(cfg)


@pytest.mark.parametrize("partition", ["min_cut", "default"])
def test_tiny_gpt2_adamw(partition):
    """Both partitions train as eager does; the forward's permuted outputs
    (the attention heads, the activations' transposes) are written in
    place and read in place by the backward."""
    need("transformers")
    from torchtpu._dynamo import graphs

    torchtpu.reset_report()
    g = torch.Generator().manual_seed(3)
    batches = _cycle([torch.randint(0, 128, (2, 16), generator=g) for _ in range(4)])
    _compare(_tiny_gpt2, batches, lambda m, b: m(b, labels=b).loss, lambda p: torch.optim.AdamW(p, lr=1e-3),
             options={"partition": partition})
    assert sum(len(c.engine.out_views) + len(c.engine.in_orders) for c in graphs() if c.engine is not None) > 0


def test_min_cut_saves_less():
    """partition="min_cut" saves fewer values for the backward than
    "default" (a tanh GELU's and a layer norm's intermediates are computed
    again in the backward), with the same gradients."""
    from torchtpu._dynamo import graphs

    torch.manual_seed(5)
    m0 = nn.Sequential(nn.Linear(16, 32), nn.GELU(approximate="tanh"), nn.LayerNorm(32), nn.Linear(32, 4))
    x = torch.randn(8, 16)
    ref = copy.deepcopy(m0)
    ref(x).square().sum().backward()
    saved = {}
    for partition in ("min_cut", "default"):
        torchtpu.reset_report()
        m = copy.deepcopy(m0)
        torch.compile(m, backend="torchtpu", options={"partition": partition})(x).square().sum().backward()
        for a, b in zip(ref.parameters(), m.parameters()):
            torch.testing.assert_close(b.grad, a.grad, rtol=1e-5, atol=1e-5)
        (fw,) = [c for c in graphs() if c.kind == "forward"]
        saved[partition] = len(fw.engine.outputs)
    assert saved["min_cut"] < saved["default"], saved


def test_compiled_optimizer_step():
    g = torch.Generator().manual_seed(4)
    batches = _cycle([(torch.randn(8, 12, generator=g), torch.randn(8, 3, generator=g)) for _ in range(4)])
    r = _compare(lambda: nn.Sequential(nn.Linear(12, 24), nn.SiLU(), nn.Linear(24, 3)), batches,
                 lambda m, b: F.mse_loss(m(b[0]), b[1]), lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
                 compile_step=True)
    assert any(e["kind"] == "inference" for e in r["entries"]), str(r)  # the step's graph
