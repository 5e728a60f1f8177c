"""Language held-out cases: transformers models built from small random
configs (no downloads), run in eval mode with example token ids and
attention masks that pad some positions."""
import torch
import transformers as tf
from torch import nn


class Wrap(nn.Module):
    """Calls a transformers model with keyword inputs and returns its
    tensors as a flat tuple (the export's user outputs)."""

    def __init__(self, model, keys, outs):
        super().__init__()
        self.model = model
        self.keys = keys
        self.outs = outs

    def forward(self, *xs):
        r = self.model(**dict(zip(self.keys, xs)))
        return tuple(getattr(r, k) for k in self.outs)


def perturb_constants(m):
    """Norm weights start at one and biases at zero: perturb every
    parameter initialised to a constant so that they matter."""
    g = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for p in m.parameters():
            if p.numel() > 1 and p.float().std() == 0:
                p.add_(torch.randn(p.shape, generator=g) * 0.2)
    return m


def ids(batch, seq, vocab, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (batch, seq), generator=g)


def mask(batch, seq, left=False):
    m = torch.ones(batch, seq, dtype=torch.long)
    for b in range(1, batch):
        pad = min(seq - 1, 2 * b)
        if left:
            m[b, :pad] = 0
        else:
            m[b, seq - pad:] = 0
    return m


def configs(full):
    h, layers, heads, ff, vocab = (256, 4, 8, 1024, 1000) if full else (32, 2, 4, 64, 100)
    return {
        "bert": (tf.BertModel, tf.BertConfig(vocab_size=vocab, hidden_size=h, num_hidden_layers=layers,
                                             num_attention_heads=heads, intermediate_size=ff,
                                             max_position_embeddings=128),
                 ["input_ids", "attention_mask", "token_type_ids"], ["last_hidden_state", "pooler_output"]),
        "gpt2_lm": (tf.GPT2LMHeadModel, tf.GPT2Config(vocab_size=vocab, n_embd=h, n_layer=layers, n_head=heads,
                                                      n_positions=128, use_cache=False),
                    ["input_ids", "attention_mask"], ["logits"]),
        "t5_encoder": (tf.T5EncoderModel, tf.T5Config(vocab_size=vocab, d_model=h, d_kv=h // heads, d_ff=ff,
                                                      num_layers=layers, num_heads=heads, use_cache=False),
                       ["input_ids", "attention_mask"], ["last_hidden_state"]),
        "distilbert": (tf.DistilBertModel, tf.DistilBertConfig(vocab_size=vocab, dim=h, n_layers=layers,
                                                               n_heads=heads, hidden_dim=ff,
                                                               max_position_embeddings=128),
                       ["input_ids", "attention_mask"], ["last_hidden_state"]),
        "llama": (tf.LlamaModel, tf.LlamaConfig(vocab_size=vocab, hidden_size=h, intermediate_size=ff,
                                                num_hidden_layers=layers, num_attention_heads=heads,
                                                num_key_value_heads=heads // 2, max_position_embeddings=128,
                                                use_cache=False),
                  ["input_ids", "attention_mask"], ["last_hidden_state"]),
        "roberta": (tf.RobertaModel, tf.RobertaConfig(vocab_size=vocab, hidden_size=h, num_hidden_layers=layers,
                                                      num_attention_heads=heads, intermediate_size=ff,
                                                      max_position_embeddings=130, pad_token_id=1),
                    ["input_ids", "attention_mask"], ["last_hidden_state", "pooler_output"]),
        "albert": (tf.AlbertModel, tf.AlbertConfig(vocab_size=vocab, embedding_size=16, hidden_size=h,
                                                   num_hidden_layers=layers, num_attention_heads=heads,
                                                   intermediate_size=ff, max_position_embeddings=128),
                   ["input_ids", "attention_mask"], ["last_hidden_state", "pooler_output"]),
        "gpt_neox": (tf.GPTNeoXModel, tf.GPTNeoXConfig(vocab_size=vocab, hidden_size=h, num_hidden_layers=layers,
                                                       num_attention_heads=heads, intermediate_size=ff,
                                                       rotary_pct=0.5, max_position_embeddings=128, use_cache=False),
                     ["input_ids", "attention_mask"], ["last_hidden_state"]),
        "qwen2": (tf.Qwen2Model, tf.Qwen2Config(vocab_size=vocab, hidden_size=h, intermediate_size=ff,
                                                num_hidden_layers=layers, num_attention_heads=heads,
                                                num_key_value_heads=1, max_position_embeddings=128, use_cache=False),
                  ["input_ids", "attention_mask"], ["last_hidden_state"]),
        "bart": (tf.BartModel, tf.BartConfig(vocab_size=vocab, d_model=h, encoder_layers=layers, decoder_layers=layers,
                                             encoder_attention_heads=heads, decoder_attention_heads=heads,
                                             encoder_ffn_dim=ff, decoder_ffn_dim=ff, max_position_embeddings=128,
                                             use_cache=False),
                 ["input_ids", "attention_mask", "decoder_input_ids"], ["last_hidden_state", "encoder_last_hidden_state"]),
    }


def more_configs():
    """Further architectures at the small size (one case each, batch 2)."""
    h, layers, heads, ff, vocab = 32, 2, 4, 64, 100
    io = ["input_ids", "attention_mask"]
    return {
        "bloom": (tf.BloomModel, tf.BloomConfig(vocab_size=vocab, hidden_size=h, n_layer=layers, n_head=heads,
                                                use_cache=False), io, ["last_hidden_state"]),
        "mistral": (tf.MistralModel, tf.MistralConfig(vocab_size=vocab, hidden_size=h, intermediate_size=ff,
                                                      num_hidden_layers=layers, num_attention_heads=heads,
                                                      num_key_value_heads=2, sliding_window=4, use_cache=False,
                                                      max_position_embeddings=128), io, ["last_hidden_state"]),
        "phi": (tf.PhiModel, tf.PhiConfig(vocab_size=vocab, hidden_size=h, intermediate_size=ff, num_hidden_layers=layers,
                                          num_attention_heads=heads, partial_rotary_factor=0.5, use_cache=False,
                                          max_position_embeddings=128), io, ["last_hidden_state"]),
        "gemma": (tf.GemmaModel, tf.GemmaConfig(vocab_size=vocab, hidden_size=h, intermediate_size=ff,
                                                num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=1,
                                                head_dim=8, use_cache=False, max_position_embeddings=128),
                  io, ["last_hidden_state"]),
        "deberta_v2": (tf.DebertaV2Model, tf.DebertaV2Config(vocab_size=vocab, hidden_size=h, num_hidden_layers=layers,
                                                             num_attention_heads=heads, intermediate_size=ff,
                                                             relative_attention=True, position_buckets=8,
                                                             pos_att_type=["p2c", "c2p"], max_position_embeddings=128),
                       io, ["last_hidden_state"]),
        "electra": (tf.ElectraModel, tf.ElectraConfig(vocab_size=vocab, embedding_size=16, hidden_size=h,
                                                      num_hidden_layers=layers, num_attention_heads=heads,
                                                      intermediate_size=ff, max_position_embeddings=128),
                    io, ["last_hidden_state"]),
        "clip_text": (tf.CLIPTextModel, tf.CLIPTextConfig(vocab_size=vocab, hidden_size=h, intermediate_size=ff,
                                                          num_hidden_layers=layers, num_attention_heads=heads,
                                                          max_position_embeddings=16, eos_token_id=2),
                      io, ["last_hidden_state", "pooler_output"]),
        "mobilebert": (tf.MobileBertModel, tf.MobileBertConfig(vocab_size=vocab, hidden_size=32, embedding_size=16,
                                                               num_hidden_layers=2, num_attention_heads=4,
                                                               intermediate_size=64, intra_bottleneck_size=16,
                                                               true_hidden_size=16, num_feedforward_networks=2,
                                                               max_position_embeddings=128),
                       io, ["last_hidden_state", "pooler_output"]),
    }


class LMLoss(nn.Module):
    """A causal LM called with labels (-100 ignored): loss and logits."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids, labels):
        r = self.m(input_ids=ids, labels=labels)
        return r.loss, r.logits


class KVCache(nn.Module):
    """GPT-2 with use_cache: logits and every layer's keys and values."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids):
        r = self.m(input_ids=ids, use_cache=True)
        return (r.logits,) + tuple(t for layer in r.past_key_values.layers for t in (layer.keys, layer.values))


def lm_head_cases(Case):
    torch.manual_seed(990)
    llama = tf.LlamaForCausalLM(tf.LlamaConfig(vocab_size=100, hidden_size=32, intermediate_size=64,
                                               num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                               use_cache=False)).eval()
    labels = ids(2, 9, 100, 91)
    labels[0, :3] = -100
    gpt = tf.GPT2LMHeadModel(tf.GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=4, n_positions=64)).eval()
    return [Case("llama_lm_loss", LMLoss(perturb_constants(llama)), [ids(2, 9, 100, 90), labels]),
            Case("gpt2_kv_cache", KVCache(perturb_constants(gpt)), [ids(2, 9, 100, 92)])]


def vision_audio_cases(Case):
    """transformers models on pixels and waveforms."""
    out = []
    torch.manual_seed(800)
    vit = tf.ViTModel(tf.ViTConfig(image_size=16, patch_size=4, hidden_size=32, num_hidden_layers=2,
                                   num_attention_heads=4, intermediate_size=64))
    out.append(Case("hf_vit", Wrap(perturb_constants(vit.eval()), ["pixel_values"], ["last_hidden_state", "pooler_output"]),
                    [torch.randn(2, 3, 16, 16)]))
    w2v = tf.Wav2Vec2Model(tf.Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                             intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
                                             conv_kernel=(10, 3), num_conv_pos_embeddings=8,
                                             num_conv_pos_embedding_groups=4, feat_extract_norm="group"))
    out.append(Case("wav2vec2", Wrap(perturb_constants(w2v.eval()), ["input_values"], ["last_hidden_state"]),
                    [torch.randn(2, 400)]))
    return out


def cases(Case, full):
    out = []
    prefix = "full_" if full else ""
    seq = 64 if full else 9
    for i, (name, (cls, cfg, keys, outs)) in enumerate(configs(full).items()):
        torch.manual_seed(100 + i)
        model = Wrap(perturb_constants(cls(cfg).eval()), keys, outs)
        vocab = cfg.vocab_size
        for b in ((1, 2) if name in ("gpt2_lm", "llama") else (2,)):
            xs = [ids(b, seq, vocab, 10 * i + b), mask(b, seq, left=name in ("gpt2_lm", "llama", "qwen2", "gpt_neox"))]
            if "decoder_input_ids" in keys:
                xs.append(ids(b, seq - 3, vocab, 10 * i + b + 5))
            if "token_type_ids" in keys:
                xs.append(torch.cat([torch.zeros(b, seq // 2, dtype=torch.long),
                                     torch.ones(b, seq - seq // 2, dtype=torch.long)], 1))
            out.append(Case(f"{prefix}{name}_b{b}", model, xs))
    if not full:
        for i, (name, (cls, cfg, keys, outs)) in enumerate(more_configs().items()):
            torch.manual_seed(900 + i)
            model = Wrap(perturb_constants(cls(cfg).eval()), keys, outs)
            xs = [ids(2, seq, cfg.vocab_size, 50 + i), mask(2, seq, left=name in ("mistral", "phi", "gemma", "bloom"))]
            out.append(Case(f"{name}_b2", model, xs))
        out += vision_audio_cases(Case)
        out += lm_head_cases(Case)
        for i, (name, dt) in enumerate([("llama", torch.bfloat16), ("gpt2_lm", torch.float16)]):
            torch.manual_seed(950 + i)
            cls, cfg, keys, outs = configs(False)[name]
            model = Wrap(perturb_constants(cls(cfg).eval()).to(dt), keys, outs)
            out.append(Case(f"{name}_{str(dt).split('.')[1]}", model, [ids(2, seq, 100, 60 + i), mask(2, seq, left=True)]))
        for i, name in enumerate(["bert", "llama"]):
            torch.manual_seed(970 + i)
            cls, cfg, keys, outs = configs(False)[name]
            model = Wrap(perturb_constants(cls(cfg).eval()), keys[:2], outs)
            b, s = torch.export.Dim("batch", min=1, max=8), torch.export.Dim("seq", min=2, max=64)
            out.append(Case(f"{name}_dynamic", model, [ids(2, 8, 100, 70 + i), mask(2, 8)],
                            dynamic=(({0: b, 1: s}, {0: b, 1: s}),),
                            run_inputs=(ids(3, 11, 100, 80 + i), mask(3, 11, left=name == "llama"))))
        torch.manual_seed(200)
        cls, cfg, keys, outs = configs(False)["bert"]
        model = Wrap(cls(cfg).eval(), keys[:2], outs)
        out.append(Case("bert_core_aten", model, [ids(2, 7, 100, 3), mask(2, 7)], decomp=True))
        cls, cfg, keys, outs = configs(False)["gpt2_lm"]
        model = Wrap(cls(cfg).eval(), keys[:1], outs)
        seq_dim = torch.export.Dim("seq", min=2, max=64)
        out.append(Case("gpt2_lm_dynamic_seq", model, [ids(1, 8, 100, 4)], dynamic=(({1: seq_dim},),),
                        run_inputs=(ids(1, 13, 100, 5),)))
    return out
