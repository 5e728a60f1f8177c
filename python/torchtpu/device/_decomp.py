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
import threading
from typing import Any, Callable, Optional

import torch

from . import _engine

# Ops with these kernels never reach the device's kernels. (A structured
# op's functional and in-place forms have a CompositeExplicitAutogradNonFunctional
# kernel that allocates the result and calls the out= form: they do reach it,
# as that out= call.)
_COMPOSITE = ("CompositeImplicitAutograd", "CompositeExplicitAutograd")

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


_active = threading.local()


def _on_cpu(op: torch._ops.OpOverload, name: str, args: Any, kwargs: Any) -> Any:
    """Runs a functional op on PyTorch's CPU kernel (the fallback policy)."""
    from torch.utils._pytree import tree_map

    from . import _loaded

    ext = _loaded()
    why = "PyTorch's decomposition of it calls it again"
    if ext.ttx_note_fallback(name.encode(), why.encode()) == 1:
        raise RuntimeError(f"torchtpu: {name} cannot run on the tpu device ({why}) and the fallback policy is "
                           "\"error\"")

    def cpu(x: Any) -> Any:
        return x.cpu() if isinstance(x, torch.Tensor) and x.device.type == "tpu" else x

    def tpu(x: Any) -> Any:
        return x.to("tpu") if isinstance(x, torch.Tensor) else x

    return tree_map(tpu, op(*tree_map(cpu, args), **tree_map(cpu, kwargs)))


def _kernel(op: torch._ops.OpOverload, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        depth = getattr(_active, name, 0)
        if depth:
            return _on_cpu(op, name, args, kwargs)
        setattr(_active, name, depth + 1)
        try:
            return fn(*args, **kwargs)
        finally:
            setattr(_active, name, depth)

    return run


direct: list[str] = []


def register_direct() -> list[str]:
    """Sends ops straight to the engine when it computes them, instead of
    PyTorch's composite kernels for devices without their own: the
    functional and in-place forms of structured ops (one engine call, the
    engine allocating the result, instead of result meta, allocation and the
    out= form), and backend ops with their own autograd formula whose
    composite is a generic fallback (native_layer_norm), and the optimizers'
    multi-tensor ops (torch._foreach_add_ and the rest: one engine call per
    list, its numbers passed as values so that a changing step size keeps
    the compiled program)."""
    from . import _loaded

    ext = _loaded()
    msg = ctypes.create_string_buffer(512)
    for name in torch._C._dispatch_get_all_op_names():
        if not name.startswith("aten::"):
            continue
        has = torch._C._dispatch_has_kernel_for_dispatch_key
        # A structured op's composite (meta, allocation, out= call), or an
        # op with its own autograd formula and CPU kernel whose composite
        # is a generic fallback for other devices (native_layer_norm through
        # batch norm): the engine's own lowering is better.
        # And the optimizers' multi-tensor ops (_foreach_*): one engine call
        # for the whole list instead of one per tensor; what the engine
        # declines still runs on the composite (the C++ fallback).
        if not (has(name, "CompositeExplicitAutogradNonFunctional") or
                has(name, "CompositeExplicitAutograd") and has(name, "Autograd") and has(name, "CPU") or
                name.startswith("aten::_foreach_") and has(name, "CompositeExplicitAutograd")):
            continue
        if torch._C._dispatch_has_kernel_for_dispatch_key(name, "PrivateUse1"):
            continue
        base, _, overload = name[len("aten::"):].partition(".")
        try:
            op = getattr(getattr(torch.ops.aten, base), overload or "default")
        except AttributeError:
            continue
        s = op._schema
        if any(r.alias_info is not None and not r.alias_info.is_write for r in s.returns):
            continue  # views stay PyTorch's
        if any("Generator" in str(a.type) for a in s.arguments):
            continue
        qual = name if overload else name + ".default"
        if _why_not(qual, str(s)) is not None:
            continue
        if ext.ttx_register_direct(name[len("aten::"):].encode(), msg, len(msg)) == 0:
            direct.append(qual)
    direct.sort()
    return direct


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
        if s.is_mutable:
            # out= and in-place forms: their decompositions call the functional
            # op, whose composite kernel calls the out= form again. The
            # functional form's decomposition is registered instead.
            continue
        if any(a.alias_info is not None and not a.alias_info.is_write for a in s.arguments[:1]) and \
                any(r.alias_info is not None for r in s.returns):
            continue  # a view op: views are PyTorch's own
        if any("Generator" in str(a.type) for a in s.arguments):
            continue  # random ops draw from the CPU generator
        name = op.name()
        qual = name if "." in name.split("::", 1)[1] else name + ".default"
        if torch._C._dispatch_has_kernel_for_dispatch_key(name, "PrivateUse1") or \
                any(torch._C._dispatch_has_kernel_for_dispatch_key(name, k) for k in _COMPOSITE):
            continue
        if _why_not(qual, str(s)) is None:
            continue
        try:
            _library.impl(op, _kernel(op, qual, fn), "PrivateUse1")
        except RuntimeError:
            continue
        registered.append(qual)
    registered.sort()
    return registered
