# Generates extra cases for the view, indexing, linalg and nn lowerings:
# each NAME.pt2 (torch.export.save) with NAME.io.safetensors holding the
# inputs and PyTorch's eager outputs. Run with real PyTorch:
#   cd aten/testdata/family && /work/shared/tools/torch-oracle run sid -- python3 gen.py .
import os, sys
import torch
import torch.nn.functional as F
from safetensors.torch import save_file

out = sys.argv[1] if len(sys.argv) > 1 else "."
torch.manual_seed(0)


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def case(name, fn, *xs, decompose=False):
    try:
        export_case(name, fn, *xs, decompose=decompose)
    except Exception as e:  # report and go on: one bad case must not stop the rest
        print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}")


def export_case(name, fn, *xs, module=None, decompose=False):
    m = module if module is not None else Fn(fn).eval()
    ep = torch.export.export(m, tuple(xs))
    if decompose:
        ep = ep.run_decompositions()
    torch.export.save(ep, os.path.join(out, name + ".pt2"))
    with torch.no_grad():
        if module is not None:
            m = Fn(fn).eval() if fn is not None else module
            torch.manual_seed(0)
        o = m(*xs)
    if not isinstance(o, (tuple, list)):
        o = (o,)
    t = {f"input.{i}": x.contiguous() for i, x in enumerate(xs)}
    t.update({f"output.{i}": y.contiguous() for i, y in enumerate(o)})
    if module is not None:
        # Buffers after the run (batch norm updates its running statistics).
        t.update({f"buffer.{k}": v.contiguous() for k, v in module.named_buffers()})
    save_file(t, os.path.join(out, name + ".io.safetensors"))


nanx = r(3, 7)
nanx[0, 2] = float("nan")
nanx[1, 5] = float("nan")
nanx[2, 1] = float("inf")
ties = torch.tensor([[1.0, 3.0, 3.0, 2.0, 3.0, 1.0]])
long_idx = torch.tensor([[0, 2], [1, 0]])

case("einsum_implicit", lambda a, b: torch.einsum("ij,jk", a, b), r(3, 4), r(4, 5))
case("einsum_ellipsis", lambda a, b: torch.einsum("...ij,...jk->...ik", a, b), r(2, 1, 3, 4), r(3, 4, 2))
case("einsum_three", lambda a, b, c: torch.einsum("ab,bc,cd->ad", a, b, c), r(2, 3), r(3, 4), r(4, 5))
case("einsum_reduce", lambda a: torch.einsum("abc->b", a), r(2, 3, 4))
case("einsum_outer_bf16", lambda a, b: torch.einsum("i,j->ij", a, b), r(4, dtype=torch.bfloat16), r(3, dtype=torch.bfloat16))
case("conv2d_same_even", lambda x, w: F.conv2d(x, w, padding="same"), r(1, 2, 7, 6), r(3, 2, 4, 4))
case("conv1d_same_dil", lambda x, w, b: F.conv1d(x, w, b, padding="same", dilation=2), r(2, 3, 9), r(4, 3, 3), r(4))
case("conv_transpose2d_groups", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2, dilation=2), r(1, 4, 5, 5), r(4, 3, 3, 3), r(6))
case("conv_transpose3d", lambda x, w: F.conv_transpose3d(x, w, stride=(1, 2, 1)), r(1, 2, 3, 3, 3), r(2, 2, 2, 2, 2))
case("conv2d_bf16", lambda x, w: F.conv2d(x, w, stride=2), r(1, 3, 8, 8, dtype=torch.bfloat16), r(4, 3, 3, 3, dtype=torch.bfloat16))
case("conv2d_unbatched", lambda x, w: F.conv2d(x, w, padding=1), r(3, 5, 5), r(2, 3, 3, 3))
case("conv2d_int64", lambda x, w: F.conv2d(x, w), torch.randint(-5, 5, (1, 2, 5, 5)), torch.randint(-3, 3, (2, 2, 3, 3)))
case("max_pool2d_dil_pad_nan", lambda x: F.max_pool2d(x, 3, stride=2, padding=1, dilation=2, ceil_mode=True), torch.where(torch.rand(1, 2, 9, 9) < 0.05, torch.tensor(float("nan")), r(1, 2, 9, 9)))
case("max_pool2d_indices", lambda x: F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True), r(2, 3, 8, 7))
case("max_pool1d_indices_ceil", lambda x: F.max_pool1d(x, 2, stride=2, ceil_mode=True, return_indices=True), r(2, 3, 9))
case("max_pool3d", lambda x: F.max_pool3d(x, 2, stride=1, padding=1), r(1, 2, 4, 4, 4))
case("avg_pool2d_ceil_excl", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), r(1, 2, 8, 8))
case("avg_pool2d_ceil_incl", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True), r(1, 2, 8, 8))
case("avg_pool2d_divisor", lambda x: F.avg_pool2d(x, 2, divisor_override=3), r(2, 2, 6, 6))
case("avg_pool1d", lambda x: F.avg_pool1d(x, 2, ceil_mode=True), r(1, 2, 5))
case("avg_pool2d_int", lambda x: F.avg_pool2d(x, 2), torch.randint(-9, 9, (1, 1, 4, 4)))
case("avg_pool3d", lambda x: F.avg_pool3d(x, 2, stride=1, padding=1, count_include_pad=False), r(1, 1, 3, 4, 4))
case("adaptive_avg_pool2d_uneven", lambda x: F.adaptive_avg_pool2d(x, (4, 3)), r(2, 3, 7, 5))
case("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), r(2, 3, 10))
case("adaptive_avg_pool2d_bf16", lambda x: F.adaptive_avg_pool2d(x, 1), r(2, 3, 6, 6, dtype=torch.bfloat16))
case("index_nonadjacent", lambda x, i, j: x[i, :, j], r(4, 5, 6), torch.tensor([0, 3, -1]), torch.tensor([[1], [2]]))
case("index_middle", lambda x, i: x[:, i], r(3, 5, 2), torch.tensor([[4, 0], [1, -2]]))
case("index_put_two", lambda x, i, j, v: torch.index_put(x, (i, j), v, accumulate=True), r(4, 5, 3), torch.tensor([0, 2, 0]), torch.tensor([1, 1, 1]), r(3))
def put_middle(x, i, v):
    y = x.clone()
    y[:, i] = v
    return y


case("index_put_middle", put_middle, r(3, 5, 2), torch.tensor([4, 1]), r(2, 2))
case("scatter_value", lambda x, i: torch.scatter(x, 0, i, 2.5), r(3, 4), torch.tensor([[2, 0, 1, 1]]))
case("scatter_multiply", lambda x, i, s: torch.scatter(x, 1, i, s, reduce="multiply"), r(2, 4), long_idx, r(2, 3))
case("scatter_reduce_sum_excl", lambda x, i, s: torch.scatter_reduce(x, 1, i, s, "sum", include_self=False), r(2, 4), long_idx, r(2, 2))
case("scatter_reduce_prod", lambda x, i, s: torch.scatter_reduce(x, 1, i, s, "prod"), r(2, 4), long_idx, r(2, 2))
case("scatter_reduce_mean", lambda x, i, s: torch.scatter_reduce(x, 1, i, s, "mean", include_self=False), r(2, 4), torch.tensor([[0, 0], [1, 1]]), r(2, 2))
case("scatter_reduce_mean_int", lambda x, i, s: torch.scatter_reduce(x, 1, i, s, "mean"), torch.randint(-9, 9, (2, 4)), torch.tensor([[0, 0], [1, 1]]), torch.randint(-9, 9, (2, 2)))
case("scatter_reduce_amin_excl", lambda x, i, s: torch.scatter_reduce(x, 0, i, s, "amin", include_self=False), r(3, 2), torch.tensor([[0, 2], [0, 2]]), r(2, 2))
case("sort_nan", lambda x: tuple(torch.sort(x, dim=1)), nanx)
case("sort_nan_desc", lambda x: tuple(torch.sort(x, dim=1, descending=True)), nanx)
case("sort_stable_ties", lambda x: tuple(torch.sort(x, stable=True, descending=True)), ties)
case("argsort_stable", lambda x: torch.argsort(x, stable=True), ties)
case("topk_smallest", lambda x: tuple(torch.topk(x, 3, dim=0, largest=False)), r(6, 4))
case("pad_circular", lambda x: F.pad(x, (2, 1, 1, 1), mode="circular"), r(1, 2, 3, 4))
case("pad_reflect2d", lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"), r(1, 2, 4, 5))
case("pad_replicate3d", lambda x: F.pad(x, (1, 1, 0, 2, 1, 0), mode="replicate"), r(1, 1, 2, 3, 3))
case("pad_negative", lambda x: F.pad(x, (-1, 2, 1, -2), value=1.5), r(2, 4, 5))
case("sdpa_float_mask", lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), r(2, 2, 4, 8), r(2, 2, 6, 8), r(2, 2, 6, 5), r(4, 6))
case("sdpa_gqa", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True, scale=0.3), r(1, 4, 5, 8), r(1, 2, 5, 8), r(1, 2, 5, 8))
case("sdpa_bf16", lambda q, k, v: F.scaled_dot_product_attention(q, k, v), r(2, 3, 8, dtype=torch.bfloat16), r(2, 4, 8, dtype=torch.bfloat16), r(2, 4, 8, dtype=torch.bfloat16))
case("cross_entropy_weight_ignore", lambda x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=2), r(6, 4), torch.tensor([0, 2, 3, 1, 2, 3]), torch.rand(4))
case("cross_entropy_smooth", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.2), r(5, 4, 3), torch.randint(0, 4, (5, 3)))
case("cross_entropy_smooth_weight_sum", lambda x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.1, reduction="sum"), r(5, 4), torch.randint(0, 4, (5,)), torch.rand(4))
case("cross_entropy_probs", lambda x, t: F.cross_entropy(x, t), r(5, 4), torch.softmax(r(5, 4), 1))
case("nll_loss_none", lambda x, t: F.nll_loss(x, t, reduction="none"), torch.log_softmax(r(3, 5, 4), 1), torch.randint(0, 5, (3, 4)))
case("mse_loss_sum_bf16", lambda a, b: F.mse_loss(a, b, reduction="sum"), r(4, 5, dtype=torch.bfloat16), r(4, 5, dtype=torch.bfloat16))
case("interp_nearest_frac", lambda x: F.interpolate(x, scale_factor=1.7, mode="nearest"), r(1, 2, 5, 4))
case("interp_nearest_size", lambda x: F.interpolate(x, size=(3, 7), mode="nearest"), r(1, 2, 5, 4))
case("interp_bilinear_bf16", lambda x: F.interpolate(x, size=(7, 9), mode="bilinear"), r(1, 2, 4, 5, dtype=torch.bfloat16))
case("interp_bilinear_down", lambda x: F.interpolate(x, scale_factor=0.6, mode="bilinear", align_corners=False), r(1, 2, 9, 8))
case("interp_linear1d", lambda x: F.interpolate(x, size=11, mode="linear", align_corners=True), r(1, 2, 5))
case("layer_norm_bf16", lambda x, w, b: F.layer_norm(x, (4, 6), w, b), r(3, 4, 6, dtype=torch.bfloat16), r(4, 6, dtype=torch.bfloat16), r(4, 6, dtype=torch.bfloat16))
case("group_norm_f16", lambda x, w, b: F.group_norm(x, 3, w, b), r(2, 6, 5, dtype=torch.float16), r(6, dtype=torch.float16), r(6, dtype=torch.float16))
case("rms_norm_bf16", lambda x, w: F.rms_norm(x, (8,), w), r(3, 8, dtype=torch.bfloat16), r(8, dtype=torch.bfloat16))
case("rms_norm_noweight_eps", lambda x: F.rms_norm(x, (2, 5), eps=1e-3), r(3, 2, 5))
case("batch_norm_f16", lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b), r(2, 3, 4, dtype=torch.float16), r(3), torch.rand(3) + 0.5, r(3), r(3))
case("softmax_f16_dtype", lambda x: torch.softmax(x, 0, dtype=torch.float32), r(4, 3, dtype=torch.float16))
case("log_softmax_neginf", lambda x: torch.log_softmax(x, -1), torch.tensor([[1.0, float("-inf"), 2.0], [float("-inf")] * 3]))
case("matmul_1d_3d", lambda a, b: a @ b, r(4), r(2, 4, 3))
case("matmul_3d_1d", lambda a, b: a @ b, r(2, 3, 4), r(4))
case("matmul_int", lambda a, b: a @ b, torch.randint(-50, 50, (2, 3, 4)), torch.randint(-50, 50, (4, 5)))
case("addmm_beta0_nan", lambda c, a, b: torch.addmm(c, a, b, beta=0, alpha=1.5), torch.full((3, 5), float("nan")), r(3, 4), r(4, 5))
case("baddbmm", lambda c, a, b: torch.baddbmm(c, a, b, beta=0.5, alpha=2.0), r(2, 1, 5), r(2, 3, 4), r(2, 4, 5))
case("bmm_f16", lambda a, b: torch.bmm(a, b), r(2, 3, 16, dtype=torch.float16), r(2, 16, 4, dtype=torch.float16))
case("linear_bf16_1d", lambda x, w, b: F.linear(x, w, b), r(6, dtype=torch.bfloat16), r(3, 6, dtype=torch.bfloat16), r(3, dtype=torch.bfloat16))
case("cdist_mm", lambda a, b: torch.cdist(a, b), r(30, 4), r(27, 4))
case("cdist_p1_batch", lambda a, b: torch.cdist(a, b, p=1.0), r(2, 3, 4), r(2, 5, 4))
case("cdist_pinf", lambda a, b: torch.cdist(a, b, p=float("inf")), r(3, 4), r(5, 4))
case("unfold_step", lambda x: x.unfold(1, 2, 3), r(2, 8, 3))
case("as_strided", lambda x: torch.as_strided(x, (3, 3), (1, 2), 1), r(4, 3))
case("diagonal_offset", lambda x: torch.diagonal(x, offset=-1, dim1=2, dim2=0), r(4, 2, 5))
case("roll_flat", lambda x: torch.roll(x, -3), r(3, 4))
case("repeat_more_dims", lambda x: x.repeat(2, 1, 3, 2), r(3, 2))
case("tril_neg", lambda x: torch.tril(x, -1), r(2, 4, 5))
case("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), r(1, 2, 4, 6))
case("embedding_padding_idx", lambda w, i: F.embedding(i, w, padding_idx=1), r(6, 3), torch.tensor([[1, 5, 3], [0, 1, 2]]))
case("chunk_uneven", lambda x: torch.chunk(x, 4, dim=1), r(2, 6))
case("split_sizes", lambda x: torch.split(x, [1, 3, 2], dim=-1), r(2, 6))
case("stack_neg_dim", lambda a, b: torch.stack([a, b], dim=-1), r(2, 3), r(2, 3))
case("cat_promote", lambda a, b: torch.cat([a, b], 0), torch.randint(0, 9, (2, 3), dtype=torch.int32), r(1, 3))
case("gather_dim_neg", lambda x, i: torch.gather(x, -1, i), r(3, 5), torch.tensor([[0, 4], [2, 3], [0, 4]]))
case("index_select_int", lambda x, i: torch.index_select(x, 0, i), torch.randint(0, 9, (5, 2)), torch.tensor([4, 0, 4]))
case("masked_select_bcast", lambda x, m: torch.masked_select(x, m), r(3, 4), torch.tensor([True, False, True, True]))
case("nonzero_int", lambda x: torch.nonzero(x), torch.tensor([[0, 3, 0], [-1, 0, 2]]))
case("unique_counts", lambda x: torch.unique(x, return_inverse=True, return_counts=True), torch.tensor([3.0, 1.0, 3.0, 2.0, 1.0, 5.0]))
case("unique_consecutive", lambda x: torch.unique_consecutive(x, return_counts=True), torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]))
case("glu_dim0", lambda x: F.glu(x, 0), r(4, 3))
case("prelu_scalar_w", lambda x, w: F.prelu(x, w), r(2, 3, 4), torch.tensor([0.25]))
case("movedim_list", lambda x: torch.movedim(x, (0, 1), (2, 0)), r(2, 3, 4))
case("squeeze_all", lambda x: x.squeeze().clone(), r(1, 3, 1, 2))
case("flatten_mid", lambda x: x.flatten(1, 2).clone(), r(2, 3, 4, 5))
case("select_neg", lambda x: x.select(1, -1), r(2, 3, 4))
case("slice_oversized", lambda x: x[:, 2:100:3], r(2, 9))
case("expand_new_dims", lambda x: x.expand(2, 3, -1, 4), r(3, 1, 4))
case("one_hot_2d", lambda x: F.one_hot(x, 5), torch.tensor([[0, 4], [2, 2]]))
case("broadcast_tensors3", lambda a, b, c: torch.broadcast_tensors(a, b, c), r(3, 1), r(1, 4), r(4))
case("dropout_native_eval", lambda x: F.dropout(x, 0.3, training=False).clone(), r(3, 3))
case("instance_norm_affine", lambda x, w, b: F.instance_norm(x, weight=w, bias=b), r(2, 3, 5, 4), r(3), r(3))
case("diff_prepend", lambda x, p: torch.diff(x, n=2, dim=0, prepend=p), r(4, 3), r(2, 3))
case("index_bool_mask", lambda x, m: x[m], r(3, 4), r(3, 4) > 0)
case("index_bool_mask_mid", lambda x, m: x[:, m], r(2, 5, 3), torch.tensor([True, False, True, True, False]))


def put_mask(x, m):
    y = x.clone()
    y[m] = 0.5
    return y


def put_mask_mid(x, m):
    y = x.clone()
    y[:, m] = 1.5
    return y


case("index_put_bool_mask", put_mask, r(3, 4), r(3, 4) > 0)
case("index_put_bool_mask_mid", put_mask_mid, r(2, 3, 4), torch.tensor([True, False, True]))

def module_case(name, make, *xs, decompose=False):
    try:
        torch.manual_seed(1)
        mod = make()
        export_case(name, None, *xs, module=mod, decompose=decompose)
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}")


def bn_train():
    m = torch.nn.BatchNorm2d(3).train()
    with torch.no_grad():
        m.weight.uniform_(0.5, 1.5)
        m.bias.uniform_(-0.5, 0.5)
    return m


bn_x = r(4, 3, 5, 5)
module_case("bn_train_module", bn_train, bn_x)
module_case("bn_train_core_aten", bn_train, bn_x, decompose=True)
case("native_batch_norm_train", lambda x, w, b, m, v: tuple(torch.native_batch_norm(x, w, b, m, v, True, 0.1, 1e-5)), r(4, 3, 5), r(3), r(3), r(3), torch.rand(3) + 0.5)
case("bn_no_stats", lambda x, w, b: tuple(torch.ops.aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)), r(4, 3, 5), r(3), r(3))
case("einsum_diag", lambda a: torch.einsum("ii->i", a), r(4, 4))
case("einsum_trace_batch", lambda a: torch.einsum("bii->b", a), r(3, 4, 4))
case("einsum_diag_contract", lambda a, b: torch.einsum("iij,jk->ik", a, b), r(3, 3, 4), r(4, 2))
case("conv_transpose2d_bigpad", lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=2), r(1, 2, 5, 5), r(2, 3, 2, 2))

def put_slice(x, v):
    y = x.clone()
    y[:, 1:5:2] = v
    return y


def put_select(x, v):
    y = x.clone()
    y[..., -1] = v
    return y


case("slice_scatter_step", put_slice, r(3, 6), r(3, 2))
case("slice_scatter_step_decomposed", put_slice, r(3, 6), r(3, 2), decompose=True)
case("select_scatter_neg_decomposed", put_select, r(2, 3, 4), r(2, 3), decompose=True)
case("slice_scatter_core", lambda x, v: torch.slice_scatter(x, v, 1, -4, None, 3), r(2, 7), r(2, 2))
case("select_scatter_neg", put_select, r(2, 3, 4), r(2, 3))
case("diagonal_scatter", lambda x, v: torch.diagonal_scatter(x, v, 1, 0, 2), r(3, 2, 5), r(2, 3))
case("as_strided_scatter", lambda x, v: torch.as_strided_scatter(x, v, (2, 2), (1, 3), 1), r(3, 4), r(2, 2))
case("index_add_alpha", lambda x, i, s: torch.index_add(x, 1, i, s, alpha=2.0), r(3, 5), torch.tensor([0, 4, 0]), r(3, 3))
case("index_copy", lambda x, i, s: torch.index_copy(x, 0, i, s), r(5, 2), torch.tensor([3, 1]), r(2, 2))
case("index_fill", lambda x, i: torch.index_fill(x, -1, i, -2.0), r(2, 3, 4), torch.tensor([0, 3]))
case("index_reduce_amax", lambda x, i, s: torch.index_reduce(x, 0, i, s, "amax", include_self=False), r(4, 3), torch.tensor([1, 3, 1]), r(3, 3))
case("index_reduce_mean", lambda x, i, s: torch.index_reduce(x, 0, i, s, "mean"), r(4, 3), torch.tensor([1, 3, 1]), r(3, 3))
case("take", lambda x, i: torch.take(x, i), r(3, 4), torch.tensor([[0, 11], [-1, 5]]))
case("put_acc", lambda x, i, s: torch.put(x, i, s, accumulate=True), r(3, 4), torch.tensor([0, 11, 0]), r(3))
case("masked_scatter", lambda x, m, s: torch.masked_scatter(x, m, s), r(3, 4), r(3, 4) > 0, r(15))
case("searchsorted", lambda s, v: torch.searchsorted(s, v), torch.sort(r(2, 6))[0], r(2, 4))
case("searchsorted_right_1d", lambda s, v: torch.searchsorted(s, v, right=True, out_int32=True), torch.tensor([1.0, 2.0, 2.0, 3.0]), torch.tensor([[2.0, 0.5], [3.0, 9.0]]))
case("bucketize", lambda v, b: torch.bucketize(v, b), r(3, 4), torch.tensor([-1.0, 0.0, 0.5, 1.0]))
case("kthvalue", lambda x: tuple(torch.kthvalue(x, 2, dim=1, keepdim=True)), r(3, 5))
case("tril_indices", lambda x: x[torch.tril_indices(4, 3, -1)[0]], r(4, 2))
case("triu_indices", lambda x: torch.triu_indices(3, 5, 1) + x, torch.tensor(0))
case("repeat_interleave_int", lambda x: torch.repeat_interleave(x, 3, dim=1), r(2, 3))
case("repeat_interleave_flat", lambda x: torch.repeat_interleave(x, 2), r(2, 3))
case("repeat_interleave_tensor", lambda x, k: torch.repeat_interleave(x, k, dim=0), r(3, 2), torch.tensor([1, 0, 3]))
case("transpose_copy", lambda x: torch.transpose_copy(x, 0, 2), r(2, 3, 4))
case("unfold_copy", lambda x: torch.unfold_copy(x, 0, 3, 2), r(7, 2))
gs_grid = torch.rand(2, 4, 5, 2) * 2.6 - 1.3
case("grid_sample_bilinear_zeros", lambda x, g: F.grid_sample(x, g, mode="bilinear", padding_mode="zeros", align_corners=False), r(2, 3, 6, 7), gs_grid)
case("grid_sample_bilinear_border_ac", lambda x, g: F.grid_sample(x, g, mode="bilinear", padding_mode="border", align_corners=True), r(2, 3, 6, 7), gs_grid)
case("grid_sample_bilinear_reflect", lambda x, g: F.grid_sample(x, g, mode="bilinear", padding_mode="reflection", align_corners=False), r(2, 3, 6, 7), gs_grid)
case("grid_sample_nearest_reflect_ac", lambda x, g: F.grid_sample(x, g, mode="nearest", padding_mode="reflection", align_corners=True), r(2, 3, 6, 7), gs_grid)
case("grid_sample_nearest_zeros", lambda x, g: F.grid_sample(x, g, mode="nearest", padding_mode="zeros", align_corners=False), r(2, 3, 6, 7), gs_grid)
case("im2col", lambda x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), r(2, 3, 6, 7))
case("col2im", lambda x: F.fold(x, (6, 7), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), r(2, 18, 20))
case("channel_shuffle", lambda x: F.channel_shuffle(x, 3), r(2, 6, 2, 2))
case("pdist", lambda x: F.pdist(x), r(5, 3))
case("pdist_p1", lambda x: F.pdist(x, p=1), r(4, 3))
sdpa_mask_rows = torch.tensor([[True, False, True], [False, False, False], [True, True, True], [False, True, False]])
case("sdpa_fully_masked_row", lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), r(1, 2, 4, 8), r(1, 2, 3, 8), r(1, 2, 3, 8), sdpa_mask_rows)
case("sdpa_causal_rect", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), r(1, 2, 3, 8), r(1, 2, 5, 8), r(1, 2, 5, 8))
case("softmax_all_neginf", lambda x: torch.softmax(x, -1), torch.tensor([[float("-inf")] * 3, [0.0, 1.0, float("-inf")]]))
case("interp_bicubic", lambda x: F.interpolate(x, size=(7, 9), mode="bicubic"), r(1, 2, 4, 5))
case("interp_bicubic_ac_down", lambda x: F.interpolate(x, scale_factor=0.7, mode="bicubic", align_corners=True), r(1, 2, 9, 8))
case("interp_bicubic_bf16", lambda x: F.interpolate(x, scale_factor=1.5, mode="bicubic"), r(1, 2, 4, 4, dtype=torch.bfloat16))
case("interp_nearest_exact", lambda x: F.interpolate(x, scale_factor=1.7, mode="nearest-exact"), r(1, 2, 5, 4))
case("interp_nearest_exact1d", lambda x: F.interpolate(x, size=7, mode="nearest-exact"), r(1, 2, 5))
case("interp_trilinear", lambda x: F.interpolate(x, size=(3, 5, 4), mode="trilinear"), r(1, 2, 2, 3, 4))
case("interp_nearest3d", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), r(1, 1, 2, 3, 2))
case("adaptive_max_pool2d", lambda x: tuple(F.adaptive_max_pool2d(x, (3, 4), return_indices=True)), r(2, 3, 7, 9))
case("adaptive_max_pool1d", lambda x: tuple(F.adaptive_max_pool1d(x, 4, return_indices=True)), r(2, 3, 10))
case("adaptive_max_pool2d_ties", lambda x: tuple(F.adaptive_max_pool2d(x, 2, return_indices=True)), torch.tensor([[[[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 1.0, 5.0], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]]]]))
eb_w = r(7, 3)
eb_i = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0, 6])
eb_o = torch.tensor([0, 3, 3, 6])
case("embedding_bag_mean", lambda w, i, o: F.embedding_bag(i, w, o, mode="mean"), eb_w, eb_i, eb_o)
case("embedding_bag_sum_psw", lambda w, i, o, p: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=p), eb_w, eb_i, eb_o, r(9))
case("embedding_bag_max_2d_pad", lambda w, i: F.embedding_bag(i, w, mode="max", padding_idx=1), eb_w, torch.tensor([[1, 2, 4], [1, 1, 1], [0, 6, 5]]))
case("embedding_bag_sum_last", lambda w, i, o: F.embedding_bag(i, w, o, mode="sum", include_last_offset=True, padding_idx=4), eb_w, eb_i, torch.tensor([0, 2, 2, 7]))
case("embedding_bag_aux_max", lambda w, i, o: tuple(torch.ops.aten.embedding_bag.padding_idx(w, i, o, False, 2, False, None, False, 4)), eb_w, eb_i, torch.tensor([0, 2, 2, 7]))
case("embedding_bag_aux_mean_last", lambda w, i, o: tuple(torch.ops.aten.embedding_bag.padding_idx(w, i, o, False, 1, False, None, True, None)), eb_w, eb_i, torch.tensor([0, 2, 2, 7]))
case("embedding_bag_aux_sum_pad", lambda w, i, o: tuple(torch.ops.aten.embedding_bag.padding_idx(w, i, o, False, 0, False, None, False, 4)), eb_w, eb_i, torch.tensor([0, 2, 2, 7]))
nz_x = torch.tensor([[0.0, 1.5, 0.0, 2.0], [3.0, 0.0, 0.0, -1.0], [0.0, 0.0, 4.0, 0.0]])
case("nonzero_static_pad", lambda x: torch.nonzero_static(x, size=8, fill_value=-7), nz_x)
case("nonzero_static_trunc", lambda x: torch.nonzero_static(x, size=3), nz_x)
case("argwhere", lambda x: torch.argwhere(x), nz_x)
case("native_layer_norm_aux", lambda x, w, b: tuple(torch.ops.aten.native_layer_norm(x, [3, 4], w, b, 1e-5)), r(2, 3, 4), r(3, 4), r(3, 4))
case("native_layer_norm_f16_noaffine", lambda x: tuple(torch.ops.aten.native_layer_norm(x, [4], None, None, 1e-5)), r(2, 3, 4, dtype=torch.float16))
case("native_group_norm_aux", lambda x, w, b: tuple(torch.ops.aten.native_group_norm(x, w, b, 2, 6, 10, 3, 1e-5)), r(2, 6, 10), r(6), r(6))
case("bn_no_training_aux", lambda x, w, b, m, v: tuple(torch.ops.aten._native_batch_norm_legit_no_training(x, w, b, m, v, 0.1, 1e-5)), r(2, 3, 4), r(3), r(3), r(3), torch.rand(3) + 0.5)
case("group_norm_one_group_noaffine", lambda x: F.group_norm(x, 1), r(2, 4, 3, 3))
case("layer_norm_noaffine", lambda x: F.layer_norm(x, (5,)), r(3, 5))
case("conv1d_groups_f16", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=2, groups=3), r(2, 6, 11, dtype=torch.float16), r(9, 2, 4, dtype=torch.float16), r(9, dtype=torch.float16))
case("max_pool2d_int64", lambda x: F.max_pool2d(x, 2, padding=1), torch.randint(-100, 100, (1, 2, 5, 5)))
case("avg_pool2d_bf16", lambda x: F.avg_pool2d(x, 3, stride=1, padding=1), r(1, 2, 5, 5, dtype=torch.bfloat16))
case("cat_bool_empty", lambda a, b, e: torch.cat([a, e, b], 1), r(2, 3) > 0, r(2, 2) > 0, torch.zeros(0, dtype=torch.bool))
case("index_int32", lambda x, i: x[i], r(5, 3), torch.tensor([4, -5, 2], dtype=torch.int32))
case("scatter_add_bf16_dup", lambda x, i, s: torch.scatter_add(x, 0, i, s), r(3, 4, dtype=torch.bfloat16), torch.tensor([[0, 1, 0, 2], [0, 1, 0, 2]]), r(2, 4, dtype=torch.bfloat16))
case("sort_uint8", lambda x: tuple(torch.sort(x, stable=True)), torch.tensor([[200, 3, 255, 3, 0]], dtype=torch.uint8))
case("sort_bool_desc", lambda x: tuple(torch.sort(x, descending=True, stable=True)), torch.tensor([True, False, True, False, False]))
case("topk_nan", lambda x: tuple(torch.topk(x, 2)), torch.tensor([[1.0, float("nan"), 3.0, 2.0]]))
case("roll_multi_neg", lambda x: torch.roll(x, (-1, 5), (0, -1)), r(3, 4, 2))
case("flip_neg", lambda x: torch.flip(x, (-1, 0)), r(2, 3, 4))
case("dot_1d", lambda a, b: a @ b, r(5), r(5))
case("mv", lambda a, b: torch.mv(a, b), r(3, 5), r(5))
case("matmul_bf16_bcast", lambda a, b: a @ b, r(2, 1, 3, 8, dtype=torch.bfloat16), r(4, 8, 2, dtype=torch.bfloat16))
case("linear_nobias_3d", lambda x, w: F.linear(x, w), r(2, 3, 4), r(6, 4))
case("log_softmax_f16", lambda x: torch.log_softmax(x, 1), r(3, 5, dtype=torch.float16))
case("softmax_dim1_size1", lambda x: torch.softmax(x, 1), r(3, 1, 2))
case("sdpa_f16_bool_bcast", lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), r(2, 2, 4, 8, dtype=torch.float16), r(2, 2, 5, 8, dtype=torch.float16), r(2, 2, 5, 8, dtype=torch.float16), torch.rand(2, 1, 4, 5) > 0.3)
case("cross_entropy_unbatched", lambda x, t: F.cross_entropy(x, t), r(5), torch.tensor(3))
case("cross_entropy_probs_smooth_none", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.3, reduction="none"), r(4, 5), torch.softmax(r(4, 5), 1))
case("nll_all_ignored", lambda x, t: F.nll_loss(x, t, ignore_index=1), torch.log_softmax(r(3, 4), 1), torch.tensor([1, 1, 1]))
case("interp_nearest_uint8", lambda x: F.interpolate(x, scale_factor=2.5, mode="nearest"), torch.randint(0, 255, (1, 3, 4, 3), dtype=torch.uint8))
case("interp_bilinear_ac_to1", lambda x: F.interpolate(x, size=(1, 3), mode="bilinear", align_corners=True), r(1, 2, 4, 5))


def dyn_case(name, fn, xs, dyn, xs_run):
    """Exports with symbolic dims (dyn: dynamic_shapes) and records a run at
    other sizes (xs_run), as the shared *_dynamic_* fixtures do."""
    try:
        m = Fn(fn).eval()
        ep = torch.export.export(m, tuple(xs), dynamic_shapes=(dyn,))
        torch.export.save(ep, os.path.join(out, name + ".pt2"))
        with torch.no_grad():
            o = m(*xs_run)
        if not isinstance(o, (tuple, list)):
            o = (o,)
        t = {f"input.{i}": x.contiguous() for i, x in enumerate(xs_run)}
        t.update({f"output.{i}": y.contiguous() for i, y in enumerate(o)})
        save_file(t, os.path.join(out, name + ".io.safetensors"))
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}")


B = torch.export.Dim("B", min=2, max=64)
S = torch.export.Dim("S", min=2, max=64)
dyn_case("dyn_conv_pool_view", lambda x, w: F.max_pool2d(F.conv2d(x, w, padding=1), 2).view(x.shape[0], -1),
         [r(3, 2, 8, 8), r(4, 2, 3, 3)], ({0: B}, None), [r(5, 2, 8, 8), r(4, 2, 3, 3)])
dyn_case("dyn_sdpa_seq", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(q.shape[0], q.shape[2], -1),
         [r(2, 2, 6, 4), r(2, 2, 6, 4), r(2, 2, 6, 4)], ({2: S}, {2: S}, {2: S}), [r(2, 2, 9, 4), r(2, 2, 9, 4), r(2, 2, 9, 4)])
dyn_case("dyn_index_cat_split", lambda x, i: torch.cat(torch.split(x[:, i], 2, dim=1)[::-1], 1).flatten(1),
         [r(3, 6, 2), torch.tensor([0, 5, 1, 1])], ({0: B}, None), [r(7, 6, 2), torch.tensor([0, 5, 1, 1])])
case("addbmm", lambda c, a, b: torch.addbmm(c, a, b, beta=0.5, alpha=2.0), r(3, 5), r(4, 3, 6), r(4, 6, 5))
case("addr", lambda c, a, b: torch.addr(c, a, b, alpha=3), r(3, 4), r(3), r(4))


def spd(n, b=()):
    a = torch.randn(*b, n, n, dtype=torch.float64)
    return (a @ a.transpose(-1, -2) + n * torch.eye(n, dtype=torch.float64)).float()


case("cholesky", lambda a: torch.linalg.cholesky(a), spd(4, (2,)))
case("cholesky_upper_f64", lambda a: torch.linalg.cholesky(a, upper=True), spd(3).double())
case("cholesky_ex_info", lambda a: tuple(torch.linalg.cholesky_ex(a)), torch.stack([spd(3), -spd(3)]))
case("solve_triangular", lambda a, b: torch.linalg.solve_triangular(a, b, upper=False), torch.tril(r(3, 3)) + 3 * torch.eye(3), r(2, 3, 4))
case("solve_triangular_right_unit", lambda a, b: torch.linalg.solve_triangular(a, b, upper=True, left=False, unitriangular=True), r(4, 4), r(3, 4))
case("triangular_solve_t", lambda b, a: tuple(torch.triangular_solve(b, a, upper=True, transpose=True)), r(3, 2), torch.triu(r(3, 3)) + 3 * torch.eye(3))
case("cholesky_solve", lambda b, l: torch.cholesky_solve(b, l), r(4, 2), torch.linalg.cholesky(spd(4)))
case("cholesky_solve_upper", lambda b, u: torch.cholesky_solve(b, u, upper=True), r(2, 3, 2), torch.linalg.cholesky(spd(3, (2,)), upper=True))
case("cholesky_inverse", lambda l: torch.cholesky_inverse(l), torch.linalg.cholesky(spd(4)))
mid_fail = torch.tensor([[4.0, 2.0, 0.0, 1.0], [2.0, 2.0, 3.0, 0.5], [0.0, 3.0, 1.0, 2.0], [1.0, 0.5, 2.0, 5.0]])
case("cholesky_ex_midfail", lambda a: tuple(torch.linalg.cholesky_ex(a)), torch.stack([mid_fail, spd(4)]))
case("cholesky_ex_midfail_upper", lambda a: tuple(torch.linalg.cholesky_ex(a, upper=True)), mid_fail)
case("sdpa_math", lambda q, k, v, m: tuple(torch.ops.aten._scaled_dot_product_attention_math(q, k, v, m)), r(2, 2, 4, 8), r(2, 2, 5, 8), r(2, 2, 5, 8), r(4, 5))
case("sdpa_math_bf16_causal", lambda q, k, v: tuple(torch.ops.aten._scaled_dot_product_attention_math(q, k, v, is_causal=True)), r(1, 2, 4, 8, dtype=torch.bfloat16), r(1, 2, 4, 8, dtype=torch.bfloat16), r(1, 2, 4, 8, dtype=torch.bfloat16))
case("linalg_det", lambda a: torch.linalg.det(a), r(2, 4, 4))
case("linalg_slogdet_free_det_sing", lambda a: torch.linalg.det(a), torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
case("linalg_inv", lambda a: torch.linalg.inv(a), r(3, 5, 5) + 3 * torch.eye(5))
case("linalg_inv_ex", lambda a: tuple(torch.linalg.inv_ex(a)), r(4, 4))
case("linalg_solve", lambda a, b: torch.linalg.solve(a, b), r(2, 4, 4), r(2, 4, 3))
case("linalg_solve_vec_bcast", lambda a, b: torch.linalg.solve(a, b), r(3, 3, 3), r(3))
case("linalg_solve_right", lambda a, b: torch.linalg.solve(a, b, left=False), r(4, 4), r(2, 4))
case("linalg_lu_factor", lambda a: tuple(torch.linalg.lu_factor_ex(a)), r(2, 5, 5))
case("linalg_lu", lambda a: tuple(torch.linalg.lu(a)), r(4, 4))
case("linalg_det_f64", lambda a: torch.linalg.det(a), r(3, 3).double())
case("interp_bilinear_aa_down", lambda x: F.interpolate(x, size=(5, 4), mode="bilinear", antialias=True), r(1, 2, 13, 9))
case("interp_bilinear_aa_up", lambda x: F.interpolate(x, scale_factor=1.6, mode="bilinear", antialias=True), r(1, 2, 4, 5))
case("interp_bicubic_aa_down", lambda x: F.interpolate(x, size=(4, 6), mode="bicubic", antialias=True), r(1, 2, 11, 15))


def unpool2d(x):
    y, i = F.max_pool2d(x, 2, stride=2, return_indices=True)
    return F.max_unpool2d(y, i, 2, stride=2, output_size=(5, 7))


case("max_unpool2d", unpool2d, r(2, 3, 5, 7))
case("unique_dim0", lambda x: torch.unique(x, dim=0, return_inverse=True, return_counts=True), torch.tensor([[1, 2], [0, 5], [1, 2], [0, 1], [0, 5]]))
case("unique_dim1_float", lambda x: torch.unique(x, dim=1), torch.tensor([[1.0, 0.5, 1.0, -2.0], [3.0, 0.5, 3.0, 0.0]]))
print("done")
