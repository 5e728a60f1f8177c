"""Ops the engine's registry lacks, computed on the tpu device by PyTorch's own
decompositions (``torch._decomp``) before any CPU fallback.

Autograd calls backward ops (``threshold_backward``, ``nll_loss_backward``,
``_log_softmax_backward_data``, ...) that the torch.compile road never needs
(AOTAutograd decomposes them first), so the engine's registry need not lower
them. For each op of PyTorch's decomposition table that reaches the tpu
device (no composite kernel of its own) and that the engine declines, the
decomposition is registered as the op's PrivateUse1 kernel: its pieces are
ordinary aten ops that run on the engine. A decomposition costs a Python
call per use; ops that matter for speed belong in the registry.
"""

from __future__ import annotations

import ctypes
from typing import Any, Callable, Optional

import torch

from . import _engine

_COMPOSITE = ("CompositeImplicitAutograd", "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional")

_library: Optional[torch.library.Library] = None
registered: list[str] = []


def _why_not(name: str, schema: str) -> Optional[str]:
    """None when the engine computes the op, else why not."""
    l = _engine.lib()
    f = l.tt_op_supported
    f.restype = ctypes.c_void_p
    f.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    p = f(name.encode(), schema.encode())
    if not p:
        return None
    try:
        return ctypes.string_at(p).decode(errors="replace")
    finally:
        l.tt_string_free(p)


def _reaches_device(name: str) -> bool:
    if torch._C._dispatch_has_kernel_for_dispatch_key(name, "PrivateUse1"):
        return False
    return not any(torch._C._dispatch_has_kernel_for_dispatch_key(name, k) for k in _COMPOSITE)


def _kernel(fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return run


def register() -> list[str]:
    """Registers a decomposition for every op that needs one; returns their names."""
    global _library
    if _library is not None:
        return registered
    from torch._decomp import decomposition_table

    _library = torch.library.Library("aten", "IMPL")
    for op, fn in decomposition_table.items():
        if not isinstance(op, torch._ops.OpOverload) or op.namespace != "aten":
            continue
        s = op._schema
        if any(a.alias_info is not None and not a.alias_info.is_write for a in s.arguments[:1]) and \
                any(r.alias_info is not None for r in s.returns):
            continue  # a view op: views are PyTorch's own
        if any("Generator" in str(a.type) for a in s.arguments):
            continue  # random ops draw from the CPU generator
        name = op.name()
        qual = name if "." in name.split("::", 1)[1] else name + ".default"
        if not _reaches_device(name):
            continue
        if _why_not(qual, str(s)) is None:
            continue
        try:
            _library.impl(op, _kernel(fn), "PrivateUse1")
        except RuntimeError:
            continue
        registered.append(qual)
    registered.sort()
    return registered
