"""Training entirely on the tpu device matches CPU, in each of the device's
modes: a small CNN (conv, batch norm, pooling, SGD with momentum) and a tiny
GPT (embeddings, causal attention, layer norm, GELU MLP, AdamW), 30 steps
each, same seeds, same data; losses and final weights compared with CPU's."""

from __future__ import annotations

import copy
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import torchtpu  # noqa: F401

STEPS = 30


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 2)
        x = F.relu(self.conv2(x))
        return self.fc(x.flatten(1))


class Block(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        # No qkv bias: the key bias's gradient is zero in exact arithmetic
        # (softmax ignores a per-row constant), and AdamW would amplify its
        # rounding noise into updates of either sign on either device.
        self.qkv, self.proj = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class TinyGPT(nn.Module):
    def __init__(self, vocab: int = 50, d: int = 32, t: int = 16, layers: int = 2, heads: int = 4) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(t, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def train(model: nn.Module, opt_fn, batches, loss_fn, device: str) -> tuple[list[float], dict]:
    model = model.to(device)
    opt = opt_fn(model.parameters())
    losses = []
    for x, y in batches:
        x, y = x.to(device), y.to(device)
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, {k: v.detach().cpu() for k, v in model.state_dict().items()}


def check(make, opt_fn, batches, loss_fn, mode: str) -> None:
    torch.manual_seed(0)
    model = make()
    want_losses, want_params = train(copy.deepcopy(model), opt_fn, batches, loss_fn, "cpu")
    with torch.tpu.mode(mode):
        got_losses, got_params = train(copy.deepcopy(model), opt_fn, batches, loss_fn, "tpu")
        torch.tpu.synchronize()
    torch.testing.assert_close(torch.tensor(got_losses), torch.tensor(want_losses), rtol=1e-4, atol=1e-5)
    for k in want_params:
        torch.testing.assert_close(got_params[k], want_params[k], rtol=1e-4, atol=1e-5, msg=lambda m: f"{k}: {m}")
    assert want_losses[-1] < want_losses[0]


MODES = ["debug", "async", "fused"]


@pytest.mark.parametrize("mode", MODES)
def test_cnn_sgd(mode):
    g = torch.Generator().manual_seed(1)
    batches = [(torch.randn(8, 3, 16, 16, generator=g), torch.randint(0, 10, (8,), generator=g))
               for _ in range(STEPS)]
    check(SmallCNN, lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9), batches, F.cross_entropy, mode)


@pytest.mark.parametrize("mode", MODES)
def test_tiny_gpt_adamw(mode):
    g = torch.Generator().manual_seed(2)
    batches = []
    for _ in range(STEPS):
        seq = torch.randint(0, 50, (4, 17), generator=g)
        batches.append((seq[:, :-1], seq[:, 1:]))

    def loss_fn(logits, y):
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))

    check(TinyGPT, lambda p: torch.optim.AdamW(p, lr=3e-3, weight_decay=0.1), batches, loss_fn, mode)


def test_autograd_grad():
    x = torch.randn(5, 3)
    w = torch.randn(3, 4)

    def f(x, w):
        return (torch.tanh(x @ w) ** 2).sum()

    xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
    want = torch.autograd.grad(f(xc, wc), (xc, wc))
    xt, wt = x.to("tpu").requires_grad_(), w.to("tpu").requires_grad_()
    got = torch.autograd.grad(f(xt, wt), (xt, wt))
    for g, w_ in zip(got, want):
        assert g.device.type == "tpu"
        torch.testing.assert_close(g.cpu(), w_)


def test_to_keeps_parameters_and_tied_weights():
    """module.to("tpu") moves parameters in place (the same Parameter
    objects), so weights tied by sharing one (an LM's embedding and output
    head) stay tied and train as on CPU."""

    class Tied(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(20, 8)
            self.head = nn.Linear(8, 20, bias=False)
            self.head.weight = self.emb.weight

        def forward(self, x):
            return self.head(self.emb(x))

    torch.manual_seed(3)
    m = Tied()
    p = m.emb.weight
    g = torch.Generator().manual_seed(4)
    batches = [(torch.randint(0, 20, (3, 5), generator=g), torch.randint(0, 20, (3, 5), generator=g))
               for _ in range(5)]

    def loss_fn(logits, y):
        return F.cross_entropy(logits.reshape(-1, 20), y.reshape(-1))

    check(lambda: copy.deepcopy(m), lambda ps: torch.optim.SGD(ps, lr=0.5), batches, loss_fn, "async")
    m.to("tpu")
    assert m.emb.weight is p and m.head.weight is p and p.device.type == "tpu"


def test_backward_runs_on_the_calling_thread() -> None:
    """The device's backward runs where it is called, as for CPU tensors
    (no hand-off to PyTorch's per-device autograd thread)."""
    import threading

    seen: list[int] = []
    w = torch.randn(4, device="tpu", requires_grad=True)
    y = w * 2
    y.register_hook(lambda g: seen.append(threading.get_ident()))
    y.sum().backward()
    assert seen == [threading.get_ident()]
    torch.testing.assert_close(w.grad.cpu(), torch.full((4,), 2.0))
