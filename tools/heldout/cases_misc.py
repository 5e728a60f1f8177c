"""Held-out models built from torch.nn alone: attention and transformer
modules, text CNNs with EmbeddingBag, a spatial transformer (affine_grid,
grid_sample), sub-pixel super-resolution (pixel_shuffle)."""
import torch
import torch.nn.functional as F
from torch import nn


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class MHA(nn.Module):
    def __init__(self, batch_first):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4, batch_first=batch_first, kdim=12, vdim=10)

    def forward(self, q, k, v, pad):
        out, w = self.attn(q, k, v, key_padding_mask=pad, need_weights=True)
        return out, w


class Seq2Seq(nn.Module):
    """nn.Transformer encoder-decoder with a causal target mask and source
    padding, embeddings and an output projection."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(40, 16)
        self.tr = nn.Transformer(16, 2, 2, 2, 32, dropout=0.1, batch_first=True)
        self.out = nn.Linear(16, 40)

    def forward(self, src, tgt, src_pad):
        mask = self.tr.generate_square_subsequent_mask(tgt.shape[1])
        y = self.tr(self.emb(src), self.emb(tgt), tgt_mask=mask, src_key_padding_mask=src_pad,
                    memory_key_padding_mask=src_pad, tgt_is_causal=True)
        return self.out(y)


class TextCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(30, 8, mode="mean")
        self.emb = nn.Embedding(30, 8, padding_idx=0)
        self.convs = nn.ModuleList([nn.Conv1d(8, 6, k, padding=k // 2) for k in (2, 3, 5)])
        self.head = nn.Linear(18 + 8, 3)

    def forward(self, ids, flat, offsets):
        e = self.emb(ids).transpose(1, 2)
        feats = [F.max_pool1d(F.relu(c(e)), c(e).shape[-1]).squeeze(-1) for c in self.convs]
        return self.head(torch.cat(feats + [self.bag(flat, offsets)], 1))


class STN(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 4, 5), nn.MaxPool2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 6))
        with torch.no_grad():
            self.loc[-1].weight.mul_(0.1)
            self.loc[-1].bias.copy_(torch.tensor([1.0, 0.1, 0.0, -0.1, 0.9, 0.05]))

    def forward(self, x):
        theta = self.loc(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, list(x.size()), align_corners=False)
        return (F.grid_sample(x, grid, align_corners=False),
                F.grid_sample(x, grid, mode="nearest", padding_mode="border", align_corners=True))


class SuperRes(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 12, 3, padding=1), nn.PReLU(12), nn.Conv2d(12, 12, 3, padding=1))
        self.up = nn.PixelShuffle(2)

    def forward(self, x):
        y = self.up(self.body(x))
        return y + F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False), F.pixel_unshuffle(y, 2)


def cases(Case):
    torch.manual_seed(700)
    pad = torch.tensor([[False] * 5 + [True] * 2, [False] * 7])
    out = [
        Case("mha_batch_first", MHA(True), [torch.randn(2, 4, 16), torch.randn(2, 7, 12), torch.randn(2, 7, 10), pad]),
        Case("mha_seq_first", MHA(False), [torch.randn(4, 2, 16), torch.randn(7, 2, 12), torch.randn(7, 2, 10), pad]),
        Case("transformer_seq2seq", Seq2Seq(), [torch.randint(1, 40, (2, 7)), torch.randint(1, 40, (2, 5)), pad]),
        Case("encoder_layer_fastpath_pad", nn.TransformerEncoder(
            nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, norm_first=True, activation="gelu"), 2,
            enable_nested_tensor=False), [torch.randn(2, 7, 16)]),
        Case("text_cnn_bag", TextCNN(), [torch.tensor([[3, 4, 5, 0, 0], [7, 8, 9, 10, 11]]),
                                         torch.tensor([1, 2, 3, 4, 5, 6, 7]), torch.tensor([0, 3])]),
        Case("stn_grid_sample", STN(), [torch.randn(2, 1, 16, 16)]),
        Case("superres_pixel_shuffle", SuperRes(), [torch.randn(1, 3, 8, 8)]),
        Case("affine_grid_variants", Fn(lambda t2, t3: (F.affine_grid(t2, [2, 1, 3, 5], align_corners=True),
                                                        F.affine_grid(t2, [2, 3, 1, 4], align_corners=False),
                                                        F.affine_grid(t3, [2, 1, 2, 3, 4], align_corners=False),
                                                        F.affine_grid(t3, [2, 1, 2, 3, 4], align_corners=True))),
             [torch.randn(2, 2, 3), torch.randn(2, 3, 4)]),
        Case("grid_sample_reflection", Fn(lambda x, g: (F.grid_sample(x, g, padding_mode="reflection", align_corners=False),
                                                        F.grid_sample(x, g, padding_mode="zeros", align_corners=True))),
             [torch.randn(1, 2, 5, 6), torch.rand(1, 4, 3, 2) * 2.6 - 1.3]),
    ]
    return out
