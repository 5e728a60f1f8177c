# Generates the programs the fx pass tests read:
#   inplace.pt2       training IR with in-place ops on a buffer, a user input
#                     and an intermediate (no mutation outputs)
#   inplace_core.pt2  the same after run_decompositions() (PyTorch's own
#                     functionalization: buffer and user-input mutation outputs)
#   cse.pt2           repeated and unused pure computations
#   torch-oracle run sid -- python3 gen_passes.py
import torch


class Inplace(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(3))

    def forward(self, x, y):
        self.count.add_(1)
        self.count.mul_(2)
        y.add_(x)
        z = x * 3
        z.relu_()
        return z + self.count + y


class Repeated(torch.nn.Module):
    def forward(self, x):
        a = torch.sin(x)
        b = torch.sin(x)
        unused = torch.cos(x) * 2  # noqa: F841
        c = a + b
        d = torch.neg(c)
        e = torch.neg(c)
        return d * e


x = torch.randn(3)
ep = torch.export.export(Inplace(), (x, torch.randn(3)))
torch.export.save(ep, "inplace.pt2")
torch.export.save(ep.run_decompositions(), "inplace_core.pt2")
torch.export.save(torch.export.export(Repeated(), (x,)), "cse.pt2")
print(torch.__version__)
