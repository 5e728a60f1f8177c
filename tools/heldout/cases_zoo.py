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
    a, b, t = torch.randn(3, 8), torch.randn(3, 8), torch.tensor([1, 2, 7])
    losses = {
        "ce": lambda a, b, t: (F.cross_entropy(a, t, label_smoothing=0.1), F.cross_entropy(a, b.softmax(1)),
                               F.cross_entropy(a, t, reduction="none", ignore_index=2),
                               F.nll_loss(a.log_softmax(1), t, weight=torch.linspace(0.5, 2, 8))),
        "bce": lambda a, b, t: (F.binary_cross_entropy(a.sigmoid(), b.sigmoid()),
                                F.binary_cross_entropy_with_logits(a, b.sigmoid(), pos_weight=torch.ones(8) * 2),
                                F.binary_cross_entropy(a.sigmoid(), b.sigmoid(), weight=torch.linspace(0.2, 1.5, 8), reduction="none")),
        "regression": lambda a, b, t: (F.smooth_l1_loss(a, b, beta=0.5), F.huber_loss(a, b, delta=0.7),
                                       F.mse_loss(a, b), F.l1_loss(a, b, reduction="sum"),
                                       F.kl_div(a.log_softmax(1), b.softmax(1), reduction="batchmean"),
                                       F.kl_div(a.log_softmax(1), b.log_softmax(1), log_target=True, reduction="none")),
        "margin": lambda a, b, t: (F.cosine_embedding_loss(a, b, torch.tensor([1, -1, 1]), margin=0.2),
                                   F.margin_ranking_loss(a[:, 0], b[:, 0], torch.tensor([1, -1, 1]), margin=0.1),
                                   F.hinge_embedding_loss(a, b.sign()), F.soft_margin_loss(a, b.sign()),
                                   F.multilabel_soft_margin_loss(a, (b > 0).float()),
                                   F.triplet_margin_loss(a, b, a.flip(0), swap=True)),
    }
    spec += [(f"loss_{k}", Mods(lambda m, a, b, t, f=f: f(a, b, t)), [a, b, t]) for k, f in losses.items()]
    return [Case(name, m, xs) for name, m, xs in spec]
