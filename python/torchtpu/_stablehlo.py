r"""Users' StableHLO lowerings: ``torchtpu.register_stablehlo(op, fn)``.

For kernel authors who write StableHLO (or produce it with ``jax.export``):
``fn`` takes the op's arguments, each tensor as a ``meta`` tensor of the
call's shape and dtype, and returns the text of a StableHLO module whose
public ``main`` takes the call's tensors in order and returns the op's
results (or a ``jax.export.Exported``, whose ``mlir_module()`` is used)::

    def mysin_hlo(x):                      # x: a meta tensor, e.g. float32 [4, 8]
        t = f"tensor<{'x'.join(map(str, x.shape))}xf32>"
        return (f"func.func public @main(%x: {t}) -> {t} {{\n"
                f"  %0 = stablehlo.sine %x : {t}\n  return %0 : {t}\n}}")

    torchtpu.register_stablehlo(torch.ops.mylib.mysin.default, mysin_hlo)

The engine asks for a module at each new argument signature (so dynamic
shapes work: each specialisation gets its own) and inlines it where the op
is: in graphs under ``torch.compile``, in ``.pt2`` programs loaded in this
process afterwards, and on the ``tpu`` device. The results are checked
against the op's fake kernel like every op's: other dtypes or shapes fail,
naming the op.
"""

from __future__ import annotations

import ctypes
import json
import threading
from typing import Any, Callable

import torch

from . import _lib
from ._lowering import Lowering, LoweringError, _add, _caller, registered, resolve

_FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
_local = threading.local()
_by_name: dict[str, Lowering] = {}


def _arg(item: Any) -> Any:
    if isinstance(item, dict) and set(item) == {"dtype", "shape"}:
        return torch.empty(item["shape"], dtype=getattr(torch, item["dtype"]), device="meta")
    if isinstance(item, list):
        return [_arg(i) for i in item]
    if isinstance(item, str) and isinstance(getattr(torch, item, None), torch.dtype):
        return getattr(torch, item)
    return item


def _text(low: Lowering, call: bytes) -> str:
    args = [_arg(a) for a in json.loads(call)]
    try:
        out = low.fn(*args)
    except Exception as e:
        raise LoweringError(f"torchtpu: the StableHLO lowering of {low.name} (registered at {low.where}) raised "
                            f"{type(e).__name__}: {e}") from e
    if hasattr(out, "mlir_module"):  # jax.export.Exported
        out = out.mlir_module()
    if not isinstance(out, str):
        raise LoweringError(f"torchtpu: the StableHLO lowering of {low.name} (registered at {low.where}) returned "
                            f"a {type(out).__name__}, not the module's text")
    return out


@_FN
def _callback(op: bytes, call: bytes) -> int:
    name = op.decode()
    try:
        low = _by_name.get(name)
        if low is None:
            raise LoweringError(f"torchtpu: no StableHLO lowering is registered for {name}")
        text = _text(low, call)
    except Exception as e:
        text = "\x01" + (str(e) if isinstance(e, LoweringError) else f"{type(e).__name__}: {e}")
    buf = ctypes.create_string_buffer(text.encode())
    _local.buf = buf  # alive until this thread's next call; the engine copies it at once
    return ctypes.addressof(buf)


def register_stablehlo(op: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Tells torchtpu to run ``op`` with the StableHLO module ``fn`` returns
    for each argument signature (see the module's documentation)."""
    target = resolve(op)
    low = Lowering(target, fn, "stablehlo", _caller())
    l = _lib.lib()
    f = l.tt_register_stablehlo
    f.restype = ctypes.c_int32
    f.argtypes = [ctypes.c_char_p, ctypes.c_char_p, _FN, ctypes.POINTER(ctypes.c_void_p)]
    err = ctypes.c_void_p()
    if f(low.name.encode(), str(target._schema).encode(), _callback, ctypes.byref(err)) != 0:
        _lib._raise(err, "tt_register_stablehlo")
    _by_name[low.name] = low
    _add(low)
    _route_device(target)
    return fn


def _route_device(op: torch._ops.OpOverload) -> None:
    """Sends op's calls on tpu tensors to the engine (the boxed fallback as
    its PrivateUse1 kernel), once the device extension is loaded."""
    from . import device

    if not device.is_initialized():
        _pending.append(op)
        return
    ext = device._loaded()
    ns, _, name = op._schema.name.partition("::")
    if op._overloadname not in ("", "default"):
        name += "." + op._overloadname
    if not torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "PrivateUse1"):
        msg = ctypes.create_string_buffer(512)
        if ext.ttx_register_boxed(ns.encode(), name.encode(), msg, len(msg)) != 0:
            raise LoweringError(f"torchtpu: {op}: the tpu device cannot take the op: {msg.value.decode()}")


_pending: list[torch._ops.OpOverload] = []


def route_pending() -> None:
    """Routes the ops registered before the device was set up (called by it)."""
    while _pending:
        _route_device(_pending.pop())


def raise_if_lowering_error(e: Exception) -> None:
    """Raises LoweringError when an engine error comes from a user's
    StableHLO lowering (which must not fall back silently)."""
    msg = str(e)
    for low in registered():
        if low.route == "stablehlo" and low.name in msg:
            raise LoweringError(f"torchtpu: the StableHLO lowering of {low.name} (registered at {low.where}) "
                                f"failed: {msg}") from e
