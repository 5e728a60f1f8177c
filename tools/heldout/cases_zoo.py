"""Held-out layer zoo: torch.nn activations, layers, pooling, padding,
normalisation and distance modules in one program each."""
import torch
import torch.nn.functional as F
from torch import nn


class Mods(nn.Module):
    def __init__(self, fn, *mods):
        super().__init__()
        self.fn = fn
        self.mods = nn.ModuleList(mods)

    def forward(self, *xs):
        return self.fn(self.mods, *xs)


def cases(Case):
    torch.manual_seed(1000)
    x4, x3, x2 = torch.randn(2, 4, 6, 6), torch.randn(2, 5, 7), torch.randn(3, 8)
    acts = [nn.LogSigmoid(), nn.Softplus(beta=2, threshold=5), nn.Hardtanh(-0.5, 0.7), nn.CELU(0.7), nn.SELU(), nn.GLU(),
            nn.Mish(), nn.Hardshrink(0.3), nn.Softshrink(0.3), nn.Tanhshrink(), nn.Threshold(0.1, -2.0), nn.RReLU(),
            nn.Hardsigmoid(), nn.Hardswish(), nn.LeakyReLU(0.2), nn.ELU(), nn.Softsign(), nn.SiLU(), nn.GELU("tanh"),
            nn.ReLU6(), nn.PReLU()]
    spec = [
        ("act_zoo", Mods(lambda m, x: tuple(a(x) for a in m), *acts), [x2 * 3]),
        ("layers_zoo", Mods(lambda m, x: (m[0](x), m[1](m[0](x)), m[2](x), m[3](x), m[4](x), m[5](x), m[6](x), m[7](x)),
                            nn.Unfold(3, padding=1, stride=2), nn.Fold((6, 6), 3, padding=1, stride=2),
                            nn.AdaptiveMaxPool2d((4, 3)), nn.LPPool2d(2, 2), nn.ReflectionPad2d((1, 2, 0, 1)),
                            nn.ReplicationPad2d(2), nn.CircularPad2d(1), nn.Softmax2d()), [x4]),
        ("pairwise_zoo", Mods(lambda m, a, b: (m[0](a, b), m[1](a, b), F.normalize(a, dim=1), torch.cdist(a, b), m[2](a, b)),
                              nn.CosineSimilarity(1), nn.PairwiseDistance(), nn.Bilinear(8, 8, 3)),
         [x2, torch.randn(3, 8)]),
        ("embedding_max_norm", Mods(lambda m, i: m[0](i) * 2, nn.Embedding(10, 4, max_norm=1.0)),
         [torch.tensor([[1, 2, 1], [9, 0, 2]])]),
        ("conv_transpose_zoo", Mods(lambda m, x, y: (m[0](x), m[1](x, output_size=[12, 12]), m[2](y)),
                                    nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
                                    nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1),
                                    nn.ConvTranspose1d(5, 3, 4, stride=3, padding=2, dilation=2)), [x4, x3]),
        ("pool_zoo", Mods(lambda m, x, y: (
            F.max_pool2d(x, 3, 2, 1, ceil_mode=True), F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
            F.max_pool1d(y, 2, 2, ceil_mode=True), F.avg_pool1d(y, 3, 2, 1), F.adaptive_avg_pool1d(y, 4),
            F.max_pool2d(x, 2, return_indices=True)[1], F.interpolate(x, size=(5, 9), mode="bilinear", align_corners=True),
            F.interpolate(x, scale_factor=1.5, mode="nearest"), F.interpolate(y, size=11, mode="linear"),
            F.interpolate(x, size=(3, 4), mode="area"))), [x4, x3]),
        ("norm_zoo", Mods(lambda m, x, y: (m[0](x), m[1](x), m[2](y), m[3](x), F.local_response_norm(x, 3),
                                           F.rms_norm(y, (7,))),
                          nn.GroupNorm(2, 4), nn.InstanceNorm2d(4, affine=True), nn.InstanceNorm1d(5),
                          nn.LayerNorm([6, 6])), [x4, x3]),
    ]
    return [Case(name, m, xs) for name, m, xs in spec]
