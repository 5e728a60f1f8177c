# Generates NAME.pt2: a program whose node arguments are non-finite floats
# (clamp min=-inf, max=+inf; masked_fill with nan). torch 2.14 writes them
# as "-Infinity"/"Infinity"/"NaN" strings, torch 2.6 as bare JSON tokens.
#   torch-oracle run sid -- python3 gen_nonfinite.py nonfinite
#   torch-oracle run trixie -- python3 gen_nonfinite.py nonfinite_legacy
import sys
import torch


class M(torch.nn.Module):
    def forward(self, x):
        y = torch.clamp(x, min=float("-inf"), max=float("inf"))
        return torch.masked_fill(y, x > 0, float("nan"))


ep = torch.export.export(M(), (torch.randn(3),))
torch.export.save(ep, sys.argv[1] + ".pt2")
print(torch.__version__)
