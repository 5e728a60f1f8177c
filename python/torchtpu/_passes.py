"""Rewrites of dynamo's graphs before AOTAutograd traces them."""

from __future__ import annotations

from typing import Any, Optional

import torch
import torch.fx


def _sdpa_math(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, attn_mask: Optional[torch.Tensor] = None,
               dropout_p: float = 0.0, is_causal: bool = False, scale: Optional[float] = None,
               enable_gqa: bool = False) -> torch.Tensor:
    """``scaled_dot_product_attention`` through PyTorch's math kernel, which
    autograd differentiates op by op. On CPU the fused kernel's backward is
    one opaque op (``_scaled_dot_product_flash_attention_for_cpu_backward``)
    that no decomposition reaches; the math form has a backward of matmuls
    and a softmax backward, which torchtpu lowers."""
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        # the public op turns a boolean mask (True: attend) into an additive
        # one before it picks a kernel; the math kernel expects that done
        attn_mask = torch.zeros_like(attn_mask, dtype=query.dtype).masked_fill(attn_mask.logical_not(),
                                                                                 float("-inf"))
    kwargs: dict[str, Any] = {"scale": scale}
    if enable_gqa:
        kwargs["enable_gqa"] = True
    return torch.ops.aten._scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, is_causal,
                                                             None, **kwargs)[0]


_SDPA_TARGETS = {torch._C._nn.scaled_dot_product_attention, torch.nn.functional.scaled_dot_product_attention}


def math_attention(gm: torch.fx.GraphModule) -> int:
    """Sends every scaled_dot_product_attention call of gm through the math
    kernel (see _sdpa_math); returns how many it rewrote."""
    n = 0
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target in _SDPA_TARGETS:
            node.target = _sdpa_math
            n += 1
    if n:
        gm.recompile()
    return n
