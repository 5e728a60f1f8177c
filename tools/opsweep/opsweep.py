"""Which ops of real models the engine lacks: export each model of a list
(small random-weight configs of transformers architectures, torchvision
models) with torch.export and ask the engine for the ops it cannot run.

    python tools/opsweep/opsweep.py [--only NAME,...] [--json OUT]

Prints one line per model (its non-aten ops, and the ops the engine
lacks) and a summary; exits 1 when some model holds an op the engine
lacks. Needs torch, torchvision and transformers.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import Any, Callable

import torch

SMALL = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
             vocab_size=128, max_position_embeddings=64)
MOE = dict(num_local_experts=4, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
           shared_expert_intermediate_size=32, n_routed_experts=4, n_shared_experts=1, first_k_dense_replace=0,
           kv_lora_rank=16, q_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=8, n_group=1,
           topk_group=1, head_dim=8)
CAUSAL = ["Llama", "Mistral", "Mixtral", "Qwen2", "Qwen2Moe", "Qwen3", "Qwen3Moe", "Olmoe", "Phi3", "Gemma", "Gemma2",
          "GPT2", "GPTNeoX", "Falcon", "DeepseekV3", "GraniteMoe", "Starcoder2", "Olmo2"]
VISION = ["resnet50", "vit_b_16", "swin_t", "convnext_tiny", "efficientnet_b0", "mobilenet_v3_large", "regnet_y_400mf",
          "maxvit_t"]


def _causal(arch: str) -> Callable[[], tuple[torch.nn.Module, tuple[Any, ...], dict[str, Any]]]:
    def make():
        import transformers as T

        cfg_cls = getattr(T, f"{arch}Config")
        model_cls = getattr(T, "GPT2LMHeadModel" if arch == "GPT2" else f"{arch}ForCausalLM")
        kw = {k: v for k, v in {**SMALL, **MOE}.items() if k in cfg_cls().to_dict() or arch == "GPT2"}
        if arch == "GPT2":
            kw = dict(n_embd=32, n_layer=1, n_head=4, vocab_size=128, n_positions=64)
        if "pad_token_id" in cfg_cls().to_dict():
            kw["pad_token_id"] = 0
        cfg = cfg_cls(**kw)
        torch.manual_seed(0)
        return model_cls(cfg).eval(), (torch.randint(0, 128, (1, 12)),), {"use_cache": False}

    return make


def _vision(name: str):
    def make():
        import torchvision

        torch.manual_seed(0)
        size = 224 if name in ("vit_b_16", "maxvit_t") else 64
        return getattr(torchvision.models, name)(weights=None).eval(), (torch.randn(1, 3, size, size),), {}

    return make


MODELS = {**{a.lower(): _causal(a) for a in CAUSAL}, **{v: _vision(v) for v in VISION}}


def sweep(name: str, make) -> dict[str, Any]:
    from torchtpu import _lib

    model, args, kwargs = make()
    with torch.no_grad():
        ep = torch.export.export(model, args, kwargs=kwargs)
    ops = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    missing = [u["op"] for u in _lib.Program(buf.getvalue(), {"cache_dir": "-"}).info()["unsupported"]]
    return {"model": name, "non_aten": [o for o in ops if not o.startswith("aten.")], "missing": missing}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    names = [n for n in a.only.split(",") if n] or list(MODELS)
    results, missing = [], set()
    for n in names:
        try:
            r = sweep(n, MODELS[n])
        except Exception as e:  # an architecture this transformers lacks or cannot export
            r = {"model": n, "error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"}
        results.append(r)
        missing |= set(r.get("missing", []))
        print(f"{n:<20} " + (f"ERROR {r['error']}" if "error" in r else
                             f"non-aten {r['non_aten'] or '-'}  lacks {r['missing'] or '-'}"), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    ok = sum(1 for r in results if "error" not in r)
    print(f"{ok} models exported, {len(results) - ok} could not be; ops the engine lacks: {sorted(missing) or 'none'}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
