"""Makes examples/mlp.pt2 (a tiny MLP, exported with torch.export) and
examples/mlp.io.safetensors (its input and PyTorch's output), for the
README's first commands:

    go run ./cmd/torchtpu run examples/mlp.pt2
    go run ./cmd/torchtpu verify examples/mlp.pt2 --io examples/mlp.io.safetensors

Regenerate from this folder with real PyTorch:
    /work/shared/tools/torch-oracle run sid -- python3 gen_mlp.py
"""
import torch
from safetensors.torch import save_file


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 3)

    def forward(self, x):
        return torch.softmax(self.fc2(torch.nn.functional.gelu(self.fc1(x))), dim=-1)


def main():
    torch.manual_seed(0)
    model = MLP().eval()
    x = torch.randn(2, 4)
    ep = torch.export.export(model, (x,))
    torch.export.save(ep, "mlp.pt2")
    with torch.no_grad():
        y = model(x)
    save_file({"input.0": x.contiguous(), "output.0": y.contiguous()}, "mlp.io.safetensors")
    print(y)


if __name__ == "__main__":
    main()
