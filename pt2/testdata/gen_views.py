# Generates views.pt2 (torch.export.save with whatever torch runs this) and
# views.weights.safetensors: the dense values PyTorch holds for every
# parameter, buffer and constant, keyed by FQN. The module's state uses
# shared storages, transposed and sliced views, several dtypes, a
# non-persistent buffer and a lifted tensor constant.
#   torch-oracle run sid -- python3 gen_views.py views        (current layout)
#   torch-oracle run trixie -- python3 gen_views.py views_legacy  (torch 2.6)
import sys
import torch
from safetensors.torch import save_file

name = sys.argv[1]
torch.manual_seed(0)


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
        self.register_buffer("base", base)
        self.register_buffer("tview", base.t())            # transposed view of base
        self.register_buffer("slice", base[1:, ::2])         # offset + strided view
        self.register_buffer("bhalf", torch.randn(3, 2).to(torch.bfloat16).t())
        self.register_buffer("idx", torch.arange(10, dtype=torch.int64)[2:8:2])
        self.register_buffer("np", torch.randn(2, 3).t(), persistent=False)
        self.const = torch.tensor([1.5, -2.0, 3.25])

    def forward(self, x):
        y = self.lin(x) + self.const
        z = self.tview[:3, :3].sum() + self.slice.sum() + self.base.sum()
        w = self.bhalf.float().sum() + self.idx.sum() + self.np.sum()
        return y + z + w


m = M()
x = torch.randn(2, 4)
ep = torch.export.export(m, (x,))
torch.export.save(ep, name + ".pt2")
vals = {}
for k, v in ep.state_dict.items():
    vals[k] = v.detach().contiguous().clone()
for k, v in ep.constants.items():
    if isinstance(v, torch.Tensor):
        vals[k] = v.detach().contiguous().clone()
vals["__sample_input__"] = x.contiguous()
save_file(vals, name + ".weights.safetensors")
print(torch.__version__, sorted(vals))
