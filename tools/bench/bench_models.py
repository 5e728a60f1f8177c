"""The benchmark models of scripts/bench-compare.sh that are not fixtures.

Each entry builds a model with random weights (seeded; nothing is
downloaded) and its example inputs. Image models take one small image;
language models take a batch of one token sequence. Used by
export_models.py (PyPI torch, torchvision, transformers).
"""

import torch
from torch import nn

IMAGE = 128  # side of the input image of the torchvision models


def _vision(name, **kw):
    def build():
        import torchvision

        m = getattr(torchvision.models, name)(weights=None, **kw)
        x = torch.randn(1, 3, IMAGE, IMAGE)
        return m, (x,)

    return build


class _Hidden(nn.Module):
    """A transformers encoder returning its last hidden state."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids):
        return self.m(input_ids=ids).last_hidden_state


class _Logits(nn.Module):
    """A transformers causal LM returning its logits, without a KV cache."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids):
        return self.m(input_ids=ids, use_cache=False).logits


def _bert(seq, **cfg):
    def build():
        from transformers import BertConfig, BertModel

        c = BertConfig(vocab_size=1000, max_position_embeddings=512, attn_implementation="sdpa", **cfg)
        m = _Hidden(BertModel(c, add_pooling_layer=False))
        return m, (torch.randint(0, c.vocab_size, (1, seq)),)

    return build


def _llama(seq, **cfg):
    def build():
        from transformers import LlamaConfig, LlamaForCausalLM

        c = LlamaConfig(vocab_size=1000, max_position_embeddings=512, attn_implementation="sdpa", **cfg)
        m = _Logits(LlamaForCausalLM(c))
        return m, (torch.randint(0, c.vocab_size, (1, seq)),)

    return build


def _mobilenet():
    import export_mobilenet

    m, x = export_mobilenet.build()
    return m, (x,)


MODELS = {
    # a MobileNetV2 layout in plain torch.nn, 224x224 (export_mobilenet.py)
    "mobilenet": _mobilenet,
    "resnet50": _vision("resnet50"),
    "mobilenet_v3_large": _vision("mobilenet_v3_large"),
    "mobilenet_v3_small": _vision("mobilenet_v3_small"),
    "efficientnet_b0": _vision("efficientnet_b0"),
    "vit_b_32": _vision("vit_b_32", image_size=IMAGE),
    # small configs, sequence 64
    "bert_small": _bert(64, hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024),
    "llama_small": _llama(64, hidden_size=256, intermediate_size=688, num_hidden_layers=4,
                          num_attention_heads=4, num_key_value_heads=2),
    # BERT-base's encoder (768 wide, 12 layers, 12 heads, 3072 FFN) at sequence 128
    "bert_base_128": _bert(128, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072),
}


def build(name):
    torch.manual_seed(0)
    m, inputs = MODELS[name]()
    return m.eval(), inputs
