"""PyTorch references for the bucketing test (runtime/dynamic_bucket_test.go).

Runs ../shared/fixtures/models/transformer_encoder_dynamic_seq.pt2 (copied
beside this script as model.pt2) at every sequence length 2..101 on the
prefixes x[:, :L] of one seeded input x[2, 101, 64], and stores compactly:

  x          f32[2, 101, 64]  the input; length L uses x[:, :L]
  probe      f32[64, 4]       four fixed random directions
  proj.L     f32[2, L, 4]     out_L @ probe for every L (computed in float64)
  out.L      f32[2, L, 64]    the full output, for the lengths in FULL

Usage (from this folder):
  cp ../../../../shared/fixtures/models/transformer_encoder_dynamic_seq.pt2 model.pt2
  /work/shared/tools/torch-oracle run sid -- python3 gen.py .
"""
import os
import sys

import torch
from safetensors.torch import save_file

FULL = [2, 3, 8, 9, 16, 17, 32, 33, 64, 65]


def main(out_dir):
    here = os.path.dirname(os.path.abspath(__file__))
    ep = torch.export.load(os.path.join(here, "model.pt2"))
    mod = ep.module()
    g = torch.Generator().manual_seed(5)
    x = torch.randn(2, 101, 64, generator=g)
    probe = torch.randn(64, 4, generator=g)
    tensors = {"x": x.contiguous(), "probe": probe.contiguous()}
    with torch.no_grad():
        for L in range(2, 102):
            out = mod(x[:, :L].contiguous())
            if isinstance(out, (tuple, list)):
                out = out[0]
            tensors[f"proj.{L}"] = (out.double() @ probe.double()).float().contiguous()
            if L in FULL:
                tensors[f"out.{L}"] = out.contiguous()
    save_file(tensors, os.path.join(out_dir, "transformer_dynseq.safetensors"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
