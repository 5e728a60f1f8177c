"""Export a MobileNetV2-style model (any torch: torch-oracle or PyPI).

  python3 export_mobilenet.py [OUT_PREFIX]

builds MobileNetV2's layout in plain torch.nn (no torchvision): a 3×3
stride-2 stem, inverted-residual blocks (1×1 expand, 3×3 depthwise at
stride 1 and 2, 1×1 project, each with batch norm, ReLU6 after the first
two, the skip connection where shapes allow), a 1×1 head, global average
pooling and a classifier; seeded weights and batch-norm statistics, eval
mode, one 224×224 image. Saves OUT_PREFIX.pt2 (default mobilenet) and
OUT_PREFIX.io.safetensors (input.0 and PyTorch's output.0). build() is
the model of the name mobilenet in bench_models.py.
"""

import sys

import torch
from torch import nn
from safetensors.torch import save_file


def conv_bn(cin, cout, k, stride=1, groups=1, act=True):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU6(inplace=True))
    return nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        layers = [conv_bn(cin, hidden, 1)] if expand != 1 else []
        layers += [conv_bn(hidden, hidden, 3, stride, groups=hidden), conv_bn(hidden, cout, 1, act=False)]
        self.body = nn.Sequential(*layers)
        self.skip = stride == 1 and cin == cout

    def forward(self, x):
        y = self.body(x)
        return x + y if self.skip else y


class MobileNetV2(nn.Module):
    # (expansion, output channels, blocks, first stride), as in the paper
    config = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]

    def __init__(self, classes=1000):
        super().__init__()
        layers, cin = [conv_bn(3, 32, 3, 2)], 32
        for t, c, n, s in self.config:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(conv_bn(cin, 1280, 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(1280, classes)

    def forward(self, x):
        x = self.features(x).mean((2, 3))
        return self.classifier(x)


def build():
    """The model (eval mode, seeded weights and batch-norm statistics) and its input."""
    torch.manual_seed(0)
    model = MobileNetV2()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):  # statistics as if trained
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    model.eval()
    x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(1))
    return model, x


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "mobilenet"
    model, x = build()
    ep = torch.export.export(model, (x,))
    torch.export.save(ep, out + ".pt2")
    with torch.inference_mode():
        y = ep.module()(x)
    save_file({"input.0": x.contiguous(), "output.0": y.contiguous()}, out + ".io.safetensors")


if __name__ == "__main__":
    main()
