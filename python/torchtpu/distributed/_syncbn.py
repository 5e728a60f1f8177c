"""SyncBatchNorm on the tpu device: the five ops of its forward and backward
(``batch_norm_stats`` and its family, which PyTorch implements for CUDA
only), as PrivateUse1 kernels written with ordinary aten ops that run on the
engine. ``nn.SyncBatchNorm`` calls each once per layer and step, between its
collectives, so a Python call each costs little.

Their meaning is CUDA's: statistics over every dimension but the channels
(dim 1), ``invstd = 1 / sqrt(biased variance + eps)``, per-rank statistics
combined weighted by the ranks' element counts, running statistics updated
with the unbiased variance.
"""

from __future__ import annotations

from typing import Optional

import torch

_lib: Optional[torch.library.Library] = None


def _dims(x: torch.Tensor) -> list[int]:
    return [d for d in range(x.dim()) if d != 1]


def _chan(v: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """v[C] shaped to broadcast over x's channel dimension."""
    return v.reshape([1, -1] + [1] * (x.dim() - 2))


def batch_norm_stats(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    xf = x.float()
    var, mean = torch.var_mean(xf, dim=_dims(x), correction=0)
    return mean, torch.rsqrt(var + eps)


def batch_norm_gather_stats_with_counts(x: torch.Tensor, mean: torch.Tensor, invstd: torch.Tensor,
                                        running_mean: Optional[torch.Tensor], running_var: Optional[torch.Tensor],
                                        momentum: float, eps: float,
                                        counts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    c = counts.to(mean.dtype).reshape(-1, 1)
    n = c.sum()
    g_mean = (c * mean).sum(0) / n
    var = 1.0 / (invstd * invstd) - eps
    g_var = (c * (var + (mean - g_mean) ** 2)).sum(0) / n
    if running_mean is not None:
        running_mean.copy_((1 - momentum) * running_mean + momentum * g_mean.to(running_mean.dtype))
    if running_var is not None:
        unbiased = g_var * n / (n - 1)
        running_var.copy_((1 - momentum) * running_var + momentum * unbiased.to(running_var.dtype))
    return g_mean, torch.rsqrt(g_var + eps)


def batch_norm_elemt(x: torch.Tensor, weight: Optional[torch.Tensor], bias: Optional[torch.Tensor],
                     mean: torch.Tensor, invstd: torch.Tensor, eps: float) -> torch.Tensor:
    y = (x.float() - _chan(mean, x)) * _chan(invstd, x)
    if weight is not None:
        y = y * _chan(weight.float(), x)
    if bias is not None:
        y = y + _chan(bias.float(), x)
    return y.to(x.dtype)


def batch_norm_backward_reduce(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor, invstd: torch.Tensor,
                               weight: Optional[torch.Tensor], input_g: bool, weight_g: bool,
                               bias_g: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    d = _dims(x)
    dyf = dy.float()
    sum_dy = dyf.sum(d)
    sum_dy_xmu = (dyf * (x.float() - _chan(mean, x))).sum(d)
    wdt = weight.dtype if weight is not None else x.dtype
    grad_w = (sum_dy_xmu * invstd).to(wdt) if weight_g else torch.empty(0, dtype=wdt, device=x.device)
    grad_b = sum_dy.to(wdt) if bias_g else torch.empty(0, dtype=wdt, device=x.device)
    if not input_g:
        sum_dy, sum_dy_xmu = torch.empty(0, device=x.device), torch.empty(0, device=x.device)
    return sum_dy, sum_dy_xmu, grad_w, grad_b


def batch_norm_backward_elemt(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor, invstd: torch.Tensor,
                              weight: Optional[torch.Tensor], sum_dy: torch.Tensor, sum_dy_xmu: torch.Tensor,
                              count: torch.Tensor) -> torch.Tensor:
    n = count.to(torch.float32).sum()
    xmu = x.float() - _chan(mean, x)
    inv = _chan(invstd, x)
    g = dy.float() - _chan(sum_dy / n, x) - xmu * inv * inv * _chan(sum_dy_xmu / n, x)
    scale = inv if weight is None else inv * _chan(weight.float(), x)
    return (g * scale).to(x.dtype)


def register() -> None:
    """Registers the kernels for the tpu device (once)."""
    global _lib
    if _lib is not None:
        return
    lib = torch.library.Library("aten", "IMPL")
    for fn in (batch_norm_stats, batch_norm_gather_stats_with_counts, batch_norm_elemt, batch_norm_backward_reduce,
               batch_norm_backward_elemt):
        lib.impl(fn.__name__, fn, "PrivateUse1")
    _lib = lib
