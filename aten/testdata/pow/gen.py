# Cases for pow(tensor, scalar) with the exponents ATen's CPU kernel computes
# without std::pow (2, 3, -2 by products; 0.5, -0.5, -1 by sqrt, rsqrt,
# reciprocal), checked bit for bit by binary_pow_test.go. Each NAME.pt2
# (torch.export.save) has NAME.io.safetensors with the inputs and PyTorch's
# eager outputs. Run with real PyTorch:
#   cd aten/testdata/pow && /work/shared/tools/torch-oracle run sid -- python3 gen.py .
import os, sys
import torch
from safetensors.torch import save_file

out = sys.argv[1] if len(sys.argv) > 1 else "."
torch.manual_seed(0)
EXPS = (2, 3, -2, 0.5, -0.5, -1, 2.0, 3.0)


class Pows(torch.nn.Module):
    def __init__(self, exps):
        super().__init__()
        self.exps = exps

    def forward(self, x):
        return tuple(torch.pow(x, e) for e in self.exps)


class GeluInner(torch.nn.Module):
    # the polynomial inside GPT-2's NewGELU (its tanh is not compared bit for bit here)
    def forward(self, x):
        return 0.7978845608028654 * (x + 0.044715 * torch.pow(x, 3.0))


def values(dtype):
    special = torch.tensor([0.0, -0.0, 1.0, -1.0, float("inf"), float("-inf"), float("nan"),
                            3e38, -3e38, 1e-20, -1e-20, 1e-40, -1e-40, 1e19, -1e19, 2.5e12, 65504.0, 1e-3])
    # 1472 = 23 * 64 elements: every element takes ATen's vectorized path. Its
    # scalar tail differs for bfloat16 rsqrt (1 / sqrt(x) with the sqrt rounded
    # to bfloat16 first), so a tail element's bits depend on its position.
    x = torch.cat([special, torch.randn(1000) * 4, torch.randn(200) * 1e-13, torch.rand(254) * 1e13])
    assert x.numel() % 64 == 0
    return x.to(dtype)


def save(name, m, *xs):
    ep = torch.export.export(m, xs)
    torch.export.save(ep, os.path.join(out, name + ".pt2"))
    with torch.no_grad():
        o = m(*xs)
    if not isinstance(o, (tuple, list)):
        o = (o,)
    t = {f"input.{i}": x.contiguous() for i, x in enumerate(xs)}
    t.update({f"output.{i}": y.contiguous() for i, y in enumerate(o)})
    save_file(t, os.path.join(out, name + ".io.safetensors"))


save("pow_f32", Pows(EXPS), values(torch.float32))
save("pow_f64", Pows(EXPS), values(torch.float64))
save("pow_bf16", Pows(EXPS), values(torch.bfloat16))
save("pow_f16", Pows(EXPS), values(torch.float16))
save("pow_int_float_exp", Pows((2.0, 3.0, -2.0, 0.5, -0.5, -1.0)), torch.randint(-50, 50, (64,)))
save("gelu_inner_pow3", GeluInner(), torch.randn(4, 37) * 3)
print("done")
