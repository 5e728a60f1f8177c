"""PyTorch's float32 exp, sigmoid, tanh and erf on a fixed set of inputs,
for backend/native/vmath/vmath_torch_test.go.

  python torch_ref.py OUT.safetensors

Inputs (tensor "x"): special values (NaN, infinities, signed zeros,
subnormals, the overflow and underflow edges of exp), a logarithmic sweep
of both signs from 1e-40 to 1e3, and seeded uniform samples in [-12, 12].
Outputs: PyTorch's CPU results, one tensor per function, and "torch" (the
version, as a uint8 string).
"""

import sys

import numpy as np
import torch
from safetensors.torch import save_file


def inputs():
    f = np.float32
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1.1754942e-38, 1.1754944e-38, -1.1754944e-38,
               3.4028235e38, -3.4028235e38, 88.72283, 88.72284, 88.7229, 89.0, -87.33654, -87.3366, -103.27893,
               -103.97208, -104.0, -105.0, 0.875, -0.875, 1.0, -1.0, 4.0, -4.0, 9.0, -9.0, 10.0, 20.0, -20.0]
    sweep = np.logspace(-40, 3, 1500, dtype=np.float64)
    rng = np.random.default_rng(0)
    uni = rng.uniform(-12, 12, 2000)
    x = np.concatenate([np.array(special, dtype=f), sweep.astype(f), -sweep.astype(f), uni.astype(f)])
    return torch.from_numpy(x)


def main():
    torch.set_num_threads(1)
    x = inputs()
    out = {"x": x, "exp": torch.exp(x), "sigmoid": torch.sigmoid(x), "tanh": torch.tanh(x), "erf": torch.erf(x)}
    out["torch"] = torch.tensor(list(torch.__version__.encode()), dtype=torch.uint8)
    save_file({k: v.contiguous() for k, v in out.items()}, sys.argv[1])


if __name__ == "__main__":
    main()
