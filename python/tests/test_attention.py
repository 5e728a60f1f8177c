"""Attention and every op whose forward saves values for its backward,
trained through torch.compile(backend="torchtpu").

Each case trains from a fixed seed and compares with eager PyTorch CPU
step by step. Besides the all-torchtpu run, the mixed runs put one graph
kind in eager PyTorch (Options.eager_graphs): the forward on torchtpu with
the backward in eager, and the reverse. A backward in eager reads what the
torchtpu forward saved with PyTorch's own kernel (a logsumexp, a mean and
rstd, pooling indices, an RNN's workspace), so these runs hold every saved
value to PyTorch's contract: shape, dtype, layout and values.
"""

from __future__ import annotations

import copy
from typing import Callable, Sequence

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import torchtpu

from conftest import need

LOSS_TOL = dict(rtol=1e-5, atol=1e-5)
WEIGHT_TOL = dict(rtol=1e-4, atol=1e-4)
MODES = {"torchtpu": (), "backward_in_eager": ("backward",), "forward_in_eager": ("forward",)}


def _train(model: nn.Module, batches: Sequence, loss_fn: Callable, opts: dict | None, steps: int) -> list[float]:
    f = torch.compile(model, backend="torchtpu", options=opts) if opts is not None else model
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for i in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(f, batches[i % len(batches)])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _compare(make_model: Callable[[], nn.Module], batches: Sequence, loss_fn: Callable, mode: str,
             steps: int = 12) -> None:
    torch.manual_seed(0)
    m0 = make_model()
    eager, comp = copy.deepcopy(m0), copy.deepcopy(m0)
    le = _train(eager, batches, loss_fn, None, steps)
    lc = _train(comp, batches, loss_fn, {"eager_graphs": MODES[mode]}, steps)
    torch.testing.assert_close(torch.tensor(lc), torch.tensor(le), **LOSS_TOL)
    for (name, a), b in zip(eager.state_dict().items(), comp.state_dict().values()):
        torch.testing.assert_close(b, a, **WEIGHT_TOL, msg=lambda m: f"{name}: {m}")
    r = torchtpu.report()
    forced = set(MODES[mode])
    for e in r["entries"]:
        want = "eager" if e["kind"] in forced else "torchtpu"
        assert e["ran_on"] == want, str(r)
        assert e["runs"] >= 1, str(r)  # fallback graphs count their runs too
    kinds = {e["kind"] for e in r["entries"]}
    assert {"forward", "backward"} <= kinds, str(r)


class MHAModel(nn.Module):
    """The model of the report: embedding, nn.MultiheadAttention with a
    boolean causal mask, layer norm, linear head."""

    def __init__(self, vocab: int = 50, d: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln = nn.LayerNorm(d)
        self.out = nn.Linear(d, vocab)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.emb(x)
        L = x.shape[1]
        mask = torch.triu(torch.ones(L, L, dtype=torch.bool), 1)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        return self.out(self.ln(h + a))


def _tokens(vocab: int = 50, batch: int = 2, seq: int = 10, n: int = 3) -> list:
    g = torch.Generator().manual_seed(1)
    return [(torch.randint(0, vocab, (batch, seq), generator=g), torch.randint(0, vocab, (batch, seq), generator=g))
            for _ in range(n)]


def _lm_loss(m: nn.Module, b) -> torch.Tensor:
    logits = m(b[0])
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), b[1].reshape(-1))


@pytest.mark.parametrize("mode", list(MODES))
def test_multihead_attention_bool_causal_mask(mode):
    _compare(MHAModel, _tokens(), _lm_loss, mode)


class SDPABlock(nn.Module):
    """A GPT/BERT-style block on F.scaled_dot_product_attention with one
    kind of mask; "gqa" has half as many key/value heads."""

    def __init__(self, mask: str, vocab: int = 40, d: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.mask, self.heads = mask, heads
        self.kv_heads = heads // 2 if mask == "gqa" else heads
        hd = d // heads
        self.emb = nn.Embedding(vocab, d)
        self.q = nn.Linear(d, d)
        self.kv = nn.Linear(d, 2 * self.kv_heads * hd)
        self.proj = nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, vocab)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, L = x.shape
        h = self.emb(x)
        y = self.ln1(h)
        q = self.q(y).view(B, L, self.heads, -1).transpose(1, 2)
        k, v = self.kv(y).view(B, L, 2, self.kv_heads, -1).permute(2, 0, 3, 1, 4)
        kw: dict = {}
        if self.mask == "causal":
            kw["is_causal"] = True
        elif self.mask == "bool":  # padding: the last two keys of batch 1 masked
            keep = torch.ones(B, 1, L, L, dtype=torch.bool)
            keep[1, :, :, -2:] = False
            kw["attn_mask"] = keep
        elif self.mask == "float":  # an additive bias with a fully masked query row
            bias = torch.linspace(-1, 1, L * L).view(L, L)
            bias[0] = float("-inf")
            kw["attn_mask"] = bias
        elif self.mask == "gqa":
            kw["is_causal"] = True
            kw["enable_gqa"] = True
        a = F.scaled_dot_product_attention(q, k, v, **kw)
        h = h + self.proj(a.transpose(1, 2).reshape(B, L, -1))
        h = h + self.mlp(self.ln2(h))
        return self.head(h)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("mask", ["none", "causal", "bool", "float", "gqa"])
def test_sdpa_masks(mask, mode):
    if mask == "gqa" and "enable_gqa" not in F.scaled_dot_product_attention.__doc__:
        pytest.skip("this torch has no enable_gqa")
    _compare(lambda: SDPABlock(mask), _tokens(40), _lm_loss, mode)


# Ops whose forward saves auxiliary outputs for their backward. --------------

def _images(n: int = 2) -> list:
    g = torch.Generator().manual_seed(2)
    return [(torch.randn(4, 3, 12, 12, generator=g), torch.randint(0, 5, (4,), generator=g)) for _ in range(n)]


def _cls_loss(m: nn.Module, b) -> torch.Tensor:
    return F.cross_entropy(m(b[0]), b[1])


class PoolNorms(nn.Module):
    """Batch norm, group norm, max pooling with indices (and unpooling),
    adaptive max pooling, instance norm."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.gn = nn.GroupNorm(2, 8)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1)
        self.inorm = nn.InstanceNorm2d(8, affine=True)
        self.fc = nn.Linear(8 * 9, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.gn(self.bn(self.c1(x))))
        p, idx = F.max_pool2d(h, 2, return_indices=True)
        h = F.max_unpool2d(p, idx, 2) + h
        h = self.inorm(self.c2(h))
        h = F.adaptive_max_pool2d(h, 3)
        return self.fc(h.flatten(1))


@pytest.mark.parametrize("mode", list(MODES))
def test_norms_and_pooling_with_indices(mode):
    _compare(PoolNorms, _images(), _cls_loss, mode)


class Recurrent(nn.Module):
    def __init__(self, cell: str) -> None:
        super().__init__()
        self.emb = nn.Embedding(30, 16)
        self.rnn = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}[cell](16, 24, num_layers=2, batch_first=True)
        self.fc = nn.Linear(24, 30)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(self.emb(x))
        return self.fc(h)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
def test_recurrent(cell, mode):
    # dynamo leaves RNN modules to eager PyTorch unless allow_rnn is set
    with torch._dynamo.config.patch(allow_rnn=True):
        _compare(lambda: Recurrent(cell), _tokens(30, seq=7), _lm_loss, mode)
    # the recurrence is in the graphs (not left to eager by dynamo)
    assert all(e["nodes_on_torchtpu"] + e["nodes_on_eager"] > 20 for e in torchtpu.report()["entries"])


class Bags(nn.Module):
    """EmbeddingBag (sum and max: max saves the argmax of each bag), and a
    layer norm and a log-softmax loss."""

    def __init__(self) -> None:
        super().__init__()
        self.sum = nn.EmbeddingBag(40, 16, mode="sum")
        self.max = nn.EmbeddingBag(40, 16, mode="max")
        self.ln = nn.LayerNorm(32)
        self.fc = nn.Linear(32, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.cat([self.sum(x), self.max(x)], dim=1)
        return F.log_softmax(self.fc(self.ln(h)), dim=-1)


@pytest.mark.parametrize("mode", list(MODES))
def test_embedding_bag(mode):
    g = torch.Generator().manual_seed(3)
    batches = [(torch.randint(0, 40, (6, 5), generator=g), torch.randint(0, 5, (6,), generator=g)) for _ in range(3)]
    _compare(Bags, batches, lambda m, b: F.nll_loss(m(b[0]), b[1]), mode)


def test_output_layouts_follow_the_graph():
    """Outputs the graph records with non-row-major strides come back with
    those strides: a permutation, and a broadcast."""

    def f(x: torch.Tensor, y: torch.Tensor):
        return (x * 2).permute(2, 0, 1), (y + 1).expand(3, 4), (x + 1)[:, ::2]

    x, y = torch.randn(2, 3, 4), torch.randn(1, 4)
    want = f(x, y)
    got = torch.compile(f, backend="torchtpu")(x, y)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
        assert g.stride() == w.stride(), (g.stride(), w.stride())
    assert torchtpu.report()["on_eager"] == 0


def test_vision_transformer_gradients():
    """torchvision's ViT (the class token and patch projection went wrong
    through the fused attention's backward): one compiled training step's
    gradients equal eager's."""
    need("torchvision")
    from torchvision.models.vision_transformer import VisionTransformer

    torch.manual_seed(0)
    m = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4, hidden_dim=32, mlp_dim=64,
                          num_classes=5)
    eager, comp = copy.deepcopy(m), copy.deepcopy(m)
    x, y = torch.randn(2, 3, 32, 32), torch.tensor([1, 3])
    F.cross_entropy(eager(x), y).backward()
    F.cross_entropy(torch.compile(comp, backend="torchtpu")(x), y).backward()
    for (name, a), b in zip(eager.named_parameters(), comp.parameters()):
        torch.testing.assert_close(b.grad, a.grad, rtol=1e-4, atol=1e-5, msg=lambda m: f"{name}: {m}")
    r = torchtpu.report()
    assert r["on_eager"] == 0 and r["graphs"] == 2, str(r)
