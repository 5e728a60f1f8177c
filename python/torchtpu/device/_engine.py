"""ctypes bindings of the eager device's part of the C ABI (capi/libtorchtpu/eager.go)."""

from __future__ import annotations

import ctypes
import json
from typing import Any

from .. import _lib

_declared = False


def lib() -> ctypes.CDLL:
    """The engine library, with the device functions declared."""
    global _declared
    l = _lib.lib()
    if not _declared:
        u64, i32, i64, vp, cp = ctypes.c_uint64, ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p, ctypes.c_char_p
        perr = ctypes.POINTER(ctypes.c_void_p)
        pi64 = ctypes.POINTER(ctypes.c_int64)
        sig = {
            "tt_device_configure": (i32, [cp, perr]),
            "tt_device_stats": (vp, [perr]),
            "tt_device_synchronize": (i32, [perr]),
            "tt_memory": (i32, [pi64, pi64, i32]),
        }
        for name, (res, args) in sig.items():
            f = getattr(l, name)
            f.restype = res
            f.argtypes = args
        _declared = True
    return l


def _check(rc: int, err: ctypes.c_void_p, what: str) -> None:
    if rc != 0:
        _lib._raise(err, what)


def configure(**options: Any) -> None:
    """Sets the device's options (backend, mode, fused_max_ops)."""
    err = ctypes.c_void_p()
    _check(lib().tt_device_configure(json.dumps(options).encode(), ctypes.byref(err)), err, "tt_device_configure")


def stats() -> dict[str, Any]:
    """The engine's view of the device: options, memory, counters, declined ops."""
    lib()
    return _lib._json_call("tt_device_stats")


def synchronize() -> None:
    """Runs everything recorded and waits for the device's queue; raises the
    failure of an op that ran asynchronously."""
    err = ctypes.c_void_p()
    _check(lib().tt_device_synchronize(ctypes.byref(err)), err, "tt_device_synchronize")


def memory(reset_peak: bool = False) -> tuple[int, int]:
    """(bytes held by live device buffers, their peak)."""
    a, p = ctypes.c_int64(), ctypes.c_int64()
    if lib().tt_memory(ctypes.byref(a), ctypes.byref(p), int(reset_peak)) != 0:
        raise _lib.TorchTPUError("the tpu device did not open (see torchtpu.device.stats())")
    return a.value, p.value
