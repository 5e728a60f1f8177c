"""Views and in-place ops on the tpu device keep PyTorch's aliasing semantics,
and type promotion, broadcasting, scalars and error messages are PyTorch's.
Each case runs the same function on CPU tensors and on tpu copies of them,
and compares the results and every input afterwards (writes through views
must land in the base tensor)."""

from __future__ import annotations

import warnings

import pytest
import torch

import torchtpu  # noqa: F401


def run_both(fn, *inputs):
    cpu = [x.clone() for x in inputs]
    tpu = [x.to("tpu") for x in inputs]
    want = fn(*cpu)
    got = fn(*tpu)
    want = want if isinstance(want, (tuple, list)) else (want,)
    got = got if isinstance(got, (tuple, list)) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, torch.Tensor):
            assert g.device.type == "tpu", g.device
            assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
            torch.testing.assert_close(g.cpu(), w, equal_nan=True)
        else:
            assert g == w
    for i, (g, w) in enumerate(zip(tpu, cpu)):
        torch.testing.assert_close(g.cpu(), w, msg=lambda m: f"input {i} after the call: {m}")


def x34():
    return torch.arange(12, dtype=torch.float32).reshape(3, 4)


VIEW_CASES = {
    "slice_iadd": lambda x: x[1:3].add_(1),
    "setitem_slice": lambda x: x.__setitem__((slice(1, 3),), 5.0),
    "column_imul": lambda x: x[:, 1].mul_(2),
    "strided_fill": lambda x: x[::2, ::3].fill_(-1),
    "transpose_inplace": lambda x: x.t().add_(torch.arange(3.0, device=x.device)),
    "view_setitem": lambda x: x.view(2, 6).__setitem__(0, 7.0),
    "as_strided_inplace": lambda x: x.as_strided((2, 2), (1, 2), 1).mul_(3),
    "chained_views": lambda x: x[::2][1:, 1:].fill_(9),
    "diagonal_zero": lambda x: x.diagonal().zero_(),
    "unsqueeze_expand_read": lambda x: (x[0].unsqueeze(0).expand(3, 4) + x),
    "unfold": lambda x: x.unfold(1, 2, 1).sum(-1),
    "unfold_write": lambda x: x.unfold(1, 2, 2).mul_(10),
    "narrow_select": lambda x: x.narrow(1, 1, 2).select(0, 2).sub_(100),
    "split_piece_inplace": lambda x: x.split(2, dim=1)[1].div_(4),
    "unbind_piece": lambda x: x.unbind(0)[2].neg_(),
    "reshape_of_transpose": lambda x: x.t().reshape(12).add(1),
    "contiguous_copy_no_alias": lambda x: x.t().contiguous().add_(1),
    "detach_shares": lambda x: x.detach().mul_(2),
    "index_put": lambda x: x.index_put_((torch.tensor([0, 2]),), torch.tensor(5.0)),
    "mask_assign": lambda x: x.__setitem__(x > 5, 0.0),
    "clamp_view": lambda x: x[1].clamp_(2, 6),
    "copy_into_view": lambda x: x[:, :2].copy_(x[:, 2:]),
    "flatten_alias": lambda x: x.flatten().__getitem__(slice(None, None, 5)),
}


@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_views_and_inplace(name):
    run_both(VIEW_CASES[name], x34())


def test_view_aliasing_is_storage_sharing():
    x = torch.zeros(3, 4, device="tpu")
    v = x[1:]
    assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert v.data_ptr() - x.data_ptr() == 4 * 4
    b = x.view(-1)
    b.add_(1)
    assert torch.equal(x.cpu(), torch.ones(3, 4))
    y = x.clone()
    assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()


def test_view_as_real_complex():
    z = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64)

    def f(z):
        r = torch.view_as_real(z)
        r[:, 1].mul_(-1)
        return r.sum(0)

    run_both(f, z)


def test_out_variants():
    a, b = torch.randn(3, 4), torch.randn(4)
    run_both(lambda a, b, o: torch.add(a, b, out=o), a, b, torch.empty(3, 4))
    run_both(lambda a, b, o: torch.mul(a, b, out=o[::2]), a[:2], b, torch.zeros(4, 4))
    run_both(lambda a, o: torch.sum(a, 0, out=o), a, torch.empty(4))
    # an empty out= tensor is resized silently, a non-empty one with a warning
    run_both(lambda a, b, o: torch.sub(a, b, out=o), a, b, torch.empty(0))
    for dev in ("cpu", "tpu"):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            o = torch.empty(2, device=dev)
            torch.add(a.to(dev), b.to(dev), out=o)
        assert o.shape == (3, 4)
        assert any("resized" in str(m.message) for m in w), dev


def test_out_dtype_cast():
    a = torch.arange(6, dtype=torch.int64)
    run_both(lambda a, o: torch.mul(a, 2, out=o), a, torch.empty(6, dtype=torch.float64))


PROMOTION = [
    (torch.int64, torch.float32), (torch.int32, torch.int64), (torch.uint8, torch.int8), (torch.bool, torch.int32),
    (torch.float16, torch.float32), (torch.bfloat16, torch.float16), (torch.float32, torch.float64),
    (torch.bool, torch.bool), (torch.int16, torch.float16), (torch.complex64, torch.float64),
]


@pytest.mark.parametrize("da,db", PROMOTION, ids=[f"{a}-{b}".replace("torch.", "") for a, b in PROMOTION])
def test_type_promotion_and_broadcasting(da, db):
    g = torch.Generator().manual_seed(1)
    a = (torch.randn(3, 1, generator=g) * 5).to(da)
    b = (torch.randn(4, generator=g) * 5).to(db)
    run_both(lambda a, b: (a + b, a * b, a - b if da != torch.bool else a * 2), a, b)
    run_both(lambda a, b: (a == b, torch.maximum(a.to(b.dtype), b) if not b.is_complex() else a * 1), a, b)


SCALARS = [2, 2.5, True, -3, 1e-3]


@pytest.mark.parametrize("dt", [torch.float32, torch.float16, torch.int64, torch.int32, torch.uint8, torch.bool])
def test_python_scalars(dt):
    x = (torch.arange(6) - 2).to(dt)
    for s in SCALARS:
        if dt == torch.bool and isinstance(s, bool):
            continue
        sub = dt != torch.bool and not isinstance(s, bool)
        run_both(lambda x: (x * s, x + s, s - x if sub else x * s), x)
    run_both(lambda x: x / 2, x)


def test_zero_dim_tensors():
    x = torch.arange(6, dtype=torch.int32)
    run_both(lambda x: x * torch.tensor(2.5), x)          # a CPU 0-d float tensor promotes the category
    run_both(lambda x: x + torch.tensor(3, dtype=torch.int64), x)   # a 0-d int tensor does not widen int32
    run_both(lambda x, s: x * s, x, torch.tensor(1.5))    # a tpu 0-d tensor
    run_both(lambda x, s: x * s, torch.randn(3, dtype=torch.float16), torch.tensor(3.0, dtype=torch.float64))


def error_of(fn, dev):
    try:
        fn(dev)
    except Exception as e:
        return type(e), str(e).split("\n")[0]
    return None


ERRORS = {
    "broadcast": lambda d: torch.ones(3, 4, device=d) + torch.ones(5, device=d),
    "matmul_shapes": lambda d: torch.ones(2, 3, device=d) @ torch.ones(4, 5, device=d),
    "inplace_cast": lambda d: torch.ones(3, dtype=torch.int64, device=d).add_(torch.ones(3, device=d) * 0.5),
    "inplace_broadcast": lambda d: torch.ones(3, 1, device=d).add_(torch.ones(3, 4, device=d)),
    "view_noncontiguous": lambda d: torch.ones(3, 4, device=d).t().view(12),
    "cat_dims": lambda d: torch.cat([torch.ones(2, 3, device=d), torch.ones(2, 4, device=d)]),
    "index_range": lambda d: torch.ones(3, device=d)[5],
    "reshape": lambda d: torch.ones(3, 4, device=d).reshape(5, 2),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pytorch_errors(name):
    want = error_of(ERRORS[name], "cpu")
    got = error_of(ERRORS[name], "tpu")
    assert want is not None
    assert got == want
