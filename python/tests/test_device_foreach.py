"""The optimizers' multi-tensor ops (torch._foreach_*) on the tpu device.

An optimizer on tpu parameters takes PyTorch's foreach path (as on CUDA):
each _foreach_ op is one engine call for its whole list, its numbers passed
as values. Values are PyTorch's CPU kernels': equal bit for bit, or, where
the device's single-tensor op already differs from the CPU kernel in the
last place (a lowering's rounding), equal to that single-tensor op and
close to the CPU's. An op the engine declines runs on PyTorch's composite
(one single-tensor op per item), so PyTorch's errors are raised alike."""

from __future__ import annotations

import copy
from typing import Any, Callable

import pytest
import torch

import torchtpu  # noqa: F401

SHAPES = [(5,), (3, 4), (), (40,)]
TOL = {torch.bfloat16: 1e-2, torch.float32: 1e-6, torch.float64: 1e-15}


def _lists(dtype: torch.dtype, seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=g).to(dtype) for s in SHAPES]


def _run(fn: Callable[..., Any], args: tuple, device: str) -> Any:
    moved = [[t.clone().to(device) for t in a] if isinstance(a, list) and isinstance(a[0], torch.Tensor) else a
             for a in args]
    try:
        r = fn(*moved)
    except RuntimeError as e:
        return e
    return [t.cpu() for t in (moved[0] if r is None else r)]


def _same(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return all(x.dtype == y.dtype and torch.equal(x.nan_to_num(7.0), y.nan_to_num(7.0)) for x, y in zip(a, b))


def each(fn: Callable[..., Any], inplace: bool = False) -> Callable[..., Any]:
    """The single-tensor ops PyTorch's composite kernel calls."""

    def run(*args: Any) -> Any:
        n = len(args[0])
        items = zip(*[a if isinstance(a, list) else [a] * n for a in args])
        out = [fn(*z) for z in items]
        return None if inplace else out

    return run


def _cases(dtype: torch.dtype) -> list[tuple[str, Callable, Callable, tuple]]:
    fl = dtype.is_floating_point
    a, b = _lists(dtype, 1), _lists(dtype, 2)
    pos = [t.abs() + 1 for t in _lists(dtype, 3)]
    s = 0.3 if fl else 3
    alpha = -0.01 if fl else 2
    steps = [-0.1, 0.2, 3.0, 1e-3]
    weights = [0.1, 0.7, 0.5, 0.2]
    dev0 = lambda xs: torch.tensor(0.5, device=xs[0].device)  # noqa: E731
    cases = [
        ("add.Scalar", torch._foreach_add, each(torch.add), (a, s)),
        ("add_.Scalar", torch._foreach_add_, each(torch.Tensor.add_, True), (a, s)),
        ("mul_.Scalar", torch._foreach_mul_, each(torch.Tensor.mul_, True), (a, 0.7)),
        ("mul.Scalar int", torch._foreach_mul, each(torch.mul), (a, 2)),
        ("sub_.ScalarList", torch._foreach_sub_, each(torch.Tensor.sub_, True), (a, [0.1, 2, 0.3, -1.5])),
        ("div_.ScalarList", torch._foreach_div_, each(torch.Tensor.div_, True), (a, [0.1, 2.5, 0.3, 7.0])),
        ("add_.List alpha", lambda x, y: torch._foreach_add_(x, y, alpha=alpha),
         each(lambda x, y: x.add_(y, alpha=alpha), True), (a, b)),
        ("sub.List alpha", lambda x, y: torch._foreach_sub(x, y, alpha=3), each(lambda x, y: torch.sub(x, y, alpha=3)), (a, b)),
        ("mul_.List", torch._foreach_mul_, each(torch.Tensor.mul_, True), (a, b)),
        ("div.List", torch._foreach_div, each(torch.div), (a, pos)),
        ("mul_.Tensor", lambda x: torch._foreach_mul_(x, dev0(x)), lambda x: each(torch.Tensor.mul_, True)(x, dev0(x)), (a,)),
        ("add.Tensor alpha", lambda x: torch._foreach_add(x, dev0(x), alpha=2),
         lambda x: [torch.add(t, dev0(x), alpha=2) for t in x], (a,)),
        ("addcmul_.Scalar", lambda x, y, z: torch._foreach_addcmul_(x, y, z, value=0.999 if fl else 2),
         each(lambda x, y, z: x.addcmul_(y, z, value=0.999 if fl else 2), True), (a, b, pos)),
        ("addcdiv_.ScalarList", lambda x, y, z: torch._foreach_addcdiv_(x, y, z, steps),
         lambda x, y, z: [t.addcdiv_(u, v, value=w) for t, u, v, w in zip(x, y, z, steps)] and None, (a, b, pos)),
        ("addcdiv.Scalar default", torch._foreach_addcdiv, each(torch.addcdiv), (a, b, pos)),
        ("lerp.Scalar small", lambda x, y: torch._foreach_lerp(x, y, 0.1), each(lambda x, y: torch.lerp(x, y, 0.1)), (a, b)),
        ("lerp_.Scalar big", lambda x, y: torch._foreach_lerp_(x, y, 0.9), each(lambda x, y: x.lerp_(y, 0.9), True), (a, b)),
        ("lerp.ScalarList", lambda x, y: torch._foreach_lerp(x, y, weights),
         lambda x, y: [torch.lerp(t, e, w) for t, e, w in zip(x, y, weights)], (a, b)),
        ("lerp_.List", torch._foreach_lerp_, each(torch.Tensor.lerp_, True), (a, b, [t * 0.3 for t in pos])),
        ("zero_", torch._foreach_zero_, each(torch.Tensor.zero_, True), (a,)),
    ]
    if fl:
        for o in (2, 1, float("inf"), 3.0):
            cases.append((f"norm ord={o}", lambda x, o=o: torch._foreach_norm(x, o),
                          each(lambda t, o=o: torch.linalg.vector_norm(t, o)), (a,)))
    for u in ("sqrt", "exp", "expm1", "neg", "abs", "reciprocal", "sigmoid", "sign"):
        arg = [t.abs() for t in a] if u == "sqrt" else a
        cases.append((u, getattr(torch, "_foreach_" + u), each(getattr(torch, u)), (arg,)))
        cases.append((u + "_", getattr(torch, f"_foreach_{u}_"), each(getattr(torch.Tensor, u + "_"), True), (arg,)))
    return cases


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64], ids=str)
def test_foreach_ops_match_cpu(dtype: torch.dtype) -> None:
    exact = 0
    for name, fn, single, args in _cases(dtype):
        cpu, tpu = _run(fn, args, "cpu"), _run(fn, args, "tpu")
        if isinstance(cpu, Exception) or isinstance(tpu, Exception):
            # PyTorch refuses (an integral list times a float, lerp of
            # integers): the device must refuse too
            assert isinstance(cpu, Exception) and isinstance(tpu, Exception), (name, cpu, tpu)
            continue
        if _same(cpu, tpu):
            exact += 1
            continue
        per_op = _run(single, args, "tpu")
        assert _same(tpu, per_op), f"{name}: differs from the CPU and from the device's single-tensor ops"
        for c, t in zip(cpu, tpu):
            torch.testing.assert_close(t, c, rtol=TOL[dtype], atol=TOL[dtype], equal_nan=True, msg=name)
    assert exact >= len(_cases(dtype)) // 2, exact


def test_adamw_step_is_a_dozen_calls_that_compile_once() -> None:
    """AdamW on tpu parameters (the foreach path) in fused mode: one engine
    call per _foreach_ op, the block recorded once and replayed while the
    step sizes change; the parameters as CPU AdamW makes them."""
    torch.manual_seed(0)
    params = [torch.randn(s) for s in [(32, 16), (16,), (8, 32), ()]]
    grads = [[torch.randn_like(p) * 0.1 for p in params] for _ in range(6)]
    cpu = [p.clone().requires_grad_() for p in params]
    tpu = [p.clone().to("tpu").requires_grad_() for p in params]
    opt_c = torch.optim.AdamW(cpu, lr=1e-2, weight_decay=0.1, foreach=False)
    opt_t = torch.optim.AdamW(tpu, lr=1e-2, weight_decay=0.1)
    with torch.tpu.mode("fused"):
        for k, gs in enumerate(grads):
            for p, q, g in zip(cpu, tpu, gs):
                p.grad, q.grad = g.clone(), g.to("tpu")
            opt_c.step()
            if k == 2:
                before = torch.tpu.stats()["stats"]
            opt_t.step()
            torch.tpu.synchronize()
        after = torch.tpu.stats()["stats"]
    for p, q in zip(cpu, tpu):
        torch.testing.assert_close(q.detach().cpu(), p.detach(), rtol=1e-6, atol=1e-7)
    steps = len(grads) - 3
    assert after["fused_compiles"] == before["fused_compiles"], "a step compiled anew"
    assert after["plan_misses"] == before["plan_misses"], "a step planned anew"
    # the grads' copies and the dozen foreach calls, not ten ops per parameter
    assert (after["ops"] - before["ops"]) / steps <= 20, (after["ops"] - before["ops"]) / steps


def test_clip_grad_norm_matches_cpu() -> None:
    """clip_grad_norm_ (the foreach path: _foreach_norm, then _foreach_mul_
    by a device scalar) scales the gradients as on CPU."""
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4))
    mt = copy.deepcopy(m).to("tpu")
    x = torch.randn(8, 16)
    m(x).pow(2).sum().backward()
    mt(x.to("tpu")).pow(2).sum().backward()
    n = torch.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
    nt = torch.nn.utils.clip_grad_norm_(mt.parameters(), 0.5)
    torch.testing.assert_close(nt.cpu(), n, rtol=1e-6, atol=1e-6)
    for p, q in zip(m.parameters(), mt.parameters()):
        torch.testing.assert_close(q.grad.cpu(), p.grad, rtol=1e-5, atol=1e-6)
