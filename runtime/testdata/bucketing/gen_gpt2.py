"""Makes the GPT-2 graphs of TestBucketedGPT2Generate: a tiny GPT-2 with
random weights (transformers, seed 0) generates 4 tokens with its forward
compiled by torchtpu (dynamic shapes, KV cache), which saves each graph
torch.compile hands the backend (dump_dir) with its first call's inputs:
prefill.pt2 (the prompt, length s) and decode.pt2 (one token beside a KV
cache of length s per layer), each with its .io.safetensors.

    PYTHONPATH=python ~/.cache/torchtpu/venv-torch/bin/python runtime/testdata/bucketing/gen_gpt2.py
"""

import os
import shutil
import tempfile

import torch
import transformers

import torchtpu  # noqa: F401  (registers the backend)

here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)
cfg = transformers.GPT2Config(vocab_size=64, n_positions=64, n_embd=32, n_layer=2, n_head=2,
                              bos_token_id=0, eos_token_id=0)
model = transformers.GPT2LMHeadModel(cfg).eval()
ids = torch.randint(1, 64, (1, 5))
dump = tempfile.mkdtemp()
model.forward = torch.compile(model.forward, backend="torchtpu", dynamic=True,
                              options={"dump_dir": dump, "buckets": "exact"})
with torch.no_grad():
    model.generate(ids, max_new_tokens=4, do_sample=False, use_cache=True, pad_token_id=0)
for src, dst in (("inference_0", "prefill"), ("inference_1", "decode")):
    for ext in (".pt2", ".io.safetensors"):
        shutil.copy(os.path.join(dump, src + ext), os.path.join(here, dst + ext))
shutil.rmtree(dump)
