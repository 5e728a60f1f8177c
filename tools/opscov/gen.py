"""Cases for user-facing ops added to the registry: logcumsumexp,
linalg.det / det, vander / linalg.vander, multi_margin_loss,
multilabel_margin_loss and the torch.fft user ops (fft, ifft, rfft, irfft,
hfft, ihfft and their 2-D / n-D forms, fftshift, fftfreq) together with
the _fft_c2c / _fft_r2c / _fft_c2r prims they decompose to. Each NAME.pt2
(torch.export.save; "_core" cases after run_decompositions) with
NAME.io.safetensors holding the inputs and PyTorch's eager outputs.

    cd tools/opscov && /work/shared/tools/torch-oracle run sid -- python3 gen.py out
    rm -rf ../../aten/testdata/opscov && mv out ../../aten/testdata/opscov

and with torch 2.6 (the legacy .pt2 layout; its safetensors cannot hold
complex64, so the complex cases are left out there):

    /work/shared/tools/torch-oracle run trixie -- python3 gen.py out26
    rm -rf ../../aten/testdata/opscov-torch2.6 && mv out26 ../../aten/testdata/opscov-torch2.6

safetensors cannot hold complex128: float64 FFT cases build complex inputs
with torch.complex and return torch.view_as_real of complex outputs.
Cases PyTorch rejects are written to ERRORS.json (name and message) so
the Go test can check that the lowering rejects them too.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

out = sys.argv[1] if len(sys.argv) > 1 else "out"
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
INDEX = []
ERRORS = []


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def case(name, fn, *xs, core=True, dynamic=None, alt=None):
    """Exports fn twice: as is (the user-facing op) and, with core, after
    run_decompositions (the Core ATen / prims form). With dynamic (specs
    for torch.export's dynamic_shapes), alt is a second input set of other
    sizes, saved with PyTorch's outputs as NAME.alt.io.safetensors."""
    m = Fn(fn)
    try:
        with torch.no_grad():
            o = m(*xs)
    except Exception as e:
        ERRORS.append({"name": name, "error": f"{type(e).__name__}: {str(e).splitlines()[0]}"})
        return
    if not isinstance(o, (tuple, list)):
        o = (o,)
    # resolve_conj: ifft/ihfft of a real input return a lazily conjugated
    # view, whose storage (what save_file writes) is not conjugated.
    t = {f"input.{i}": x.resolve_conj().contiguous() for i, x in enumerate(xs)}
    t.update({f"output.{i}": y.resolve_conj().contiguous() for i, y in enumerate(o)})
    forms = [(name, False)] + ([(name + "_core", True)] if core else [])
    for nm, dec in forms:
        try:
            ep = torch.export.export(m, tuple(xs), dynamic_shapes=None if dynamic is None else (tuple(dynamic),))
            if dec:
                ep = ep.run_decompositions()
            # io first: an older safetensors cannot write complex tensors,
            # and a program without its io file is no case.
            save_file(t, os.path.join(out, nm + ".io.safetensors"))
            if alt is not None:
                with torch.no_grad():
                    ao = m(*alt)
                ao = ao if isinstance(ao, (tuple, list)) else (ao,)
                at = {f"input.{i}": x.contiguous() for i, x in enumerate(alt)}
                at.update({f"output.{i}": y.resolve_conj().contiguous() for i, y in enumerate(ao)})
                save_file(at, os.path.join(out, nm + ".alt.io.safetensors"))
            torch.export.save(ep, os.path.join(out, nm + ".pt2"))
            ops = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
            INDEX.append({"name": nm, "ops": ops})
        except Exception as e:
            for ext in (".io.safetensors", ".alt.io.safetensors", ".pt2"):
                if os.path.exists(os.path.join(out, nm + ext)):
                    os.remove(os.path.join(out, nm + ext))
            print(f"{nm}: {type(e).__name__}: {str(e).splitlines()[0]}", file=sys.stderr)


def error_case(name, fn, *xs):
    """A program PyTorch exports but rejects when run: NAME.pt2 with
    NAME.io.safetensors holding the inputs only, and the eager error in
    ERRORS.json (with exported: true)."""
    m = Fn(fn)
    try:
        with torch.no_grad():
            m(*xs)
        print(f"{name}: PyTorch accepted it", file=sys.stderr)
        return
    except Exception as e:
        msg = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    try:
        ep = torch.export.export(m, tuple(xs))
    except Exception as e:
        print(f"{name}: export failed: {type(e).__name__}: {str(e).splitlines()[0]}", file=sys.stderr)
        return
    torch.export.save(ep, os.path.join(out, name + ".pt2"))
    save_file({f"input.{i}": x.contiguous() for i, x in enumerate(xs)}, os.path.join(out, name + ".io.safetensors"))
    ERRORS.append({"name": name, "error": msg, "exported": True})


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


inf, nan = float("inf"), float("nan")

# logcumsumexp
case("lcse_f32", lambda x: torch.logcumsumexp(x, 1), r(3, 7))
case("lcse_f64_dim0", lambda x: torch.logcumsumexp(x, 0), r(5, 3, dtype=torch.float64))
case("lcse_negdim_3d", lambda x: torch.logcumsumexp(x, -2), r(2, 6, 3))
case("lcse_inf_nan", lambda x: torch.logcumsumexp(x, 1), torch.tensor(
    [[-inf, -inf, 1.0, inf, 2.0, inf], [nan, 1.0, 2.0, 3.0, -inf, 0.0], [1.0, -inf, inf, -inf, inf, nan],
     [inf, inf, -inf, 5.0, -inf, -inf]]))
case("lcse_large", lambda x: torch.logcumsumexp(x, 0), torch.tensor([1000.0, -1000.0, 999.0, 1e-30, -88.0, 1000.0]))
case("lcse_large_f64", lambda x: torch.logcumsumexp(x, 0), torch.tensor([700.0, -700.0, 710.0, 1e-300, 0.5], dtype=torch.float64))
case("lcse_empty", lambda x: torch.logcumsumexp(x, 0), r(0, 3))
case("lcse_empty_dim", lambda x: torch.logcumsumexp(x, 1), r(4, 0))
case("lcse_0d", lambda x: torch.logcumsumexp(x, 0), torch.tensor(1.5))
case("lcse_bf16", lambda x: torch.logcumsumexp(x, 1), r(2, 9, dtype=torch.bfloat16))
case("lcse_f16", lambda x: torch.logcumsumexp(x, 1), r(2, 9, dtype=torch.float16))
case("lcse_int_error", lambda x: torch.logcumsumexp(x, 0), torch.tensor([1, 2, 3]))

# det
sing = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
case("det_batched", lambda x: torch.det(x), r(2, 3, 4, 4))
case("det_linalg_f64", lambda x: torch.linalg.det(x), r(5, 5, dtype=torch.float64))
case("det_singular", lambda x: torch.linalg.det(x), torch.stack([sing, torch.zeros(3, 3), torch.eye(3), torch.tensor([[0.0, 1, 0], [0, 0, 1], [1, 0, 0]])]))
case("det_singular_f64", lambda x: torch.det(x), torch.stack([sing, torch.ones(3, 3)]).double())
case("det_1x1", lambda x: torch.det(x), r(3, 1, 1))
case("det_0x0", lambda x: torch.linalg.det(x), r(2, 0, 0))
case("det_empty_batch", lambda x: torch.linalg.det(x), r(0, 3, 3))
case("det_int_error", lambda x: torch.linalg.det(x), torch.ones(3, 3, dtype=torch.int64))
case("det_nonsquare_error", lambda x: torch.linalg.det(x), r(2, 3))

# vander
case("vander_default", lambda x: torch.vander(x), r(5))
case("vander_N", lambda x: torch.vander(x, N=3), r(4))
case("vander_increasing", lambda x: torch.vander(x, N=6, increasing=True), r(4))
case("vander_int", lambda x: torch.vander(x), torch.tensor([1, 2, -3, 0], dtype=torch.int32))
case("vander_bool", lambda x: torch.vander(x, N=3), torch.tensor([True, False]))
case("vander_f64_N0", lambda x: torch.vander(x, N=0), r(3, dtype=torch.float64))
case("vander_N1", lambda x: torch.vander(x, N=1), r(3))
case("vander_empty", lambda x: torch.vander(x), r(0))
case("vander_2d_error", lambda x: torch.vander(x), r(2, 2))
case("linalg_vander", lambda x: torch.linalg.vander(x), r(5))
case("linalg_vander_batch_N", lambda x: torch.linalg.vander(x, N=4), r(2, 3, dtype=torch.float64))
case("linalg_vander_int", lambda x: torch.linalg.vander(x, N=5), torch.tensor([[2, -1, 3]], dtype=torch.int8))
case("linalg_vander_0d", lambda x: torch.linalg.vander(x, N=3), torch.tensor(2.5))
case("linalg_vander_N1_error", lambda x: torch.linalg.vander(x, N=1), r(3))

# multi_margin_loss
x46, t4 = r(4, 6), torch.tensor([0, 5, 2, 2])
w6 = torch.rand(6) + 0.2
case("mml_mean", lambda x, t: F.multi_margin_loss(x, t), x46, t4)
case("mml_p2_sum", lambda x, t: F.multi_margin_loss(x, t, p=2, reduction="sum"), x46, t4)
case("mml_none_margin", lambda x, t: F.multi_margin_loss(x, t, margin=0.3, reduction="none"), x46, t4)
case("mml_weight", lambda x, t, w: F.multi_margin_loss(x, t, weight=w), x46, t4, w6)
case("mml_weight_p2_none", lambda x, t, w: F.multi_margin_loss(x, t, p=2, margin=2.5, weight=w, reduction="none"), x46, t4, w6)
case("mml_f64", lambda x, t: F.multi_margin_loss(x, t, margin=1.5), r(3, 5, dtype=torch.float64), torch.tensor([4, 0, 1]))
case("mml_1d", lambda x, t: F.multi_margin_loss(x, t, reduction="none"), r(5), torch.tensor([3]))
case("mml_1d_0d_target", lambda x, t: F.multi_margin_loss(x, t, reduction="none"), r(5), torch.tensor(1))
# (With no samples, mean and sum return the kernel's uninitialized output:
# not cases.)
case("mml_empty_none", lambda x, t: F.multi_margin_loss(x, t, reduction="none"), r(0, 4), torch.zeros(0, dtype=torch.int64))
case("mml_ties_inf", lambda x, t: F.multi_margin_loss(x, t, reduction="none"), torch.tensor([[1.0, 1.0, 1.0], [inf, 0.0, 2.0], [0.0, -inf, 1.0]]), torch.tensor([0, 0, 2]))
case("mml_p3_error", lambda x, t: F.multi_margin_loss(x, t, p=3), x46, t4)

# multilabel_margin_loss
x45 = r(4, 5)
tgt = torch.tensor([[3, 0, -1, 1, 1], [0, 1, 2, 3, 4], [-1, 2, 3, 0, 0], [4, 4, -1, 2, 2]])
case("mlml_mean", lambda x, t: F.multilabel_margin_loss(x, t), x45, tgt)
case("mlml_sum", lambda x, t: F.multilabel_margin_loss(x, t, reduction="sum"), x45, tgt)
case("mlml_none", lambda x, t: F.multilabel_margin_loss(x, t, reduction="none"), x45, tgt)
case("mlml_f64", lambda x, t: F.multilabel_margin_loss(x, t, reduction="none"), x45.double(), tgt)
case("mlml_1d", lambda x, t: F.multilabel_margin_loss(x, t, reduction="none"), r(4), torch.tensor([2, 1, -1, 0]))
case("mlml_empty_none", lambda x, t: F.multilabel_margin_loss(x, t, reduction="none"), r(0, 3), torch.zeros(0, 3, dtype=torch.int64))
case("mlml_forward", lambda x, t: torch.ops.aten.multilabel_margin_loss_forward(x, t, 1), x45, tgt)

# torch.fft user ops
c = lambda *s: torch.randn(*s, dtype=torch.complex64)
case("fft_fft_real", lambda x: torch.fft.fft(x), r(3, 8))
case("fft_fft_complex", lambda x: torch.fft.fft(x), c(3, 7))
case("fft_fft_n_pad_ortho", lambda x: torch.fft.fft(x, n=10, norm="ortho"), c(2, 7))
case("fft_fft_n_crop_forward_dim0", lambda x: torch.fft.fft(x, n=4, dim=0, norm="forward"), c(6, 3))
case("fft_fft_int", lambda x: torch.fft.fft(x), torch.arange(6))
case("fft_ifft_real", lambda x: torch.fft.ifft(x), r(2, 6))
case("fft_ifft_complex_ortho", lambda x: torch.fft.ifft(x, norm="ortho"), c(4, 5))
case("fft_ifft_forward", lambda x: torch.fft.ifft(x, n=9, norm="forward"), c(2, 7))
case("fft_rfft", lambda x: torch.fft.rfft(x), r(3, 10))
case("fft_rfft_n_ortho", lambda x: torch.fft.rfft(x, n=7, norm="ortho", dim=0), r(5, 2))
case("fft_irfft", lambda x: torch.fft.irfft(x), c(3, 5))
case("fft_irfft_n_odd", lambda x: torch.fft.irfft(x, n=9, norm="ortho"), c(2, 4))
case("fft_irfft_n_forward", lambda x: torch.fft.irfft(x, n=6, norm="forward"), c(2, 7))
case("fft_hfft", lambda x: torch.fft.hfft(x), c(2, 5))
case("fft_hfft_n_ortho", lambda x: torch.fft.hfft(x, n=7, norm="ortho"), c(3, 4))
case("fft_ihfft", lambda x: torch.fft.ihfft(x), r(3, 8))
case("fft_ihfft_n_forward", lambda x: torch.fft.ihfft(x, n=5, norm="forward"), r(2, 7))
case("fft_fft2", lambda x: torch.fft.fft2(x), r(2, 4, 6))
case("fft_fft2_s", lambda x: torch.fft.fft2(x, s=(3, 8), norm="ortho"), c(2, 4, 6))
case("fft_ifft2", lambda x: torch.fft.ifft2(x), c(3, 5, 4))
case("fft_fftn_all", lambda x: torch.fft.fftn(x), c(3, 4, 5))
case("fft_fftn_dims", lambda x: torch.fft.fftn(x, dim=(0, 2), norm="forward"), r(3, 4, 5))
case("fft_ifftn_s", lambda x: torch.fft.ifftn(x, s=(4, -1)), c(2, 3, 5))
case("fft_rfft2", lambda x: torch.fft.rfft2(x), r(2, 6, 8))
case("fft_rfftn_s", lambda x: torch.fft.rfftn(x, s=(5, 4), norm="ortho"), r(4, 6))
case("fft_irfft2", lambda x: torch.fft.irfft2(x), c(2, 4, 5))
case("fft_irfftn_s", lambda x: torch.fft.irfftn(x, s=(3, 7), norm="forward"), c(4, 4))
case("fft_hfft2", lambda x: torch.fft.hfft2(x), c(3, 4))
case("fft_ihfft2", lambda x: torch.fft.ihfft2(x), r(4, 6))
case("fft_hfftn_3d", lambda x: torch.fft.hfftn(x, dim=(0, 1, 2)), c(2, 3, 4))
case("fft_ihfftn_s", lambda x: torch.fft.ihfftn(x, s=(3, 6), norm="ortho"), r(4, 5))
case("fft_fftshift", lambda x: torch.fft.fftshift(x), r(5, 6))
case("fft_ifftshift_dim", lambda x: torch.fft.ifftshift(x, dim=1), r(3, 7))
case("fft_fftfreq", lambda x: torch.fft.fftfreq(7, d=0.3) + x, torch.zeros(()))
case("fft_fftfreq_even_f64", lambda x: torch.fft.fftfreq(8, dtype=torch.float64) + x, torch.zeros((), dtype=torch.float64))
case("fft_rfftfreq", lambda x: torch.fft.rfftfreq(9, d=2.0) + x, torch.zeros(()))
case("fft_fft_empty_batch", lambda x: torch.fft.fft(x), c(0, 4))
case("fft_rfft_f64", lambda x: torch.view_as_real(torch.fft.rfft(x, norm="ortho")), r(3, 12, dtype=torch.float64))
case("fft_fft_c128", lambda a, b: torch.view_as_real(torch.fft.fft(torch.complex(a, b), n=12)), r(2, 9, dtype=torch.float64), r(2, 9, dtype=torch.float64))
case("fft_irfft_c128", lambda a, b: torch.fft.irfft(torch.complex(a, b), n=10), r(2, 6, dtype=torch.float64), r(2, 6, dtype=torch.float64))
case("fft_fft2_c128", lambda a, b: torch.view_as_real(torch.fft.ifft2(torch.complex(a, b), norm="forward")), r(3, 4, 5, dtype=torch.float64), r(3, 4, 5, dtype=torch.float64))
case("fft_large_1d", lambda x: torch.fft.fft(x), r(2, 512))
case("fft_large_rfft2", lambda x: torch.fft.rfft2(x), r(64, 48))
case("fft_c2c_prim", lambda x: torch.ops.aten._fft_c2c(x, [0, 2], 1, False), c(3, 2, 4), core=False)
case("fft_c2c_prim_fwd", lambda x: torch.ops.aten._fft_c2c(x, [1], 2, True), c(3, 5), core=False)
case("fft_fft_n0_error", lambda x: torch.fft.fft(x, n=0), r(4))
case("fft_rfft_complex_error", lambda x: torch.fft.rfft(x), c(4))
case("fft_norm_error", lambda x: torch.fft.fft(x, norm="bogus"), r(4))
case("fft_f16_error", lambda x: torch.fft.fft(x), r(4, dtype=torch.float16))

# Integer division by a Python-scalar zero: PyTorch raises ZeroDivisionError
# whatever the input, so the lowering can reject it.
ia = torch.tensor([7, -7, 3])
error_case("zerodiv_floordiv_scalar", lambda x: x // 0, ia)
error_case("zerodiv_div_trunc_scalar", lambda x: torch.div(x, 0, rounding_mode="trunc"), ia)
error_case("zerodiv_div_floor_scalar", lambda x: torch.div(x, 0, rounding_mode="floor"), ia.int())
error_case("zerodiv_remainder_scalar", lambda x: x % 0, ia)
error_case("zerodiv_fmod_scalar", lambda x: torch.fmod(x, 0), ia.to(torch.int16))
error_case("zerodiv_remainder_u8", lambda x: torch.remainder(x, 0), ia.abs().to(torch.uint8))
# A float result divides by zero without error.
case("zerodiv_floordiv_float_scalar", lambda x: x // 0.0, ia, core=False)
case("zerodiv_true_div_int", lambda x: x / 0, ia, core=False)

# Complex inputs (appended with their own seed so that the cases above keep
# their inputs).
torch.manual_seed(1)
case("vander_complex", lambda x: torch.vander(x, N=4), torch.randn(3, dtype=torch.complex64))
case("linalg_vander_complex", lambda x: torch.linalg.vander(x), torch.randn(2, 3, dtype=torch.complex64))
case("lcse_complex", lambda x: torch.logcumsumexp(x, 0), torch.randn(4, dtype=torch.complex64))
case("lcse_complex_f64_dim1", lambda a, b: torch.view_as_real(torch.logcumsumexp(torch.complex(a, b), 1)), r(2, 5, dtype=torch.float64), r(2, 5, dtype=torch.float64))
case("lcse_complex_inf_nan", lambda x: torch.logcumsumexp(x, 1), torch.tensor(
    [[complex(-inf, 0), complex(1, 2), complex(-inf, 1), complex(3, -1)],
     [complex(-inf, 0), complex(-inf, 1), complex(0.5, 0.5), complex(1, nan)],
     [complex(inf, 0.5), complex(1, 1), complex(2, -2), complex(-1, 0)],
     [complex(nan, 0), complex(1, 1), complex(2, 0), complex(3, 0)]], dtype=torch.complex64))

# Backward of the margin losses: aten ops called directly, grad_output of
# the loss's shape, is_target from the real forward.
torch.manual_seed(3)
aten = torch.ops.aten


def mml_bwd(name, x, t, p, margin, w, red):
    loss = aten.multi_margin_loss(x, t, p, margin, w, red)
    go = torch.randn(loss.shape, dtype=x.dtype)
    if w is None:
        case(name, lambda go, x, t: aten.multi_margin_loss_backward(go, x, t, p, margin, None, red), go, x, t, core=False)
    else:
        case(name, lambda go, x, t, w: aten.multi_margin_loss_backward(go, x, t, p, margin, w, red), go, x, t, w, core=False)


mml_bwd("mml_bwd_mean", r(4, 6), torch.tensor([0, 5, 2, 2]), 1, 1.0, None, 1)
mml_bwd("mml_bwd_p2_sum_weight", r(4, 6), torch.tensor([0, 5, 2, 2]), 2, 0.7, torch.rand(6) + 0.2, 2)
mml_bwd("mml_bwd_none", r(5, 3), torch.tensor([2, 1, 0, 0, 2]), 1, 1.5, None, 0)
mml_bwd("mml_bwd_f64_p2_none_weight", r(3, 4, dtype=torch.float64), torch.tensor([3, 0, 1]), 2, 1.0, torch.rand(4, dtype=torch.float64), 0)
mml_bwd("mml_bwd_1d", r(5), torch.tensor([3]), 1, 1.0, None, 1)


def mlml_bwd(name, x, t, red):
    loss, ist = aten.multilabel_margin_loss_forward(x, t, red)
    go = torch.randn(loss.shape, dtype=x.dtype)
    case(name, lambda go, x, t, ist: aten.multilabel_margin_loss_backward(go, x, t, red, ist), go, x, t, ist, core=False)


mtgt = torch.tensor([[3, 0, -1, 1, 1], [0, 1, 2, 3, 4], [-1, 2, 3, 0, 0], [4, 4, -1, 2, 2]])
mlml_bwd("mlml_bwd_mean", r(4, 5), mtgt, 1)
mlml_bwd("mlml_bwd_sum", r(4, 5), mtgt, 2)
mlml_bwd("mlml_bwd_none", r(4, 5), mtgt, 0)
mlml_bwd("mlml_bwd_f64_none", r(4, 5, dtype=torch.float64), mtgt, 0)
mlml_bwd("mlml_bwd_1d", r(4), torch.tensor([2, 1, -1, 0]), 0)

# A symbolic batch dim.
torch.manual_seed(2)
B = torch.export.Dim("B", min=2, max=64)
case("dyn_lcse", lambda x: torch.logcumsumexp(x, 1), r(4, 6), dynamic=({0: B},), alt=(r(7, 6),))
case("fft_dyn_rfft", lambda x: torch.fft.rfft(x, norm="ortho"), r(4, 10), dynamic=({0: B},), alt=(r(7, 10),))
case("fft_dyn_fft2", lambda x: torch.fft.fft2(x), r(3, 4, 6), dynamic=({0: B},), alt=(r(5, 4, 6),))
case("dyn_mml", lambda x, t: F.multi_margin_loss(x, t), r(4, 6), torch.tensor([0, 5, 2, 2]), dynamic=({0: B}, {0: B}),
     alt=(r(7, 6), torch.tensor([1, 0, 5, 5, 3, 2, 4])))
case("dyn_det", lambda x: torch.linalg.det(x), r(4, 3, 3), dynamic=({0: B},), alt=(r(9, 3, 3),))
case("dyn_linalg_vander", lambda x: torch.linalg.vander(x), r(4, 3), dynamic=({0: B},), alt=(r(6, 3),))

with open(os.path.join(out, "INDEX.json"), "w") as f:
    json.dump({"torch": torch.__version__, "cases": INDEX}, f, indent=1)
with open(os.path.join(out, "ERRORS.json"), "w") as f:
    json.dump(ERRORS, f, indent=1)
print(f"{len(INDEX)} cases, {len(ERRORS)} rejected by PyTorch")
