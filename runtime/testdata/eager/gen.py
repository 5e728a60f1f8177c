"""PyTorch references for runtime/future_eager_test.go (eager single ops
with Python numbers). Usage, from this folder:
  /work/shared/tools/torch-oracle run sid -- python3 gen.py .
"""
import os
import sys

import torch
from safetensors.torch import save_file


def main(out_dir):
    g = torch.Generator().manual_seed(7)
    x = torch.randn(2, 3, generator=g)
    xi = torch.tensor([[1, -2, 3], [4, 5, -6]], dtype=torch.int32)
    xd = torch.randn(3, generator=g, dtype=torch.float64)
    t = {
        "x": x, "xi": xi, "xd": xd,
        "x_mul_2": x * 2.0, "x_mul_3": x * 3.0,
        "xi_mul_2": xi * 2, "xi_mul_3": xi * 3, "xi_mul_2.5": xi * 2.5,
        "xd_mul_0.1": xd * 0.1, "x_add_x": x + x,
    }
    save_file({k: v.contiguous() for k, v in t.items()}, os.path.join(out_dir, "eager.safetensors"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
