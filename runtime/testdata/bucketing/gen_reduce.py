"""Makes reduce.pt2 for TestBucketedMasks: a program reading across a
dynamic dim in every way the padding rules mask (sum, mean, amax, amin,
any, softmax, log_softmax, a matrix product over the dim, argmax, cumsum,
the last position) after an exp, so that zero padding would not hide a
missing mask. Exported with torch.export (dynamic dim 1, Core ATen).

    ~/.cache/torchtpu/venv-torch/bin/python runtime/testdata/bucketing/gen_reduce.py
"""

import os

import torch

here = os.path.dirname(os.path.abspath(__file__))


class M(torch.nn.Module):
    def forward(self, x):
        y = torch.exp(x)
        return (y.sum(1), y.mean(1), (-y).amax(1), y.amin(1), (y > 2).any(1), torch.softmax(x + 1, 1),
                torch.log_softmax(x, 1), y.transpose(1, 2) @ y, y.argmax(1), y.cumsum(1), y[:, -1:, :])


x = torch.randn(2, 7, 3)
ep = torch.export.export(M(), (x,), dynamic_shapes=({1: torch.export.Dim("s", min=2, max=64)},))
ep = ep.run_decompositions()
torch.export.save(ep, os.path.join(here, "reduce.pt2"))
