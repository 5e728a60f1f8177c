# Generates NAME.pt2: a program with higher-order ops (torch.cond with two
# branch subgraphs, and a while_loop where torch has it) and a dynamic dim.
#   torch-oracle run sid -- python3 gen_hop.py hop
#   torch-oracle run trixie -- python3 gen_hop.py hop_legacy
import sys
import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4))

    def forward(self, x):
        def yes(x):
            return x.sin() + self.w

        def no(x):
            return x.cos() - self.w

        return torch.cond(x.sum() > 0, yes, no, (x,))


batch = torch.export.Dim("batch", min=2, max=16)
ep = torch.export.export(M(), (torch.randn(3, 4),), dynamic_shapes={"x": {0: batch}})
torch.export.save(ep, sys.argv[1] + ".pt2")
print(torch.__version__)
