"""Users' lowerings: ``torchtpu.register_lowering`` puts a custom op on
torchtpu, under torch.compile and on the tpu device; users' own tpu kernels
(``torch.library.register_kernel(op, "tpu")``) run beside the fallback."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import torchtpu


@torch.library.custom_op("tt_low::mysin", mutates_args=())
def mysin(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x)


@mysin.register_fake
def _(x):
    return torch.empty_like(x)


@torchtpu.register_lowering(mysin)
def _(x):
    return torch.sin(x)


# A straight-through estimator: the forward rounds, the backward passes the
# gradient through. Its lowering (torch.round) has a zero derivative, so the
# gradients show that the op's own formula made the backward.
@torch.library.custom_op("tt_low::ste_round", mutates_args=())
def ste_round(x: torch.Tensor) -> torch.Tensor:
    return torch.round(x)


@ste_round.register_fake
def _(x):
    return torch.empty_like(x)


ste_round.register_autograd(lambda ctx, g: g, setup_context=lambda ctx, inputs, output: None)
torchtpu.register_lowering(ste_round, lambda x: torch.round(x))


@torch.library.custom_op("tt_low::minmax", mutates_args=())
def minmax(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x.amin(-1), x.amax(-1)


@minmax.register_fake
def _(x):
    return x.new_empty(x.shape[:-1]), x.new_empty(x.shape[:-1])


@torchtpu.register_lowering(minmax)
def _(x):
    return x.amin(-1), x.amax(-1)


@torch.library.custom_op("tt_low::scale_", mutates_args=("x",))
def scale_(x: torch.Tensor, s: float) -> None:
    x.mul_(s)


@torchtpu.register_lowering(scale_)
def _(x, s):
    x.mul_(s)


# An op whose only kernel is a CPU one: on the tpu device the fallback
# would run it on the CPU.
@torch.library.custom_op("tt_low::cpu_only", mutates_args=(), device_types="cpu")
def cpu_only(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(x.numpy() * 2 + 1)


@cpu_only.register_fake
def _(x):
    return torch.empty_like(x)


class Sandwich(nn.Module):
    def __init__(self, op) -> None:
        super().__init__()
        self.a, self.b, self.op = nn.Linear(8, 16), nn.Linear(16, 4), op

    def forward(self, x):
        return self.b(self.op(self.a(x)).relu())


def _one_entry(kind=None):
    es = [e for e in torchtpu.report()["entries"] if kind is None or e["kind"] == kind]
    assert len(es) == 1, es
    return es[0]


def test_registered_op_runs_on_torchtpu():
    torch.manual_seed(0)
    m, x = Sandwich(mysin), torch.randn(4, 8)
    with torch.no_grad():
        got = torch.compile(m, backend="torchtpu", options={"fallback": "error"})(x)
    torch.testing.assert_close(got, m(x))
    e = _one_entry()
    assert e["ran_on"] == "torchtpu" and e["nodes_on_eager"] == 0, e


def test_training_uses_the_ops_autograd_formula():
    torch.manual_seed(0)
    m, x = Sandwich(ste_round), torch.randn(4, 8) * 3
    ref = Sandwich(ste_round)
    ref.load_state_dict(m.state_dict())
    torch.compile(m, backend="torchtpu", options={"fallback": "error"})(x).sum().backward()
    ref(x).sum().backward()
    assert m.a.weight.grad.abs().sum() > 0  # the gradient went through the op
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad)
    for kind in ("forward", "backward"):
        e = _one_entry(kind)
        assert e["ran_on"] == "torchtpu" and e["nodes_on_eager"] == 0, e


def test_several_outputs_and_dynamic_shapes():
    def f(x):
        lo, hi = minmax(x * 2)
        return hi - lo

    cf = torch.compile(f, backend="torchtpu", options={"fallback": "error"})
    for n in (3, 6, 11):
        x = torch.randn(n, 5)
        torch._dynamo.mark_dynamic(x, 0)
        torch.testing.assert_close(cf(x), f(x))
    e = _one_entry()
    assert e["nodes_on_eager"] == 0 and e["runs"] == 3, e


def test_mutating_op():
    def f(a, b):
        h = a + 1
        scale_(h, 3.0)
        scale_(b, 0.5)  # mutates an input
        return h * b

    a, b = torch.randn(4, 4), torch.randn(4, 4)
    b_eager, b_comp = b.clone(), b.clone()
    want = f(a, b_eager)
    got = torch.compile(f, backend="torchtpu", options={"fallback": "error"})(a, b_comp)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(b_comp, b_eager)
    assert _one_entry()["nodes_on_eager"] == 0


def test_bad_lowerings_name_the_op():
    @torch.library.custom_op("tt_low::bad_shape", mutates_args=())
    def bad_shape(x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    @bad_shape.register_fake
    def _(x):
        return torch.empty_like(x)

    torchtpu.register_lowering(bad_shape, lambda x: x.sum(0))
    with pytest.raises(Exception) as ei:
        torch.compile(lambda x: bad_shape(x) + 1, backend="torchtpu")(torch.randn(3, 4))
    msg = str(ei.value)
    assert "lowering of tt_low::bad_shape.default" in msg and "shape (4,)" in msg and "(3, 4)" in msg, msg
    assert "test_lowering.py" in msg

    @torch.library.custom_op("tt_low::bad_dtype", mutates_args=())
    def bad_dtype(x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    @bad_dtype.register_fake
    def _(x):
        return torch.empty_like(x)

    torchtpu.register_lowering(bad_dtype, lambda x: x.double())
    with pytest.raises(Exception, match=r"lowering of tt_low::bad_dtype.default .*dtype torch.float64"):
        torch.compile(lambda x: bad_dtype(x) + 1, backend="torchtpu")(torch.randn(3, 4))

    @torch.library.custom_op("tt_low::raises", mutates_args=())
    def raises(x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    @raises.register_fake
    def _(x):
        return torch.empty_like(x)

    @torchtpu.register_lowering(raises)
    def _(x):
        raise ValueError("not today")

    with pytest.raises(Exception, match=r"lowering of tt_low::raises.default .*raised ValueError: not today"):
        torch.compile(lambda x: raises(x) + 1, backend="torchtpu")(torch.randn(3, 4))
    with pytest.raises(Exception, match=r"lowering of tt_low::raises.default .*raised ValueError: not today"):
        raises(torch.randn(3, 4).to("tpu"))


def test_exported_program_decomposes_with_the_lowerings():
    torch.manual_seed(0)
    m, x = Sandwich(mysin).eval(), torch.randn(4, 8)
    ep = torch.export.export(m, (x,)).run_decompositions(torchtpu.lowerings())
    assert "tt_low" not in str(ep.graph)
    torch.testing.assert_close(ep.module()(x), m(x))


# ---- the tpu device ----------------------------------------------------------

def _cpu_calls(name):
    return sum(f["calls"] for f in torch.tpu.fallbacks() if f["op"] == name)


def test_device_runs_the_lowering_without_cpu_fallback():
    x = torch.randn(4, 8)
    got = mysin(x.to("tpu"))
    assert got.device.type == "tpu"
    torch.testing.assert_close(got.cpu(), torch.sin(x))
    assert _cpu_calls("tt_low::mysin.default") == 0
    y = x.to("tpu")
    scale_(y, 2.0)
    torch.testing.assert_close(y.cpu(), x * 2)


def test_device_cpu_only_op_before_and_after_registration():
    x = torch.randn(3, 3)
    before = _cpu_calls("tt_low::cpu_only.default")
    torch.testing.assert_close(cpu_only(x.to("tpu")).cpu(), x * 2 + 1)  # the fallback: its CPU kernel
    assert _cpu_calls("tt_low::cpu_only.default") == before + 1
    torchtpu.register_lowering(cpu_only, lambda t: t * 2 + 1)
    torch.testing.assert_close(cpu_only(x.to("tpu")).cpu(), x * 2 + 1)
    assert _cpu_calls("tt_low::cpu_only.default") == before + 1  # no more CPU calls


def test_users_tpu_kernel_is_called_with_tpu_tensors():
    @torch.library.custom_op("tt_low::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    seen = []

    @torch.library.register_kernel("tt_low::twice", "tpu")
    def _(x):
        seen.append(x.device.type)
        return x + x  # runs on the engine

    x = torch.randn(5)
    torch.testing.assert_close(twice(x.to("tpu")).cpu(), x * 2)
    torch.testing.assert_close(twice(x), x * 2)  # the CPU kernel is untouched
    assert seen == ["tpu"]
    assert _cpu_calls("tt_low::twice.default") == 0


_CPP_KERNEL = r"""
#include <ATen/ATen.h>
#include <torch/library.h>
#include <atomic>

static std::atomic<int64_t> calls{0};

// A user's own kernel for the tpu device: it gets tpu tensors and computes
// with ATen ops, which the device runs on the engine.
at::Tensor scaled_sin_tpu(const at::Tensor& x) {
  TORCH_CHECK(x.device().type() == c10::DeviceType::PrivateUse1, "scaled_sin_tpu: want a tpu tensor, got ", x.device());
  calls++;
  return at::sin(x) * 3;
}

extern "C" int64_t tpu_calls() { return calls.load(); }

TORCH_LIBRARY_IMPL(tt_cpp, PrivateUse1, m) { m.impl("scaled_sin", &scaled_sin_tpu); }
"""


def _build_user_library(src: str, out) -> str:
    """Builds a user's kernel library against the running torch, as a C++
    user does with libtorch (the compiler, torch's headers and libraries;
    torch.utils.cpp_extension's JIT would also want ninja, which Debian's
    chroot lacks)."""
    import shutil
    import subprocess

    from torch.utils import cpp_extension

    cxx = shutil.which("g++") or shutil.which("c++")
    assert cxx, "a C++ compiler is needed to build the user's kernel library"
    (out / "kernel.cpp").write_text(src)
    lib = out / "libuser_kernel.so"
    cmd = [cxx, "-O0", "-std=c++20", "-shared", "-fPIC", "-w",
           f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}",
           *[f"-I{p}" for p in cpp_extension.include_paths()], str(out / "kernel.cpp"), "-o", str(lib),
           *[f"-L{p}" for p in cpp_extension.library_paths()], "-lc10", "-ltorch_cpu"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    return str(lib)


def test_torch_library_impl_kernel_for_privateuse1(tmp_path):
    """A C++ kernel registered with TORCH_LIBRARY_IMPL(ns, PrivateUse1, m)
    is called with tpu tensors, beside the device's fallback."""
    import ctypes

    from conftest import TEST_ENV

    if TEST_ENV == "wheel":
        pytest.skip("the wheel's test environment has no C++ compiler by design (the chroot runs this test)")
    torch.library.define("tt_cpp::scaled_sin", "(Tensor x) -> Tensor")
    torch.library.impl("tt_cpp::scaled_sin", "cpu")(lambda x: torch.sin(x) * 3)
    lib = _build_user_library(_CPP_KERNEL, tmp_path)
    torch.ops.load_library(lib)
    tpu_calls = ctypes.CDLL(lib).tpu_calls
    tpu_calls.restype = ctypes.c_int64
    x = torch.randn(4, 5)
    before = _cpu_calls("tt_cpp::scaled_sin.default")
    got = torch.ops.tt_cpp.scaled_sin(x.to("tpu"))
    assert got.device.type == "tpu"
    torch.testing.assert_close(got.cpu(), torch.sin(x) * 3)
    assert tpu_calls() == 1
    assert _cpu_calls("tt_cpp::scaled_sin.default") == before  # no CPU fallback: the user's kernel ran
    torch.testing.assert_close(torch.ops.tt_cpp.scaled_sin(x), torch.sin(x) * 3)  # the CPU kernel is untouched
    assert tpu_calls() == 1


# ---- StableHLO lowerings (kernel authors, jax.export) ---------------------------

def _t(x) -> str:
    dt = {torch.float32: "f32", torch.float64: "f64"}[x.dtype]
    return f"tensor<{''.join(f'{d}x' for d in x.shape)}{dt}>"


def _sine_module(x) -> str:  # what jax.export(jax.jit(jnp.sin)) gives, in short
    t = _t(x)
    return (f"module @jit_sin {{\n  func.func public @main(%arg0: {t}) -> ({t} {{jax.result_info = \"\"}}) {{\n"
            f"    %0 = stablehlo.sine %arg0 : {t}\n    return %0 : {t}\n  }}\n}}")


@torch.library.custom_op("tt_hlo::mysin", mutates_args=())
def hlo_sin(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x)


@hlo_sin.register_fake
def _(x):
    return torch.empty_like(x)


hlo_sin.register_autograd(lambda ctx, g: g * ctx.saved_tensors[0].cos(),
                          setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]))
SEEN_SHAPES = []


def _logged_sine(x):
    SEEN_SHAPES.append(tuple(x.shape))
    return _sine_module(x)


torchtpu.register_stablehlo(hlo_sin, _logged_sine)


@torch.library.custom_op("tt_hlo::addmul", mutates_args=())
def hlo_addmul(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x + y, x * y


@hlo_addmul.register_fake
def _(x, y):
    return torch.empty_like(x), torch.empty_like(x)


def _addmul_module(x, y):
    t = _t(x)
    return (f"func.func public @main(%a: {t}, %b: {t}) -> ({t}, {t}) {{\n"
            f"  %0 = stablehlo.add %a, %b : {t}\n  %1 = call @mul(%a, %b) : ({t}, {t}) -> {t}\n"
            f"  return %0, %1 : {t}, {t}\n}}\n"
            f"func.func private @mul(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %0 = stablehlo.multiply %a, %b : {t}\n  return %0 : {t}\n}}")


torchtpu.register_stablehlo(hlo_addmul, _addmul_module)


def test_stablehlo_lowering_compiled_with_dynamic_shapes():
    def f(x):
        s, p = hlo_addmul(hlo_sin(x), x)
        return s - p

    cf = torch.compile(f, backend="torchtpu", options={"fallback": "error"})
    del SEEN_SHAPES[:]
    for n in (3, 5):
        x = torch.randn(n, 4)
        torch._dynamo.mark_dynamic(x, 0)
        torch.testing.assert_close(cf(x), f(x))
    assert SEEN_SHAPES == [(3, 4), (5, 4)]  # one module per specialisation
    e = _one_entry()
    assert e["ran_on"] == "torchtpu" and e["nodes_on_eager"] == 0, e


def test_stablehlo_lowering_trains_with_the_ops_formula():
    torch.manual_seed(0)
    m, x = Sandwich(hlo_sin), torch.randn(4, 8)
    ref = Sandwich(hlo_sin)
    ref.load_state_dict(m.state_dict())
    torch.compile(m, backend="torchtpu", options={"fallback": "error"})(x).sum().backward()
    ref(x).sum().backward()
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad)
    assert torchtpu.report()["nodes_on_eager"] == 0


def test_stablehlo_lowering_on_the_device_also_after_a_fallback():
    @torch.library.custom_op("tt_hlo::cpu_sin", mutates_args=(), device_types="cpu")
    def cpu_sin(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(x.numpy()).sin()

    @cpu_sin.register_fake
    def _(x):
        return torch.empty_like(x)

    x = torch.randn(2, 3)
    torch.testing.assert_close(cpu_sin(x.to("tpu")).cpu(), x.sin())  # the CPU fallback
    before = _cpu_calls("tt_hlo::cpu_sin.default")
    assert before == 1
    torchtpu.register_stablehlo(cpu_sin, _sine_module)
    torch.testing.assert_close(cpu_sin(x.to("tpu")).cpu(), x.sin())
    torch.testing.assert_close(hlo_sin(x.to("tpu")).cpu(), x.sin())
    assert _cpu_calls("tt_hlo::cpu_sin.default") == before
    assert _cpu_calls("tt_hlo::mysin.default") == 0


def test_bad_stablehlo_lowerings_name_the_op():
    @torch.library.custom_op("tt_hlo::wrong", mutates_args=())
    def wrong(x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    @wrong.register_fake
    def _(x):
        return torch.empty_like(x)

    def reduces(x):  # returns [cols], the fake kernel says [rows, cols]
        t, r = _t(x), f"tensor<{x.shape[1]}xf32>"
        return (f"func.func public @main(%x: {t}) -> {r} {{\n  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                f"  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : ({t}, tensor<f32>) -> {r}\n"
                f"  return %0 : {r}\n}}")

    torchtpu.register_stablehlo(wrong, reduces)
    with pytest.raises(Exception, match=r"tt_hlo::wrong.default") as ei:
        torch.compile(lambda x: wrong(x) + 1, backend="torchtpu")(torch.randn(3, 4))
    assert "[4]" in str(ei.value) or "4xf32" in str(ei.value), str(ei.value)
    with pytest.raises(Exception, match=r"tt_hlo::wrong.default"):
        wrong(torch.randn(3, 4).to("tpu")).cpu()

    @torch.library.custom_op("tt_hlo::broken", mutates_args=())
    def broken(x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    @broken.register_fake
    def _(x):
        return torch.empty_like(x)

    def raises(x):
        raise RuntimeError("no module today")

    torchtpu.register_stablehlo(broken, raises)
    with pytest.raises(Exception, match=r"StableHLO lowering of tt_hlo::broken.default .*no module today"):
        torch.compile(lambda x: broken(x) + 1, backend="torchtpu")(torch.randn(3, 4))
