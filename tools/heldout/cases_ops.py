"""Single-op held-out cases at other dtypes and values than the shared
fixtures: float64 and bfloat16 variants of common ops, empty tensors,
non-contiguous views inside the graph, 0-d inputs, int8/uint8/int16
wrap-around, integer division by negative numbers, NaN/inf through
reductions, softmax over all -inf rows."""
import torch
import torch.nn.functional as F
from torch import nn


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        out = self.fn(*xs)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)


t = torch.tensor
inf, nan = float("inf"), float("nan")


def common(dt, out, tag):
    """The same computations at dtype dt."""
    g = torch.Generator().manual_seed(11)

    def r(*shape):
        return torch.randn(*shape, generator=g).to(dt)

    w = r(4, 3, 3, 3)
    q, k, v = r(2, 4, 9, 8), r(2, 2, 7, 8), r(2, 2, 7, 8)
    out += [
        (f"{tag}_sdpa", lambda q, k, v, m: (F.scaled_dot_product_attention(q, k, v, attn_mask=m, enable_gqa=True),
                                            F.scaled_dot_product_attention(q, q, q, is_causal=True)),
         q, k, v, torch.ones(9, 7, dtype=torch.bool).tril()),
        (f"{tag}_matmul", lambda a, b: a @ b, r(2, 3, 5), r(5, 4)),
        (f"{tag}_linear", lambda x, w, b: F.linear(x, w, b), r(3, 6), r(4, 6), r(4)),
        (f"{tag}_softmax", lambda x: (x.softmax(-1), x.log_softmax(0)), r(3, 7)),
        (f"{tag}_layer_norm", lambda x, w, b: F.layer_norm(x, (6,), w, b), r(2, 3, 6), r(6), r(6)),
        (f"{tag}_conv2d", lambda x, w: F.conv2d(x, w, padding=1, stride=2), r(1, 3, 7, 7), w),
        (f"{tag}_reduce", lambda x: (x.sum(1), x.mean(), x.var(0), x.amax(-1), x.prod(1)), r(3, 5)),
        (f"{tag}_unary", lambda x: (x.exp(), x.abs().log(), x.sin(), x.tanh(), x.sigmoid(), F.gelu(x),
                                    torch.erf(x), x.abs().sqrt(), x.abs().rsqrt(), F.silu(x)), r(11)),
        (f"{tag}_binary", lambda a, b: (a * b + 1.5, a / b, torch.atan2(a, b), a.abs().pow(b), torch.maximum(a, b),
                                        torch.remainder(a, b)), r(9), r(9)),
        (f"{tag}_cumsum_pool", lambda x: (x.cumsum(-1), F.max_pool2d(x, 2), F.avg_pool2d(x, 3, 1, 1)), r(1, 2, 4, 4)),
        (f"{tag}_batch_norm", lambda x, m, v: F.batch_norm(x, m, v, training=False, eps=1e-3),
         r(2, 3, 2, 2), r(3), r(3).abs() + 0.5),
    ]


def setitem_mask(x):
    """Swin's shifted-window mask: regions of a zero tensor numbered by
    slice assignment."""
    m = x.new_zeros((6, 6))
    k = 0
    for h in ((0, -3), (-3, -1), (-1, None)):
        for w in ((0, -3), (-3, -1), (-1, None)):
            m[h[0]:h[1], w[0]:w[1]] = k
            k += 1
    return x + m, m


def setitem_rows(x):
    y = x.clone()
    y[1] = 0.5
    y[:, -1] = y[:, 0] * 2
    y[2:, 1:3] += 1.0
    return y


def inplace_views(x):
    y = x.clone()
    y.t()[0].mul_(3.0)
    y.view(12)[5:7].fill_(-1.0)
    y.unsqueeze(0)[0, 2].add_(10.0)
    return y


def cases(Case):
    out = []
    common(torch.float64, out, "f64")
    common(torch.bfloat16, out, "bf16")
    common(torch.float16, out, "f16")
    out += [
        ("uint8_image_normalize", lambda x, m, s: ((x.float() / 255 - m) / s, x.to(torch.int16) - 128, x.max(), x.float().mean()),
         torch.randint(0, 256, (1, 3, 4, 4), dtype=torch.uint8), t([0.485, 0.456, 0.406]).view(1, 3, 1, 1),
         t([0.229, 0.224, 0.225]).view(1, 3, 1, 1)),
        # In-place writes into views (index assignment), which change the base.
        ("setitem_slice_mask", setitem_mask, torch.randn(6, 6)),
        ("setitem_select_row", lambda x: setitem_rows(x), torch.randn(4, 5)),
        ("inplace_view_chain", inplace_views, torch.randn(3, 4)),
        ("weight_norm_dims", lambda v, g0, g1, g2, s: (torch._weight_norm(v, g0, 0), torch._weight_norm(v, g1, 1),
                                                    torch._weight_norm(v, g2, 2), torch._weight_norm(v, s, -1),
                                                    torch.norm_except_dim(v, 2, 1)),
         torch.randn(4, 3, 5), torch.rand(4, 1, 1) + 0.5, torch.rand(1, 3, 1) + 0.5, torch.rand(1, 1, 5) + 0.5,
         t(1.5)),
        ("bf16_pow_cube_invsq", lambda x: (x.pow(3), x.pow(-2), x.pow(2), x.pow(0.5), x ** 3.0),
         (torch.randn(64) * 3).to(torch.bfloat16)),
        ("renorm_linalg_norm", lambda x: (x.renorm(2, 0, 2.0), x.renorm(1, 2, 1.5), torch.linalg.norm(x),
                                          torch.linalg.norm(x, dim=(1, 2)), torch.linalg.norm(x, 3, dim=1, keepdim=True),
                                          torch.linalg.norm(x, "fro", dim=(0, 2))), torch.randn(3, 4, 5)),
        ("composite_small_ops", lambda x, v, s, i, a, b: (
            torch.trace(x[:, :3]), torch.trace(i), x.T, torch.atleast_1d(s), torch.atleast_2d(v), torch.atleast_3d(x),
            torch.atleast_3d(v), torch.atleast_2d(s), torch.linalg.cross(a, b), torch.cross(a.T, b.T, dim=0),
            torch.kron(x, i.float()), torch.kron(v[:2], x), torch.kron(i, i), torch.linalg.matrix_norm(x),
            torch.linalg.matrix_norm(x.unsqueeze(0), "fro", keepdim=True)),
         torch.randn(3, 4), torch.randn(5), t(2.5), t([[1, 2], [3, 4]]), torch.randn(4, 3), torch.randn(4, 3)),
        # Empty tensors.
        ("empty_reduce", lambda x: (x.sum(0), x.mean(0), x.prod(0), x.sum()), torch.randn(0, 3)),
        ("empty_matmul", lambda a, b: a @ b, torch.randn(2, 0), torch.randn(0, 3)),
        ("empty_pointwise", lambda x: (x.relu() * 2, x.softmax(-1), x.reshape(-1, 5)), torch.randn(0, 5)),
        ("empty_cat", lambda a, b: torch.cat([a, b], 0), torch.randn(0, 4), torch.randn(2, 4)),
        # Views that are not contiguous, inside the graph.
        ("noncontig_transpose_matmul", lambda a, b: a.t() @ b.transpose(0, 1), torch.randn(5, 3), torch.randn(4, 5)),
        ("noncontig_permute_add", lambda a, b: a.permute(0, 2, 1) + b, torch.randn(2, 3, 4), torch.randn(2, 4, 3)),
        ("noncontig_step_slice", lambda x: (x[:, ::2] * 2, x[1::3].sum(0)),
         torch.randn(7, 6)),
        ("noncontig_expand_sum", lambda x: x.expand(4, 3, 5).sum(0) + x.t().expand(5, 3).t(), torch.randn(3, 1)),
        ("noncontig_diagonal_unfold", lambda x: (x.diagonal(), x.unfold(1, 2, 1).sum(-1), x.narrow(0, 1, 2).t()),
         torch.randn(4, 4)),
        # 0-d tensors.
        ("scalar_0d_ops", lambda s, x: (s * x, s.exp(), (x.sum() + s), torch.where(x > s, x, s)),
         t(0.75), torch.randn(6)),
        ("scalar_0d_int", lambda s, x: (x // s, x % s, s * 3), t(-3), t([7, -8, 9, 0])),
        ("scalar_0d_out", lambda x: (x.max(), x.argmin(), x.norm()), torch.randn(5)),
        # Narrow integers: wrap-around.
        ("int8_wrap", lambda a, b: (a * b, a + b, a - b, -a), t([100, -100, 127, -128, 5], dtype=torch.int8),
         t([3, 3, 1, -1, -7], dtype=torch.int8)),
        ("uint8_wrap", lambda a, b: (a - b, a + b, a * b, a // b, a % b), t([1, 250, 0, 128, 17], dtype=torch.uint8),
         t([2, 10, 1, 2, 5], dtype=torch.uint8)),
        ("int16_wrap", lambda a, b: (a * b, a + b, a.cumsum(0), a.sum()), t([300, -300, 32767, -32768], dtype=torch.int16),
         t([200, 200, 1, -1], dtype=torch.int16)),
        ("int8_reduce_promote", lambda a: (a.sum(), a.prod(), a.cumsum(0), a.to(torch.uint8)),
         t([100, 100, -50, 7], dtype=torch.int8)),
        # Integer division by negative numbers.
        ("intdiv_negative", lambda a, b: (a // b, a % b, torch.div(a, b, rounding_mode="trunc"), torch.fmod(a, b), a / b),
         t([7, -7, 7, -7, 1, -1, 0, 9]), t([-2, -2, 2, 3, -5, -5, -4, -3])),
        ("intdiv_negative_int16", lambda a, b: (a // b, a % b), t([7, -7, 100, -32768], dtype=torch.int16),
         t([-2, 2, -7, 3], dtype=torch.int16)),
        ("intdiv_scalar_negative", lambda a: (a // -3, a % -3, torch.div(a, -4, rounding_mode="floor")),
         t([10, -10, 3, -3, 0], dtype=torch.int32)),
        # NaN and inf through reductions.
        ("nan_reductions", lambda x: (x.sum(1), x.mean(1), x.amax(1), x.amin(1), x.prod(1), x.cumsum(1),
                                      x.max(1).values, x.argmax(1), x.argmin(1)),
         t([[1.0, nan, 3.0], [inf, -inf, 1.0], [inf, inf, 2.0], [-1.0, -2.0, -3.0]])),
        ("inf_logsumexp_norm", lambda x: (x.logsumexp(1), x.norm(dim=1), x.std(1), x.var(1)),
         t([[-inf, -inf, -inf], [inf, 1.0, 2.0], [-inf, 0.0, 1.0], [nan, 0.0, 1.0]])),
        ("softmax_neg_inf_rows", lambda x: (x.softmax(-1), x.log_softmax(-1)),
         t([[-inf, -inf, -inf, -inf], [-inf, 0.0, 1.0, -inf], [0.0, 0.0, inf, 1.0], [1.0, 2.0, 3.0, 4.0]])),
        ("masked_softmax_pattern", lambda x, m: x.masked_fill(m, -inf).softmax(-1),
         torch.randn(3, 4), t([[True] * 4, [False, True, True, False], [False] * 4])),
        ("nan_minmax_clamp", lambda a, b: (torch.maximum(a, b), torch.minimum(a, b), torch.fmax(a, b), torch.fmin(a, b),
                                           a.clamp(-1.0, 1.0), a.clamp(min=b)),
         t([nan, 1.0, -inf, 2.0, nan]), t([0.0, nan, 1.0, inf, nan])),
        ("nan_sort_topk", lambda x: (x.sort().values, x.sort(descending=True).indices, x.topk(2).values),
         t([3.0, nan, -1.0, inf, 0.5])),
    ]
    res = []
    for name, fn, *xs in out:
        res.append(Case(name, Fn(fn), xs))
    return res
