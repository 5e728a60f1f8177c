"""Edge cases of the pointwise, reduction, creation and symbolic op families,
exported with torch.export and run by real PyTorch, for
runtime/oracle_test.go. Each case NAME gives NAME.pt2 and NAME.io.safetensors
(input.N, output.N) in OUTDIR, plus OUTDIR/INDEX.json.

    cd tools/oracle && /work/shared/tools/torch-oracle run sid -- python3 gen_cases.py cases
    rm -rf ../../runtime/testdata/oracle && mv cases ../../runtime/testdata/oracle

The cases target rules the shared fixtures do not pin down: Python-scalar
and 0-dim promotion, integer division and remainder signs, -0.0, shifts past
the bit width, integer wrap-around, in-place and out= variants, reduction
dtypes, ties and NaN in arg/cum reductions, creation dtype inference, and
symbolic shapes.
"""
import json
import os
import sys

import torch
from safetensors.torch import save_file

F = torch.nn.functional

torch.manual_seed(0)
CASES = []


def case(name, fn, *inputs, dynamic=None):
    CASES.append((name, fn, inputs, dynamic))


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        out = self.fn(*xs)
        flat = []
        for o in (out if isinstance(out, tuple) and not hasattr(out, "indices") else (out,)):
            flat.extend(tuple(o) if isinstance(o, tuple) else [o])
        return tuple(flat)


t = torch.tensor
a7 = t([7, -7, 7, -7, 0, 5])
b2 = t([2, 2, -2, -2, 3, -3])
fa = t([7.0, -7.0, 7.0, -7.0, -4.0, 0.0, 5.5, -0.0])
fb = t([2.0, 2.0, -2.0, -2.0, 2.0, -3.0, 0.0, 1.0])
edge = t([0.0, -0.0, 1.5, -2.5, float("nan"), float("inf"), -float("inf"), 3.0])
half = t([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.25, 0.35])

# Promotion with Python scalars and 0-dim tensors.
case("int32_plus_float", lambda x: x + 2.5, t([1, 2, 3], dtype=torch.int32))
case("uint8_plus_big_int", lambda x: x + 1000, t([1, 200, 255], dtype=torch.uint8))
case("bool_plus_int", lambda x: x + 1, t([True, False]))
case("bool_plus_float", lambda x: x + 1.5, t([True, False]))
case("f16_plus_float", lambda x: x + 2.5, t([1.0, 2.0], dtype=torch.float16))
case("int32_plus_f64_0dim", lambda x, y: x + y, t([1, 2], dtype=torch.int32), t(2.5, dtype=torch.float64))
case("int32_plus_i64_0dim", lambda x, y: x + y, t([1, 2], dtype=torch.int32), t(7))
case("u8_plus_i8_0dim", lambda x, y: x + y, t([1, 250], dtype=torch.uint8), t(-3, dtype=torch.int8))
case("u8_plus_i8_1dim", lambda x, y: x + y, t([1, 250], dtype=torch.uint8), t([-3], dtype=torch.int8))
case("f16_plus_bf16_0dim", lambda x, y: x + y, t([1.0, 2.0], dtype=torch.float16), t(0.5, dtype=torch.bfloat16))
case("f64_times_0dim_f32", lambda x, y: x * y, t([0.1, 0.2], dtype=torch.float64), t(3.3))
case("f64_times_py_float", lambda x: x * 0.1, t([1.0, 3.0], dtype=torch.float64))
case("add_alpha", lambda x, y: torch.add(x, y, alpha=3), t([1.0, 2.0]), t([0.5, -1.0]))
case("sub_alpha_int", lambda x, y: torch.sub(x, y, alpha=2), t([10, 20]), t([1, 2]))
case("int8_overflow", lambda x: x + 1, t([127, -128], dtype=torch.int8))
case("int8_abs_neg_min", lambda x: (torch.abs(x), -x), t([-128, 5], dtype=torch.int8))
# Division and remainder.
case("div_int_true", lambda x, y: x / y, a7, b2)
case("div_int_trunc", lambda x, y: torch.div(x, y, rounding_mode="trunc"), a7, b2)
case("div_int_floor", lambda x, y: torch.div(x, y, rounding_mode="floor"), a7, b2)
case("floordiv_int", lambda x, y: x // y, a7, b2)
case("remainder_int", lambda x, y: x % y, a7, b2)
case("fmod_int", lambda x, y: torch.fmod(x, y), a7, b2)
case("div_float_floor", lambda x, y: torch.div(x, y, rounding_mode="floor"), fa, fb)
case("div_float_trunc", lambda x, y: torch.div(x, y, rounding_mode="trunc"), fa, fb)
case("remainder_float", lambda x, y: torch.remainder(x, y), fa, fb)
case("fmod_float", lambda x, y: torch.fmod(x, y), fa, fb)
case("remainder_scalar", lambda x: x % -3, a7)
case("floordiv_scalar_float", lambda x: x // 2.5, fa)
case("div_int_by_scalar", lambda x: torch.div(x, 2), a7)
# Powers, shifts, bitwise, rounding.
case("pow_int_tensor", lambda x, y: torch.pow(x, y), t([2, -3, 0, 5]), t([3, 2, 0, 1]))
case("pow_int_half", lambda x: x ** 0.5, t([4, 9, 2]))
case("pow_2_int", lambda x: 2 ** x, t([0, 3, 10]))
case("pow_float_scalar_int", lambda x: 2.5 ** x, t([0, 1, 2]))
case("pow_zero_zero", lambda x: torch.pow(x, 0), t([0.0, -1.0, float("nan")]))
case("shift_left_wide", lambda x, y: x << y, t([1, 1, -1, 3], dtype=torch.int8), t([7, 8, 3, 0], dtype=torch.int8))
case("shift_right_arith", lambda x, y: x >> y, t([-8, -1, 64, 5]), t([1, 70, 3, 0]))
case("shift_right_u8", lambda x, y: x >> y, t([255, 128, 7], dtype=torch.uint8), t([1, 7, 9], dtype=torch.uint8))
case("bitwise_not_bool", lambda x: ~x, t([True, False]))
case("xor_scalar", lambda x: x ^ 5, t([1, 2, 3]))
case("round_half_even", lambda x: torch.round(x), half)
case("round_decimals", lambda x: torch.round(x, decimals=1), half)
case("round_decimals_neg", lambda x: torch.round(x, decimals=-1), t([15.0, 25.0, 149.0, -35.0]))
case("round_int", lambda x: (torch.round(x), torch.floor(x), torch.trunc(x)), t([3, -4], dtype=torch.int32))
case("frac", lambda x: torch.frac(x), t([1.5, -2.25, 3.0]))
case("sign_edge", lambda x: torch.sign(x), edge)
case("signbit", lambda x: torch.signbit(x), edge)
case("copysign_zero", lambda x, y: torch.copysign(x, y), t([1.0, 2.0, 3.0]), t([-0.0, 0.0, -1.0]))
# NaN, inf and -0.0 through elementwise ops.
case("maximum_nan", lambda x, y: (torch.maximum(x, y), torch.fmax(x, y)), edge, edge.flip(0))
case("clamp_nan", lambda x: torch.clamp(x, -1.0, 2.0), edge)
case("clamp_int_float_bounds", lambda x: torch.clamp(x, 0.5, 2.5), t([0, 1, 2, 3]))
case("clamp_min_gt_max", lambda x: torch.clamp(x, 2.0, 1.0), t([0.0, 1.5, 3.0]))
case("clamp_tensor", lambda x, lo, hi: torch.clamp(x, lo, hi), t([0.0, 5.0, -5.0]), t([1.0, 1.0, 1.0]), t(2.0))
case("relu_edge", lambda x: torch.relu(x), edge)
case("nan_to_num_args", lambda x: torch.nan_to_num(x, nan=1.0, posinf=9.0), edge)
case("nan_to_num_f16", lambda x: torch.nan_to_num(x), edge.half())
case("isfinite", lambda x: (torch.isfinite(x), torch.isposinf(x), torch.isneginf(x)), edge)
case("logical_float", lambda x, y: (torch.logical_and(x, y), torch.logical_not(x)), edge, edge.flip(0))
case("logaddexp_inf", lambda x, y: torch.logaddexp(x, y), t([float("inf"), -float("inf"), 1.0]), t([float("inf"), -float("inf"), 2.0]))
case("xlogy_zero", lambda x, y: torch.xlogy(x, y), t([0.0, 0.0, 2.0]), t([0.0, float("nan"), 3.0]))
case("where_int_float", lambda c, x: torch.where(c, x, 2.5), t([True, False, True]), t([1, 2, 3], dtype=torch.int32))
case("where_promote", lambda c, x, y: torch.where(c, x, y), t([True, False]), t([1, 2], dtype=torch.int32), t([0.5, 1.5], dtype=torch.float64))
case("masked_fill_int", lambda x, m: x.masked_fill(m, 2.7), t([1, 2, 3], dtype=torch.int32), t([True, False, True]))
case("lerp_scalar", lambda x, y: torch.lerp(x, y, 0.75), t([1.0, 2.0]), t([3.0, -2.0]))
case("addcdiv", lambda x, y, z: torch.addcdiv(x, y, z, value=0.5), t([1.0, 2.0]), t([3.0, 4.0]), t([2.0, -8.0]))
case("exp_int", lambda x: (torch.exp(x), torch.sqrt(x), torch.sigmoid(x)), t([0, 1, 4]))
case("exp_bool", lambda x: torch.exp(x), t([True, False]))
case("hypot_inf", lambda x, y: torch.hypot(x, y), t([float("inf"), 3.0]), t([float("nan"), 4.0]))
case("celu_selu", lambda x: (torch.celu(x, 0.5), torch.selu(x), torch.nn.functional.relu6(x * 4)), t([-2.0, -0.1, 0.0, 1.7]))
case("hardshrink_softshrink", lambda x: (torch.nn.functional.hardshrink(x, 0.5), torch.nn.functional.softshrink(x, 0.5)), t([-1.0, -0.3, 0.2, 0.9]))
case("logit_eps", lambda x: torch.logit(x, eps=0.1), t([0.0, 0.05, 0.5, 1.0]))
case("elu_params", lambda x: torch.nn.functional.elu(x, alpha=0.5), t([-3.0, -0.5, 0.5]))
case("to_float_int", lambda x: (x.to(torch.int32), x.to(torch.uint8), x.to(torch.bool)), t([2.7, -2.7, 0.0, -0.0, 300.5, -1.0]))
case("to_bf16_rounding", lambda x: x.to(torch.bfloat16), t([1.00390625, 1.01171875, 70000.0]))
case("to_f16_overflow", lambda x: x.to(torch.float16), t([70000.0, 1e-8, -65504.0]))
# In-place and out= variants (derived from the functional entries).
case("inplace_add", lambda x, y: x.clone().add_(y, alpha=2), t([1.0, 2.0]), t([3.0, 4.0]))
case("inplace_int_add_float_scalar", lambda x: x.clone().mul_(2), t([1, 2, 3], dtype=torch.int32))
case("inplace_relu", lambda x: torch.relu_(x.clone()), t([-1.0, 2.0]))
case("inplace_clamp", lambda x: x.clone().clamp_(min=0.0), t([-1.0, 2.0]))
# Reductions.
case("sum_uint8", lambda x: x.sum(), t([200, 100], dtype=torch.uint8))
case("sum_bool", lambda x: (x.sum(), x.sum(0)), t([[True, False], [True, True]]))
case("sum_int32_dim", lambda x: x.sum(dim=1, keepdim=True), t([[1, 2], [3, 4]], dtype=torch.int32))
case("sum_f16_to_f32", lambda x: x.sum(dtype=torch.float32), torch.full((1000,), 0.1, dtype=torch.float16))
case("sum_bf16_many", lambda x: x.sum(), torch.full((10000,), 0.01, dtype=torch.bfloat16))
case("sum_empty_dims", lambda x: torch.sum(x, dim=[]), t([[1.0, 2.0], [3.0, 4.0]]))
case("mean_f16", lambda x: x.mean(), torch.ones(1000, dtype=torch.float16))
case("mean_dtype", lambda x: x.mean(dtype=torch.float64), t([1, 2, 4]))
case("prod_int", lambda x: (x.prod(), x.prod(1)), t([[1, 2, 3], [4, -5, 6]]))
case("prod_bool", lambda x: x.prod(), t([True, True, False]))
case("amax_bool", lambda x: x.amax(), t([False, True]))
case("amax_multi", lambda x: (x.amax(dim=(0, 2)), x.amin(dim=-1, keepdim=True)), torch.randn(2, 3, 4))
case("max_nan", lambda x: (x.max(), x.min()), edge)
case("argmax_ties", lambda x: (torch.argmax(x), torch.argmin(x)), t([1, 3, 3, 2, 3, 1]))
case("argmax_nan", lambda x: (torch.argmax(x), torch.argmin(x), x.max(0)), t([1.0, float("nan"), 5.0, float("nan")]))
case("argmax_keepdim", lambda x: torch.argmax(x, keepdim=True), torch.randn(3, 4))
case("max_dim_ties", lambda x: x.max(dim=1), t([[1, 5, 5], [7, 7, 2]]))
case("min_dim_int8", lambda x: x.min(dim=0), t([[1, -5], [-128, 7]], dtype=torch.int8))
case("all_any_float", lambda x: (x.all(), x.any(), x.all(dim=0), x.any(dim=1)), t([[1.0, float("nan")], [0.0, 2.0]]))
case("any_dims", lambda x: torch.any(x, dim=(0, 1)), t([[[0, 1]], [[0, 0]]]))
case("all_uint8", lambda x: x.all(), t([1, 2], dtype=torch.uint8))
case("var_corrections", lambda x: (torch.var(x), torch.var(x, correction=0), torch.var(x, correction=2)), t([1.0, 2.0, 3.0, 4.0]))
case("var_single", lambda x: torch.var(x), t([3.0]))
case("std_dim", lambda x: (torch.std(x, dim=1, unbiased=False), torch.std(x, dim=0, keepdim=True)), torch.randn(3, 5))
case("var_mean", lambda x: torch.var_mean(x, dim=1), torch.randn(3, 5, dtype=torch.float64))
case("std_bf16", lambda x: torch.std(x), torch.randn(64).bfloat16())
case("logsumexp_inf", lambda x: torch.logsumexp(x, dim=1), t([[-float("inf"), -float("inf")], [1000.0, 1000.0], [1.0, 2.0]]))
case("logsumexp_int", lambda x: torch.logsumexp(x, dim=0), t([1, 2, 3]))
case("norms", lambda x: (torch.linalg.vector_norm(x), torch.linalg.vector_norm(x, 1), torch.linalg.vector_norm(x, float("inf")),
                         torch.linalg.vector_norm(x, 0), torch.linalg.vector_norm(x, 3, dim=1), torch.linalg.vector_norm(x, -float("inf"))),
     t([[3.0, -4.0, 0.0], [1.0, 2.0, -2.0]]))
case("norm_bf16", lambda x: torch.linalg.vector_norm(x, dim=-1), torch.randn(4, 16).bfloat16())
case("count_nonzero_dims", lambda x: (torch.count_nonzero(x), torch.count_nonzero(x, dim=(0, 2))), t([[[0, 1], [2, 0]], [[0, 0], [3, 4]]]))
case("nansum", lambda x: torch.nansum(x), t([1.0, float("nan"), 2.0]))
case("median_nan", lambda x: (torch.median(x, dim=1), torch.median(x)), t([[3.0, 1.0, 2.0, 5.0], [1.0, float("nan"), 0.0, 2.0]]))
case("median_even", lambda x: torch.median(x, dim=0), t([[4, 1], [2, 3], [1, 9], [8, 5]]))
case("cumsum_int32_dtype", lambda x: (x.cumsum(0), x.cumsum(0, dtype=torch.float32)), t([1, 2, 3], dtype=torch.int32))
case("cumsum_bf16", lambda x: x.cumsum(0), torch.full((1000,), 0.01, dtype=torch.bfloat16))
case("cumprod_bool", lambda x: x.cumprod(0), t([True, True, False, True]))
case("cummax_ties_nan", lambda x: (torch.cummax(x, 0), torch.cummin(x, 0)), t([1.0, 3.0, 3.0, float("nan"), 2.0, float("nan"), 5.0]))
case("cummax_int_dim1", lambda x: torch.cummax(x, 1), t([[1, 3, 2, 3], [5, 4, 5, 6]]))
# Creation.
case("full_infer", lambda x: (torch.full((2,), 3) + 0 * x.sum().long(), torch.full((2,), True), torch.full((2,), 3.0)), t([1.0]))
case("full_trunc", lambda x: torch.full((2,), 2.7, dtype=torch.int32) + x, t([0, 0], dtype=torch.int32))
case("arange_forms", lambda x: (torch.arange(5), torch.arange(0, 1, 0.25), torch.arange(10, 0, -3), torch.arange(1.5, 4)), t([1.0]))
case("arange_dtype", lambda x: torch.arange(0, 2, 0.3, dtype=torch.float64) + x, t([0.0], dtype=torch.float64))
case("linspace_forms", lambda x: (torch.linspace(0, 1, 7), torch.linspace(-3, 3, 4, dtype=torch.float64), torch.linspace(2, 5, 1)), t([1.0]))
case("eye_forms", lambda x: (torch.eye(3), torch.eye(2, 4, dtype=torch.int64)), t([1.0]))
case("like_ops", lambda x: (torch.zeros_like(x), torch.ones_like(x, dtype=torch.bool), torch.full_like(x, 7), x.new_ones(2, 3), x.new_zeros(4)), t([[1, 2]], dtype=torch.int16))
case("scalar_tensor", lambda x: x + torch.scalar_tensor(3), t([1, 2]))
# Symbolic shapes.
case("dyn_view", lambda x: (x.reshape(x.shape[0] * 2, -1) * 2).sum(1), torch.randn(4, 6), dynamic={0: {0: "batch"}})
case("dyn_arith", lambda x: torch.full((x.shape[0] // 2 + 1,), float(x.shape[1])), torch.randn(6, 3), dynamic={0: {0: "n"}})
# Host fallbacks (data-dependent shapes) with compiled work after them.
case("nonzero_then_compute", lambda x: (torch.nonzero(x > 0).sum(0) * 2, x.sum()), t([[1.0, -2.0, 3.0], [0.0, 5.0, -1.0]]))
case("item_then_full", lambda x: torch.full((3,), x.max().item()) + x[:3], t([1.5, -2.0, 4.0, 0.5]))
# Less common pointwise ops (unary_extra.go).
case("threshold", lambda x: F.threshold(x, 0.5, -2.0), t([0.2, 0.5, 0.7, float("nan")]))
case("sinc_ndtr_entr", lambda x: (torch.sinc(x), torch.special.ndtr(x), torch.special.entr(x)), t([0.0, 0.5, -1.25, 2.0]))
case("logsigmoid", lambda x: F.logsigmoid(x), t([-100.0, -1.0, 0.0, 3.0, 50.0]))
case("deg_angle", lambda x: (torch.deg2rad(x), torch.rad2deg(x), torch.angle(x)), t([-90.0, 0.0, 45.0]))
case("heaviside", lambda x, v: torch.heaviside(x, v), t([-1.0, 0.0, 2.0]), t([0.5]))
case("xlog1py", lambda x, y: torch.special.xlog1py(x, y), t([0.0, 2.0, 1.0]), t([-1.0, 3.0, 0.5]))
case("float_power", lambda x, y: (torch.float_power(x, y), torch.float_power(x, 2)), t([2, 3], dtype=torch.int32), t([0.5, -1.0]))
case("ldexp", lambda x, y: torch.ldexp(x, y), t([1.0, 0.75]), t([3, -2]))
case("max_other", lambda x, y: (torch.max(x, y), torch.min(x, y)), edge, edge.flip(0))
# Complex tensors and Python complex scalars.
ca = torch.randn(2, 3, dtype=torch.complex64)
case("complex_arith", lambda x, y: (x * y + x / y, (x * 2.5 + 1j).abs(), x.sum(1), x.prod()), ca, torch.randn(3, dtype=torch.complex64))
case("complex_math", lambda x: (x.exp(), x.sqrt(), x.log(), torch.sigmoid(x), x.sgn(), x ** 2), ca)
case("complex_parts", lambda x: (x.real, x.imag, x.conj() * 1, torch.view_as_real(x), torch.angle(x)), ca)
case("complex_make", lambda r, i: (torch.complex(r, i), torch.polar(r.abs(), i), torch.view_as_complex(torch.stack([r, i], -1))), torch.randn(4), torch.randn(4))
case("complex_mixed", lambda x, y: (x + y, x == x, torch.where(x.real > 0, x, 0)), ca, torch.randn(3))
# Creation with explicit dtypes.
case("linspace_int", lambda x: (torch.linspace(0, 10, 4, dtype=torch.int64), torch.linspace(-5, 5, 6, dtype=torch.int32)), t([1.0]))
case("arange_int_float_step", lambda x: torch.arange(0, 5, 1.5, dtype=torch.int64) + x, t([0]))
case("arange_float_int_args", lambda x: torch.arange(2, 9, 3, dtype=torch.float16) + x, t([0.0], dtype=torch.float16))
case("full_bool_u8", lambda x: (torch.full((3,), 5, dtype=torch.bool), torch.full((2,), -1, dtype=torch.uint8), torch.eye(3, dtype=torch.bool)), t([1.0]))
case("scalar_tensor_dtypes", lambda x: (torch.scalar_tensor(True), torch.scalar_tensor(2.5, dtype=torch.int32) + x), t(1, dtype=torch.int32))
# More corners of dtype rules.
u8 = t([1, 2, 200], dtype=torch.uint8)
i8 = t([-100, 7, 100], dtype=torch.int8)
case("clamp_u8_negative_min", lambda x: torch.clamp(x, min=-1), u8)
case("int_wraps", lambda x, y: (x.to(torch.int8), y * y, -u8.clone(), torch.pow(y, 2)), t([300, -129, 127]), i8)
case("where_i8_u8", lambda c, x, y: torch.where(c, x, y), t([True, False, True]), i8, u8)
case("masked_fill_bool", lambda x, m: x.masked_fill(m, 5), t([True, False, False]), t([False, True, False]))
case("sum_bool_dtype", lambda x: (x.sum(dtype=torch.int32), x.prod(dtype=torch.float32), x.cumsum(0)), t([True, True, False]))
case("argmax_bool", lambda x: (x.argmax(), x.max(0), x.amin()), t([False, True, True]))
case("empty_reductions", lambda x: (x.sum(0), x.prod(0), x.mean(0), x.amax(1)), torch.zeros(0, 3))
case("std_big_correction", lambda x: (torch.std(x, correction=5), torch.var(x, correction=3)), t([1.0, 2.0, 4.0]))
case("cumsum_f32_to_f64", lambda x: x.cumsum(0, dtype=torch.float64), torch.randn(50))
case("logsumexp_bf16", lambda x: torch.logsumexp(x, 1), torch.randn(3, 40).bfloat16())
case("f16_misc", lambda x: (torch.round(x), x.abs(), torch.floor_divide(x, 0.7), torch.sign(x)), t([2.5, -0.0, -3.5, 1.25], dtype=torch.float16))
case("u8_unary", lambda x: (torch.sign(x), ~x, torch.relu(x), x // 3, x % 7), u8)
case("logical_xor_float", lambda x, y: torch.logical_xor(x, y), edge, edge.flip(0))
case("div_floor_neg_scalar", lambda x: torch.div(x, -3, rounding_mode="floor"), a7)
case("complex_casts", lambda x: (x.to(torch.float32), x.to(torch.int32), x.to(torch.bool)),
     t([1.5 + 2j, -2.7 - 0.5j, 0j, 0.5j], dtype=torch.complex64))


class Counter(torch.nn.Module):
    """A module that mutates a buffer: the export adds a buffer_mutation
    output, and the runtime must keep the new value for the next run."""

    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(3))

    def forward(self, x):
        self.total.add_(x)
        return self.total * 2


MODULES = [("buffer_mutation", Counter(), (t([1.0, 2.0, 3.0]),))]


def export(name, fn, inputs, dynamic):
    mod = fn if isinstance(fn, torch.nn.Module) else Fn(fn)
    ds = None
    if dynamic:
        ds = []
        for i in range(len(inputs)):
            spec = dynamic.get(i)
            ds.append({d: torch.export.Dim(n, min=2, max=64) for d, n in spec.items()} if spec else None)
        ds = (tuple(ds),)
    ep = torch.export.export(mod, tuple(inputs), dynamic_shapes=ds)
    return ep


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    index = []
    for name, mod, inputs in MODULES:
        # Exported from a copy, so that the run below starts from the same state.
        import copy
        ep = export(name, copy.deepcopy(mod), inputs, None)
        torch.export.save(ep, os.path.join(outdir, name + ".pt2"))
        with torch.no_grad():
            first = mod(*inputs)
            second = mod(*inputs)
        io = {f"input.{i}": x.contiguous() for i, x in enumerate(inputs)}
        io["output.0"] = first.contiguous()
        io["second.0"] = second.contiguous()  # the output of a second run
        save_file(io, os.path.join(outdir, name + ".io.safetensors"))
        index.append({"name": name, "ops": sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})})
    for name, fn, inputs, dynamic in CASES:
        try:
            ep = export(name, fn, inputs, dynamic)
            with torch.no_grad():
                Fn(fn)(*[x.clone() for x in inputs])  # PyTorch must accept it eagerly too
        except Exception as e:  # noqa: BLE001
            print(f"skip {name}: {e}", file=sys.stderr)
            continue
        torch.export.save(ep, os.path.join(outdir, name + ".pt2"))
        if dynamic:
            # Run at another size than the export's example: grow each
            # dynamic dim by 2.
            grown = []
            for i, x in enumerate(inputs):
                for d in (dynamic.get(i) or {}):
                    x = torch.cat([x, x.narrow(d, 0, 2)], dim=d)
                grown.append(x)
            inputs = tuple(grown)
        with torch.no_grad():
            outs = Fn(fn)(*[x.clone() for x in inputs])
        flat = list(outs)
        io = {f"input.{i}": x.contiguous() for i, x in enumerate(inputs)}
        io.update({f"output.{i}": o.contiguous() for i, o in enumerate(flat)})
        save_file(io, os.path.join(outdir, name + ".io.safetensors"))
        ops = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
        index.append({"name": name, "ops": ops})
    with open(os.path.join(outdir, "INDEX.json"), "w") as f:
        json.dump({"torch": torch.__version__, "cases": index}, f, indent=1)
    print(f"{len(index)} cases")


if __name__ == "__main__":
    main(sys.argv[1])
