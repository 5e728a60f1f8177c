"""Inference of real architectures through torch.compile(backend="torchtpu"),
random weights (no hub), compared with eager PyTorch CPU."""

from __future__ import annotations

import pytest
import torch

import torchtpu

from conftest import need

TOL = dict(rtol=1e-4, atol=1e-4)


def _check(model: torch.nn.Module, *args, **kwargs):
    model.eval()
    with torch.no_grad():
        want = model(*args, **kwargs)
        got = torch.compile(model, backend="torchtpu")(*args, **kwargs)
    r = torchtpu.report()
    assert r["on_eager"] == 0 and r["on_torchtpu"] >= 1, str(r)
    return got, want


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v3_small"])
def test_torchvision(name):
    tv = need("torchvision")
    torch.manual_seed(0)
    model = getattr(tv.models, name)(weights=None)
    x = torch.randn(2, 3, 64, 64)
    got, want = _check(model, x)
    torch.testing.assert_close(got, want, **TOL)


def test_gpt2():
    transformers = need("transformers")
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(vocab_size=256, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                                  bos_token_id=0, eos_token_id=0)
    model = transformers.GPT2LMHeadModel(cfg)
    ids = torch.randint(0, 256, (2, 24))
    got, want = _check(model, ids)
    torch.testing.assert_close(got.logits, want.logits, **TOL)


def test_bert():
    transformers = need("transformers")
    torch.manual_seed(0)
    cfg = transformers.BertConfig(vocab_size=256, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                  intermediate_size=128, max_position_embeddings=64)
    model = transformers.BertModel(cfg)
    ids = torch.randint(0, 256, (2, 20))
    mask = torch.ones(2, 20, dtype=torch.long)
    mask[1, 15:] = 0
    got, want = _check(model, input_ids=ids, attention_mask=mask)
    torch.testing.assert_close(got.last_hidden_state, want.last_hidden_state, **TOL)
    torch.testing.assert_close(got.pooler_output, want.pooler_output, **TOL)
