"""Vision held-out cases: torchvision architectures in eval mode with random
weights. The small set shrinks widths and depths through the public
constructors so the committed data stays small; the full set uses the
default constructors (num_classes kept small to bound the head)."""
import zlib

import torch
import torchvision.models as tvm
from torch import nn
from torchvision.models import efficientnet as tve
from torchvision.models import regnet as tvr
from torchvision.models import squeezenet as tvs
from torchvision.models import vgg as tvv
from torchvision.ops.misc import Conv2dNormActivation
from torchvision.models.convnext import CNBlockConfig, ConvNeXt
from torchvision.models.vision_transformer import VisionTransformer


def randomize_bn(m):
    """Give batch norms non-trivial running statistics and affine weights, so
    eval mode does more than divide by sqrt(1+eps), and perturb parameters
    initialised to a constant."""
    g = torch.Generator().manual_seed(1)
    for mod in m.modules():
        if isinstance(mod, nn.modules.batchnorm._BatchNorm):
            n = mod.num_features
            mod.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
            mod.running_var.copy_(torch.rand(n, generator=g) + 0.5)
            if mod.affine:
                mod.weight.data.copy_(torch.rand(n, generator=g) + 0.5)
                mod.bias.data.copy_(torch.randn(n, generator=g) * 0.1)
    # Constant initialisations make parts of a model vacuous: ViT's heads
    # start at zero (all-zero logits), ConvNeXt's layer scales at 1e-6.
    for name, p in m.named_parameters():
        if p.numel() > 1 and p.detach().float().std() == 0:
            p.data.add_((torch.randn(p.shape, generator=g) * 0.2).to(p.dtype))
    return m.eval()


class MiniSqueeze(nn.Module):
    """squeezenet1_1's layout (Fire modules, ceil_mode max pools) at small width."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2, ceil_mode=True),
            tvs.Fire(16, 4, 8, 8), tvs.Fire(16, 4, 8, 8),
            nn.MaxPool2d(3, 2, ceil_mode=True),
            tvs.Fire(16, 8, 16, 16),
        )
        self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(32, 10, 1), nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))

    def forward(self, x):
        return torch.flatten(self.classifier(self.features(x)), 1)


class AlexStyle(nn.Module):
    """AlexNet's stem: big strided conv, ceil_mode and floor max pools, local
    response norm, adaptive average pooling to a size larger than its input."""

    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(
            nn.Conv2d(3, 8, 11, stride=4, padding=2), nn.ReLU(inplace=True),
            nn.LocalResponseNorm(5), nn.MaxPool2d(3, 2, ceil_mode=True),
            nn.Conv2d(8, 16, 5, padding=2), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2),
        )
        self.pool = nn.AdaptiveAvgPool2d((6, 6))
        self.head = nn.Sequential(nn.Dropout(), nn.Linear(16 * 36, 32), nn.ReLU(inplace=True), nn.Linear(32, 10))

    def forward(self, x):
        return self.head(torch.flatten(self.pool(self.f(x)), 1))


class UNetStyle(nn.Module):
    """Encoder-decoder: strided and dilated convs, transposed conv,
    bilinear and nearest upsampling, skip concatenation, group norm."""

    def __init__(self):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.GroupNorm(2, 8), nn.GELU())
        self.mid = nn.Sequential(nn.Conv2d(8, 8, 3, padding=2, dilation=2), nn.ELU(), nn.Conv2d(8, 16, 3, 2, 1))
        self.up1 = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.up2 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.out = nn.Conv2d(8 + 3, 4, 1)

    def forward(self, x):
        d = self.down(x)
        u = self.up1(self.mid(d)) + d
        u = self.up2(u) + nn.functional.interpolate(u, scale_factor=2.0, mode="nearest")
        return torch.sigmoid(self.out(torch.cat([u, x], 1))), u.mean((2, 3))


class SegASPP(nn.Module):
    """DeepLabV3's ASPP head (atrous convs, image pooling branch upsampled
    back) on a small stem, logits upsampled bilinearly to the input."""

    def __init__(self):
        super().__init__()
        from torchvision.models.segmentation.deeplabv3 import ASPP
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(), nn.Conv2d(16, 16, 3, 2, 1))
        self.aspp = ASPP(16, [2, 3], 8)
        self.cls = nn.Conv2d(8, 3, 1)

    def forward(self, x):
        y = self.cls(self.aspp(self.stem(x)))
        return nn.functional.interpolate(y, size=x.shape[-2:], mode="bilinear", align_corners=False)


class Video3D(nn.Module):
    """r3d-style: conv3d stem, 3-D batch norm, max/avg pooling in 3-D."""

    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(nn.Conv3d(3, 8, (3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2)), nn.BatchNorm3d(8),
                               nn.ReLU(), nn.MaxPool3d((1, 2, 2)), nn.Conv3d(8, 8, 3, padding=1, groups=2),
                               nn.AdaptiveAvgPool3d(1))
        self.head = nn.Linear(8, 5)

    def forward(self, x):
        return self.head(self.f(x).flatten(1))


class FPN(nn.Module):
    """torchvision's FeaturePyramidNetwork (nearest upsampling to each
    level's size, LastLevelMaxPool) over three feature maps."""

    def __init__(self):
        super().__init__()
        from torchvision.ops import FeaturePyramidNetwork
        from torchvision.ops.feature_pyramid_network import LastLevelMaxPool
        self.fpn = FeaturePyramidNetwork([8, 16, 32], 8, extra_blocks=LastLevelMaxPool())

    def forward(self, a, b, c):
        return tuple(self.fpn({"a": a, "b": b, "c": c}).values())


class Logits(nn.Module):
    """The "out" tensor of a torchvision segmentation model's dict."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]


def small_vgg():
    m = tvv.VGG(tvv.make_layers([8, "M", 16, "M", 32, 32, "M"], batch_norm=True), num_classes=10)
    m.classifier = nn.Sequential(nn.Linear(32 * 7 * 7, 16), nn.ReLU(True), nn.Dropout(), nn.Linear(16, 10))
    return m


def small_mobilenet_v2():
    """mobilenet_v2 at width 0.35 with its 1280-wide head narrowed to 256."""
    m = tvm.mobilenet_v2(width_mult=0.35, num_classes=10)
    m.features[-1] = Conv2dNormActivation(m.features[-1][0].in_channels, 256, kernel_size=1,
                                          activation_layer=nn.ReLU6)
    m.classifier[1] = nn.Linear(256, 10)
    return m


def small_mobilenet_v3():
    """mobilenet_v3_small at width 0.5, reduced tail, narrower classifier."""
    m = tvm.mobilenet_v3_small(width_mult=0.5, reduced_tail=True, num_classes=10)
    m.classifier[0] = nn.Linear(m.classifier[0].in_features, 64)
    m.classifier[3] = nn.Linear(64, 10)
    return m


def small_models():
    eff_setting, eff_last = tve._efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.3)
    regnet_params = tvr.BlockParams.from_init_params(depth=6, w_0=16, w_a=8.0, w_m=2.0, group_width=8)
    cn = [CNBlockConfig(16, 32, 1), CNBlockConfig(32, 64, 1), CNBlockConfig(64, None, 1)]
    return [
        ("mobilenet_v2", small_mobilenet_v2, 64),
        ("mobilenet_v3_small", small_mobilenet_v3, 64),
        ("efficientnet_b0", lambda: tve.EfficientNet(eff_setting, 0.2, stochastic_depth_prob=0.2, num_classes=10,
                                                      last_channel=eff_last), 64),
        ("squeezenet_mini", MiniSqueeze, 63),
        ("shufflenet_v2", lambda: tvm.ShuffleNetV2([2, 2, 2], [8, 16, 32, 64, 128], num_classes=10), 64),
        ("regnet_x", lambda: tvr.RegNet(regnet_params, num_classes=10), 64),
        ("vgg_bn_small", small_vgg, 32),
        ("densenet_small", lambda: tvm.DenseNet(growth_rate=8, block_config=(2, 2, 2, 2), num_init_features=16,
                                                 bn_size=2, num_classes=10), 64),
        ("vit_tiny", lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                                               mlp_dim=64, num_classes=10), 32),
        ("convnext_tiny", lambda: ConvNeXt(cn, stochastic_depth_prob=0.1, num_classes=10), 64),
        ("alexnet_style", AlexStyle, 95),
        ("swin_tiny", lambda: tvm.SwinTransformer([4, 4], 16, [2, 2], [2, 4], [4, 4], num_classes=10), 32),
        ("unet_style", UNetStyle, 24),
        ("seg_aspp", SegASPP, 33),
    ]


def full_models():
    return [
        ("full_mobilenet_v2", tvm.mobilenet_v2, 224),
        ("full_mobilenet_v3_small", tvm.mobilenet_v3_small, 224),
        ("full_mobilenet_v3_large", tvm.mobilenet_v3_large, 224),
        ("full_efficientnet_b0", tvm.efficientnet_b0, 224),
        ("full_squeezenet1_1", tvm.squeezenet1_1, 224),
        ("full_shufflenet_v2_x0_5", tvm.shufflenet_v2_x0_5, 224),
        ("full_regnet_x_400mf", tvm.regnet_x_400mf, 224),
        ("full_vgg11", tvm.vgg11, 64),
        ("full_alexnet", tvm.alexnet, 224),
        ("full_densenet121", tvm.densenet121, 64),
        ("full_vit_b_16", tvm.vit_b_16, 224),
        ("full_convnext_tiny", tvm.convnext_tiny, 64),
        ("full_resnet50", tvm.resnet50, 128),
        ("full_googlenet", lambda: tvm.googlenet(aux_logits=False, init_weights=True), 64),
        ("full_mnasnet0_5", tvm.mnasnet0_5, 96),
        ("full_swin_t", tvm.swin_t, 64),
        ("full_efficientnet_v2_s", tvm.efficientnet_v2_s, 96),
        ("full_regnet_y_400mf", tvm.regnet_y_400mf, 96),
        ("full_resnext50_32x4d", tvm.resnext50_32x4d, 64),
        ("full_lraspp_mobilenet_v3", lambda: Logits(tvm.segmentation.lraspp_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=4)), 96),
        ("full_deeplabv3_mobilenet_v3", lambda: Logits(tvm.segmentation.deeplabv3_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=4, aux_loss=False)), 96),
    ]


BOTH_BATCHES = {"squeezenet_mini", "vit_tiny", "alexnet_style", "vgg_bn_small"}


def cases(Case, full):
    out = []
    for name, make, size in (full_models() if full else small_models()):
        torch.manual_seed(zlib.crc32(name.encode()) % 1000)
        m = randomize_bn(make())
        # Batch 2 for every small model, batch 1 too where the archive is small.
        batches = (1,) if full else ((1, 2) if name in BOTH_BATCHES else (2,))
        for b in batches:
            x = torch.randn(b, 3, size, size)
            out.append(Case(f"{name}_b{b}", m, (x,)))
    if not full:
        torch.manual_seed(7)
        m = randomize_bn(tvm.ShuffleNetV2([2, 2, 2], [8, 16, 32, 64, 128], num_classes=10))
        out.append(Case("shufflenet_v2_core_aten", m, (torch.randn(1, 3, 64, 64),), decomp=True))
        m = randomize_bn(MiniSqueeze())
        out.append(Case("squeezenet_mini_core_aten", m, (torch.randn(2, 3, 63, 63),), decomp=True))
        m = randomize_bn(Video3D())
        out.append(Case("video_conv3d", m, (torch.randn(2, 3, 4, 16, 16),)))
        m = FPN().eval()
        out.append(Case("fpn", m, (torch.randn(1, 8, 16, 16), torch.randn(1, 16, 8, 8), torch.randn(1, 32, 5, 5))))
        # Other dtypes of whole models.
        m = randomize_bn(tvm.ShuffleNetV2([2, 2, 2], [8, 16, 32, 64, 128], num_classes=10)).to(torch.bfloat16)
        out.append(Case("shufflenet_v2_bf16", m, (torch.randn(2, 3, 64, 64, dtype=torch.bfloat16),)))
        m = randomize_bn(MiniSqueeze()).double()
        out.append(Case("squeezenet_mini_f64", m, (torch.randn(1, 3, 63, 63, dtype=torch.float64),)))
        m = randomize_bn(UNetStyle()).half()
        out.append(Case("unet_style_f16", m, (torch.randn(1, 3, 24, 24, dtype=torch.float16),)))
        m = randomize_bn(AlexStyle())
        out.append(Case("alexnet_style_dynamic_batch", m, (torch.randn(2, 3, 95, 95),),
                        dynamic=({0: torch.export.Dim("batch", min=1, max=8)},), run_inputs=(torch.randn(3, 3, 95, 95),)))
    return out
