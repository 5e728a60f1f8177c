"""Cases for the Core ATen ops registered in aten/backward_*.go,
aten/random*.go, aten/fft*.go, aten/embedding_bag*.go and aten/resize*.go:
each NAME.pt2 (torch.export.save of a module calling torch.ops.aten.X
directly) with NAME.io.safetensors holding the inputs and PyTorch's eager
outputs (and, for modules with buffers, buffer.NAME after the run).

Inputs of the backward ops come from a real forward and backward pass, so
that saved statistics and indices are the ones PyTorch itself would pass.

    cd tools/coreaten && /work/shared/tools/torch-oracle run sid -- python3 gen.py out
    rm -rf ../../aten/testdata/coreaten && mv out ../../aten/testdata/coreaten

Random ops (rand, randn, randperm) cannot match PyTorch's mt19937 stream;
their io files hold PyTorch's outputs only to pin dtype and shape, and the
Go test checks the distribution. resize_ leaves grown elements
uninitialized in PyTorch, so the test compares the preserved prefix.
"""
import copy
import json
import os
import sys

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

aten = torch.ops.aten
out = sys.argv[1] if len(sys.argv) > 1 else "out"
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
INDEX = []


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        o = self.fn(*xs)
        if isinstance(o, (tuple, list)):
            return tuple(t for t in o if t is not None)
        return o


def save(name, ep, xs, outs, buffers=None):
    torch.export.save(ep, os.path.join(out, name + ".pt2"))
    if not isinstance(outs, (tuple, list)):
        outs = (outs,)
    t = {f"input.{i}": x.contiguous() for i, x in enumerate(xs)}
    t.update({f"output.{i}": y.contiguous() for i, y in enumerate(outs)})
    for k, v in (buffers or {}).items():
        t[f"buffer.{k}"] = v.contiguous()
    save_file(t, os.path.join(out, name + ".io.safetensors"))
    ops = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
    INDEX.append({"name": name, "ops": ops})


def case(name, fn, *xs):
    try:
        m = Fn(fn)
        ep = torch.export.export(m, tuple(xs))
        with torch.no_grad():
            o = m(*xs)
        save(name, ep, xs, o)
    except Exception as e:  # report and go on
        print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}", file=sys.stderr)


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


# convolution_backward: grad_output of the real forward's shape.
def conv_case(name, xs, ws, stride, pad, dil, groups, mask, transposed=False, outpad=None, bias=True, dtype=torch.float32):
    x, w = r(*xs, dtype=dtype), r(*ws, dtype=dtype)
    n = len(xs) - 2
    outpad = outpad or [0] * n
    y = aten.convolution(x, w, None, stride, pad, dil, transposed, outpad, groups)
    go = r(*y.shape, dtype=dtype)
    cout = y.shape[1]
    bs = [cout] if bias else None
    case(name, lambda go, x, w: aten.convolution_backward(go, x, w, bs, stride, pad, dil, transposed, outpad, groups, mask), go, x, w)


conv_case("conv_bwd_2d", (2, 3, 7, 6), (4, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1, [True, True, True])
conv_case("conv_bwd_2d_stride", (2, 3, 8, 7), (5, 3, 3, 2), [2, 3], [1, 0], [1, 1], 1, [True, True, True])
conv_case("conv_bwd_groups_dil", (1, 4, 9, 9), (6, 2, 3, 3), [2, 1], [2, 1], [2, 2], 2, [True, True, True])
conv_case("conv_bwd_depthwise", (2, 3, 6, 6), (3, 1, 3, 3), [1, 1], [0, 0], [1, 1], 3, [True, True, False], bias=False)
conv_case("conv_bwd_1d", (2, 3, 11), (2, 3, 4), [2], [1], [1], 1, [True, True, True])
conv_case("conv_bwd_mask_w", (1, 2, 5, 5), (3, 2, 2, 2), [1, 1], [0, 0], [1, 1], 1, [False, True, False], bias=False)
conv_case("conv_bwd_transposed", (1, 4, 4, 5), (4, 3, 3, 3), [2, 2], [1, 0], [1, 1], 2, [True, True, True], transposed=True, outpad=[1, 0])
conv_case("conv_bwd_bf16", (1, 2, 5, 5), (3, 2, 3, 3), [1, 1], [1, 1], [1, 1], 1, [True, True, True], dtype=torch.bfloat16)
conv_case("conv_bwd_3d", (1, 2, 4, 5, 4), (2, 2, 2, 3, 2), [1, 2, 1], [0, 1, 1], [1, 1, 1], 1, [True, True, True])


# max_pool2d_with_indices_backward: indices from the real forward.
def maxpool_case(name, shape, k, s, p, d, ceil, dtype=torch.float32):
    x = r(*shape, dtype=dtype)
    y, idx = aten.max_pool2d_with_indices(x, k, s, p, d, ceil)
    go = r(*y.shape, dtype=dtype)
    case(name, lambda go, x, idx: aten.max_pool2d_with_indices_backward(go, x, k, s, p, d, ceil, idx), go, x, idx)


maxpool_case("maxpool_bwd_overlap", (2, 3, 7, 7), [3, 3], [1, 2], [1, 1], [1, 1], False)
maxpool_case("maxpool_bwd_ceil_dil", (1, 2, 9, 8), [2, 3], [2, 2], [1, 1], [2, 1], True)
maxpool_case("maxpool_bwd_bf16", (1, 2, 6, 6), [3, 3], [1, 1], [1, 1], [1, 1], False, dtype=torch.bfloat16)
maxpool_case("maxpool_bwd_3d", (3, 6, 6), [2, 2], [2, 2], [0, 0], [1, 1], False)


def avgpool_case(name, shape, k, s, p, ceil, incl, div, dtype=torch.float32):
    x = r(*shape, dtype=dtype)
    y = aten.avg_pool2d(x, k, s, p, ceil, incl, div)
    go = r(*y.shape, dtype=dtype)
    case(name, lambda go, x: aten.avg_pool2d_backward(go, x, k, s, p, ceil, incl, div), go, x)


avgpool_case("avgpool_bwd_basic", (2, 3, 6, 6), [2, 2], [2, 2], [0, 0], False, True, None)
avgpool_case("avgpool_bwd_ceil_excl", (1, 2, 8, 7), [3, 3], [2, 2], [1, 1], True, False, None)
avgpool_case("avgpool_bwd_ceil_incl", (1, 2, 8, 7), [3, 2], [2, 2], [1, 1], True, True, None)
avgpool_case("avgpool_bwd_divisor", (2, 2, 7, 7), [3, 3], [1, 2], [1, 0], False, True, 5)
avgpool_case("avgpool_bwd_3d", (3, 5, 5), [2, 2], [1, 1], [0, 0], False, True, None)
avgpool_case("avgpool_bwd_bf16", (1, 2, 6, 5), [3, 3], [2, 1], [1, 1], True, False, None, dtype=torch.bfloat16)
avgpool_case("avgpool_bwd_f64", (1, 2, 5, 6), [3, 2], [2, 1], [1, 1], True, False, None, dtype=torch.float64)


def adaptive_case(name, shape, osz, dtype=torch.float32):
    x = r(*shape, dtype=dtype)
    y = aten._adaptive_avg_pool2d(x, osz)
    go = r(*y.shape, dtype=dtype)
    case(name, lambda go, x: aten._adaptive_avg_pool2d_backward(go, x), go, x)


adaptive_case("adaptive_bwd_uneven", (2, 3, 7, 5), [3, 2])
adaptive_case("adaptive_bwd_even", (1, 2, 6, 8), [3, 4])
adaptive_case("adaptive_bwd_up", (1, 2, 3, 2), [5, 4])
adaptive_case("adaptive_bwd_f16", (1, 2, 7, 5), [3, 2], dtype=torch.float16)
adaptive_case("adaptive_bwd_3d", (3, 5, 7), [2, 3])


def embbwd_case(name, idx, num, pad, freq, d=4, dtype=torch.float32):
    go = r(*idx.shape, d, dtype=dtype)
    case(name, lambda go, idx: aten.embedding_dense_backward(go, idx, num, pad, freq), go, idx)


ei = torch.tensor([[1, 3, 3, 0], [2, 3, 1, 9]])
embbwd_case("emb_bwd_basic", ei, 10, -1, False)
embbwd_case("emb_bwd_pad", ei, 10, 3, False)
embbwd_case("emb_bwd_freq", ei, 10, -1, True)
embbwd_case("emb_bwd_freq_pad", ei, 12, 1, True)
embbwd_case("emb_bwd_bf16", ei, 10, 3, True, dtype=torch.bfloat16)
embbwd_case("emb_bwd_1d_i32", torch.tensor([4, 0, 4, 4, 2], dtype=torch.int32), 6, -1, True, d=3)


def ln_case(name, shape, ns, affine, mask, bias=True, dtype=torch.float32):
    x = r(*shape, dtype=dtype)
    w = r(*ns, dtype=dtype) if affine else None
    b = r(*ns, dtype=dtype) if affine and bias else None
    _, mean, rstd = aten.native_layer_norm(x, ns, w, b, 1e-5)
    go = r(*shape, dtype=dtype)
    if affine and bias:
        case(name, lambda go, x, mean, rstd, w, b: aten.native_layer_norm_backward(go, x, ns, mean, rstd, w, b, mask), go, x, mean, rstd, w, b)
    elif affine:
        case(name, lambda go, x, mean, rstd, w: aten.native_layer_norm_backward(go, x, ns, mean, rstd, w, None, mask), go, x, mean, rstd, w)
    else:
        case(name, lambda go, x, mean, rstd: aten.native_layer_norm_backward(go, x, ns, mean, rstd, None, None, mask), go, x, mean, rstd)


ln_case("ln_bwd_affine", (3, 4, 6), [6], True, [True, True, True])
ln_case("ln_bwd_2d_shape", (2, 3, 4, 5), [4, 5], True, [True, True, True])
ln_case("ln_bwd_noaffine", (4, 7), [7], False, [True, False, False])
ln_case("ln_bwd_nobias_mask", (2, 5, 3), [3], True, [True, True, False], bias=False)
ln_case("ln_bwd_mask_wb", (2, 5, 3), [3], True, [False, True, True])
ln_case("ln_bwd_bf16", (3, 8), [8], True, [True, True, True], dtype=torch.bfloat16)
ln_case("ln_bwd_f64", (3, 8), [8], True, [True, True, True], dtype=torch.float64)


def gn_case(name, shape, g, affine, mask, dtype=torch.float32):
    x = r(*shape, dtype=dtype)
    N, C = shape[0], shape[1]
    hw = 1
    for s in shape[2:]:
        hw *= s
    w = r(C, dtype=dtype) if affine else None
    b = r(C, dtype=dtype) if affine else None
    _, mean, rstd = aten.native_group_norm(x, w, b, N, C, hw, g, 1e-5)
    go = r(*shape, dtype=dtype)
    if affine:
        case(name, lambda go, x, mean, rstd, w: aten.native_group_norm_backward(go, x, mean, rstd, w, N, C, hw, g, mask), go, x, mean, rstd, w)
    else:
        case(name, lambda go, x, mean, rstd: aten.native_group_norm_backward(go, x, mean, rstd, None, N, C, hw, g, mask), go, x, mean, rstd)


gn_case("gn_bwd_affine", (2, 6, 4, 3), 3, True, [True, True, True])
gn_case("gn_bwd_noaffine", (3, 4, 5), 2, False, [True, False, False])
gn_case("gn_bwd_mask", (2, 4, 3, 3), 4, True, [False, True, True])
gn_case("gn_bwd_bf16", (2, 4, 3, 2), 2, True, [True, True, True], dtype=torch.bfloat16)
gn_case("gn_bwd_one_group", (2, 3, 2, 2), 1, True, [True, True, True])


# _native_batch_norm_legit: a module whose buffers the op updates in place.
class BNLegit(torch.nn.Module):
    def __init__(self, c, training, affine=True):
        super().__init__()
        self.training_ = training
        self.weight = torch.nn.Parameter(torch.rand(c) + 0.5) if affine else None
        self.bias = torch.nn.Parameter(torch.randn(c)) if affine else None
        self.register_buffer("running_mean", torch.randn(c))
        self.register_buffer("running_var", torch.rand(c) + 0.5)

    def forward(self, x):
        return aten._native_batch_norm_legit(x, self.weight, self.bias, self.running_mean, self.running_var, self.training_, 0.1, 1e-5)


def bn_case(name, shape, training, affine=True, decompose=False):
    try:
        torch.manual_seed(1)
        m = BNLegit(shape[1], training, affine)
        x = r(*shape)
        # Export a copy: the exported program shares the module's buffers,
        # which the eager run below updates in place.
        ep = torch.export.export(copy.deepcopy(m), (x,))
        if decompose:
            ep = ep.run_decompositions()
        with torch.no_grad():
            o = m(x)
        save(name, ep, (x,), o, dict(m.named_buffers()))
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}", file=sys.stderr)


bn_case("bn_legit_train", (4, 3, 5, 5), True)
bn_case("bn_legit_train_noaffine", (6, 2, 3), True, affine=False)
bn_case("bn_legit_eval", (4, 3, 5), False)
bn_case("bn_legit_train_core_aten", (4, 3, 5, 5), True, decompose=True)


def bag_case(name, wshape, idx, offs, mode, last=False, psw=None, pad=-1):
    w = r(*wshape)
    if psw is None:
        case(name, lambda w, i, o: aten._embedding_bag(w, i, o, False, mode, False, None, last, pad), w, idx, offs)
    else:
        case(name, lambda w, i, o, p: aten._embedding_bag(w, i, o, False, mode, False, p, last, pad), w, idx, offs, psw)


bi = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 0])
bo = torch.tensor([0, 3, 3, 7])
bag_case("bag_sum", (10, 3), bi, bo, 0)
bag_case("bag_mean", (10, 3), bi, bo, 1)
bag_case("bag_max", (10, 3), bi, bo, 2)
bag_case("bag_sum_last", (10, 3), bi, torch.tensor([0, 3, 3, 7, 10]), 0, last=True)
bag_case("bag_mean_last_empty_tail", (10, 3), bi, torch.tensor([0, 3, 10, 10]), 1, last=True)
bag_case("bag_max_last", (10, 3), bi, torch.tensor([0, 2, 2, 6, 10]), 2, last=True)
bag_case("bag_sum_psw", (10, 3), bi, bo, 0, psw=torch.randn(10))
bag_case("bag_sum_pad", (10, 3), bi, bo, 0, pad=4)
bag_case("bag_mean_pad", (10, 3), bi, bo, 1, pad=2)
bag_case("bag_max_pad", (10, 3), bi, bo, 2, pad=4)
bag_case("bag_mean_i32", (10, 2), bi.int(), bo.int(), 1)


def fft_r2c_case(name, shape, dims, norm, onesided, dtype=torch.float32):
    case(name, lambda x: aten._fft_r2c(x, dims, norm, onesided), r(*shape, dtype=dtype))


fft_r2c_case("fft_r2c_1d", (3, 8), [1], 0, True)
fft_r2c_case("fft_r2c_odd_ortho", (2, 7), [1], 1, True)
fft_r2c_case("fft_r2c_full_byn", (2, 6), [1], 2, False)
fft_r2c_case("fft_r2c_2d", (2, 4, 6), [1, 2], 1, True)
fft_r2c_case("fft_r2c_dim0", (5, 3), [0], 2, True)
fft_r2c_case("fft_r2c_2d_full", (4, 5), [0, 1], 0, False)


def fft_c2r_case(name, shape, dims, norm, last, dtype=torch.complex64):
    x = torch.randn(*shape, dtype=dtype)
    case(name, lambda x: aten._fft_c2r(x, dims, norm, last), x)


fft_c2r_case("fft_c2r_1d", (3, 5), [1], 0, 8)
fft_c2r_case("fft_c2r_odd_ortho", (2, 5), [1], 1, 9)
fft_c2r_case("fft_c2r_byn", (2, 4), [1], 2, 6)
fft_c2r_case("fft_c2r_2d", (3, 4, 4), [1, 2], 2, 6)
fft_c2r_case("fft_c2r_dim0", (4, 3), [0], 1, 7)
fft_c2r_case("fft_c2r_trunc", (2, 6), [1], 0, 4)

# (safetensors cannot hold complex128, so the float64 forms are not cases.)

# Random ops: PyTorch's values only pin dtype and shape.
case("rand_f32", lambda x: aten.rand([100, 100]) + x, torch.zeros(()))
case("rand_f64", lambda x: aten.rand([10000], dtype=torch.float64) + x, torch.zeros((), dtype=torch.float64))
case("rand_f16", lambda x: aten.rand([50, 100], dtype=torch.float16) + x, torch.zeros((), dtype=torch.float16))
case("rand_bf16", lambda x: aten.rand([50, 100], dtype=torch.bfloat16) + x, torch.zeros((), dtype=torch.bfloat16))
case("randn_f32", lambda x: aten.randn([100, 100]) + x, torch.zeros(()))
case("randn_f64", lambda x: aten.randn([10000], dtype=torch.float64) + x, torch.zeros((), dtype=torch.float64))
case("randn_bf16", lambda x: aten.randn([50, 100], dtype=torch.bfloat16) + x, torch.zeros((), dtype=torch.bfloat16))
case("randperm_i64", lambda x: aten.randperm(1000) + x, torch.zeros((), dtype=torch.int64))
case("randperm_i32", lambda x: aten.randperm(77, dtype=torch.int32) + x, torch.zeros((), dtype=torch.int32))
case("randperm_f32", lambda x: aten.randperm(50, dtype=torch.float32) + x, torch.zeros(()))


# resize_ on a fresh tensor inside the graph.
def resize(shape):
    def f(x):
        y = x.clone()
        aten.resize_(y, shape)
        return y
    return f


case("resize_shrink", resize([2, 3]), r(3, 4))
case("resize_same_numel", resize([4, 3]), r(3, 4))
case("resize_grow", resize([4, 5]), r(3, 4))
case("resize_int_flat", resize([7]), torch.arange(12).reshape(3, 4))

with open(os.path.join(out, "INDEX.json"), "w") as f:
    json.dump({"torch": torch.__version__, "cases": INDEX}, f, indent=1)
print(f"{len(INDEX)} cases")
