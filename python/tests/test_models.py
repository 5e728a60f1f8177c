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


def _gpt2_generate(cache: str | None):
    """HF generate() with the forward compiled (dynamic=True), greedy, with
    the KV cache; returns the tokens, eager's tokens and the report."""
    transformers = need("transformers")
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(vocab_size=256, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                                  bos_token_id=0, eos_token_id=0)
    model = transformers.GPT2LMHeadModel(cfg).eval()
    ids = torch.randint(1, 256, (1, 8))
    kw = dict(max_new_tokens=20, do_sample=False, pad_token_id=0)
    if cache:
        kw["cache_implementation"] = cache
    want = model.generate(ids, **kw)
    model.forward = torch.compile(model.forward, backend="torchtpu", dynamic=True)
    got = model.generate(ids, **kw)
    return got, want, torchtpu.report()


def test_gpt2_generate_dynamic_cache():
    # The cache grows by one position a step: the decode graph (dynamic in
    # the sequence) is one dynamo graph, which the engine specialises per
    # length: 1 + 19 engine compiles for 20 tokens.
    got, want, r = _gpt2_generate(None)
    assert torch.equal(got, want)
    assert r["on_eager"] == 0 and r["split"] == 0 and r["nodes_on_eager"] == 0, str(r)
    assert r["graphs"] == 2 and sum(e["runs"] for e in r["entries"]) == 20, str(r)


def test_gpt2_generate_static_cache_compiles_twice():
    # A static cache keeps every shape fixed as the sequence grows: two
    # graphs (prefill, decode), each compiled by the engine once.
    got, want, r = _gpt2_generate("static")
    assert torch.equal(got, want)
    assert r["on_eager"] == 0 and r["split"] == 0 and r["nodes_on_eager"] == 0, str(r)
    assert r["graphs"] == 2, str(r)
    assert all(e["engine"]["compiles"] + e["engine"]["cache_hits"] == e["runs"] for e in r["entries"])
    assert all(e["engine"]["compiles"] + len(e["engine"]["recompiles"]) <= 1 for e in r["entries"]), str(r)


def _split_check(model, eager_op, *args, **kwargs):
    """Inference with one op forced unsupported: the graphs split around
    it, at least 90% of their nodes on torchtpu, matching eager."""
    model.eval()
    with torch.no_grad():
        want = model(*args, **kwargs)
        got = torch.compile(model, backend="torchtpu", options={"eager_ops": [eager_op]})(*args, **kwargs)
    r = torchtpu.report()
    on, off = r["nodes_on_torchtpu"], r["nodes_on_eager"]
    assert r["on_eager"] == 0 and r["split"] >= 1 and off >= 1, str(r)
    assert on / (on + off) >= 0.9, str(r)
    return got, want


# ops whose share of the inference graph does not depend on how a torch
# version decomposes batch norm (relu is a quarter of resnet18's ops when
# batch norm stays one node); gradzoo --eager-op auto forces activations
@pytest.mark.parametrize("name,op", [("resnet18", "aten::max_pool2d_with_indices"), ("mobilenet_v3_small", "aten::addmm")])
def test_torchvision_with_one_op_in_eager(name, op):
    tv = need("torchvision")
    torch.manual_seed(0)
    model = getattr(tv.models, name)(weights=None)
    got, want = _split_check(model, op, torch.randn(2, 3, 64, 64))
    torch.testing.assert_close(got, want, **TOL)


def test_bert_with_one_op_in_eager():
    transformers = need("transformers")
    torch.manual_seed(0)
    cfg = transformers.BertConfig(vocab_size=256, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                  intermediate_size=128, max_position_embeddings=64)
    got, want = _split_check(transformers.BertModel(cfg), "aten::gelu", torch.randint(0, 256, (2, 20)))
    torch.testing.assert_close(got.last_hidden_state, want.last_hidden_state, **TOL)
