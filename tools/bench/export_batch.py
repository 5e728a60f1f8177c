"""Re-export a program at another batch size (any torch: torch-oracle or PyPI).

  python3 export_batch.py MODEL.pt2 MODEL.io.safetensors BATCH OUT_PREFIX

loads torch.export.load(MODEL).module() (with its shape guards, which pin
the exported batch, replaced by a no-op), draws input.0 of shape
[BATCH, ...] (normal samples, seeded), exports again with
torch.export.export and saves OUT_PREFIX.pt2 and OUT_PREFIX.io.safetensors
(input.0 and PyTorch's output.N). export_models.py uses rebatch() for
scripts/bench-compare.sh's names like resnet18@8.
"""

import sys

import torch
from safetensors.torch import save_file, load_file


class NoGuards(torch.nn.Module):
    def forward(self, *args):
        return None


def rebatch(pt2, io, batch):
    """The program of pt2 exported again for input.0 of batch rows, and that input."""
    mod = torch.export.load(pt2).module()
    if hasattr(mod, "_guards_fn"):
        mod._guards_fn = NoGuards()
    x = load_file(io)["input.0"]
    g = torch.Generator().manual_seed(batch)
    xb = torch.randn((batch, *x.shape[1:]), generator=g, dtype=x.dtype)
    return torch.export.export(mod, (xb,)), xb


def main():
    pt2, io, batch, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    ep, xb = rebatch(pt2, io, batch)
    torch.export.save(ep, out + ".pt2")
    with torch.inference_mode():
        y = ep.module()(xb)
    outs = y if isinstance(y, (tuple, list)) else (y,)
    tensors = {"input.0": xb.contiguous()}
    for i, o in enumerate(outs):
        tensors[f"output.{i}"] = o.contiguous()
    save_file(tensors, out + ".io.safetensors")


if __name__ == "__main__":
    main()
