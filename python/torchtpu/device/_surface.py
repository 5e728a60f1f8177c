"""The rest of the ``torch.cuda`` surface a training script touches, on
``torch.tpu``: memory queries and summaries, the cache, the device's name and
properties, bfloat16 support.

Memory on the tpu device is engine buffers, one per storage. The engine keeps
no cache of freed buffers: a freed storage's bytes go back to the engine's
heap at once (and to the system at :func:`empty_cache`), so reserved memory
is the allocated memory (``memory_reserved() == memory_allocated()``).
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
from typing import Any, Optional

import torch

from . import _engine

__all__ = ["DeviceProperties", "empty_cache", "get_device_capability", "get_device_name",
           "get_device_properties", "is_bf16_supported", "max_memory_reserved", "mem_get_info",
           "memory_reserved", "memory_stats", "memory_summary", "reset_max_memory_allocated"]


def _loaded() -> None:
    from . import _loaded as load

    load()


def empty_cache() -> None:
    """Finishes the device's queued work and returns the memory of freed
    buffers to the system."""
    _loaded()
    l = _engine.lib()
    f = l.tt_device_empty_cache
    f.restype = ctypes.c_int32
    f.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    err = ctypes.c_void_p()
    _engine._check(f(ctypes.byref(err)), err, "tt_device_empty_cache")


def memory_reserved(device: Optional[Any] = None) -> int:
    """Bytes the device holds for tensors: the live buffers (the engine
    caches none)."""
    _loaded()
    return _engine.memory()[0]


def max_memory_reserved(device: Optional[Any] = None) -> int:
    """The peak of :func:`memory_reserved` since the start or the last reset."""
    _loaded()
    return _engine.memory()[1]


def reset_max_memory_allocated(device: Optional[Any] = None) -> None:
    _loaded()
    _engine.memory(reset_peak=True)


def memory_stats(device: Optional[Any] = None) -> dict[str, int]:
    """``torch.cuda.memory_stats``'s keys that a training script reads, for the
    tpu device: allocated, reserved and active bytes (current and peak), and
    the allocation and copy counters."""
    _loaded()
    a, p = _engine.memory()
    s = _engine.stats()["stats"]
    out: dict[str, int] = {}
    for kind in ("allocated_bytes", "reserved_bytes", "active_bytes"):
        out[f"{kind}.all.current"] = a
        out[f"{kind}.all.peak"] = p
    out.update({"num_alloc_retries": 0, "num_ooms": 0, "num_device_alloc": int(s["buffers"]),
                "host_to_device.count": int(s["uploads"]), "host_to_device.bytes": int(s["upload_bytes"]),
                "device_to_host.count": int(s["downloads"]), "device_to_host.bytes": int(s["download_bytes"])})
    return out


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return f"{n:.2f} GiB"


def memory_summary(device: Optional[Any] = None, abbreviated: bool = False) -> str:
    """A printable summary of the device's memory, as ``torch.cuda.memory_summary``."""
    _loaded()
    st = _engine.stats()
    s = st["stats"]
    rows = [("Allocated memory", _size(st["allocated"]), _size(st["peak"])),
            ("Reserved memory", _size(st["allocated"]), _size(st["peak"])),
            ("Buffers allocated", str(s["buffers"]), ""),
            ("Host to device copies", f"{s['uploads']} ({_size(s['upload_bytes'])})", ""),
            ("Device to host copies", f"{s['downloads']} ({_size(s['download_bytes'])})", "")]
    width = 75
    lines = ["=" * width, f" torchtpu memory summary, device tpu:0 ({st['backend']} backend, {st['mode']} mode)",
             "-" * width, f" {'Metric':<30}{'Cur Usage':>22}{'Peak Usage':>22}", "-" * width]
    lines += [f" {name:<30}{cur:>22}{peak:>22}" for name, cur, peak in rows]
    lines += ["-" * width, " The engine caches no freed memory: reserved is allocated.", "=" * width]
    return "\n".join(lines) + "\n"


def mem_get_info(device: Optional[Any] = None) -> tuple[int, int]:
    """(free, total) bytes of the memory the device's buffers live in: the
    host's on the native backend."""
    _loaded()
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    free = total
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    free = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    return free, total


@dataclasses.dataclass(frozen=True)
class DeviceProperties:
    """What ``torch.tpu.get_device_properties`` describes (the fields of
    ``torch.cuda``'s that apply)."""

    name: str
    backend: str
    total_memory: int
    multi_processor_count: int
    is_integrated: bool = True
    major: int = 0
    minor: int = 0
    type: str = "tpu"


def get_device_name(device: Optional[Any] = None) -> str:
    """``"torchtpu tpu:0 (BACKEND backend)"``: the engine backend serving
    the device (``cpu`` is the native one)."""
    _loaded()
    return f"torchtpu tpu:0 ({_engine.stats()['backend']} backend)"


def get_device_properties(device: Optional[Any] = None) -> DeviceProperties:
    _loaded()
    backend = _engine.stats()["backend"]
    return DeviceProperties(name=get_device_name(device), backend=backend, total_memory=mem_get_info()[1],
                            multi_processor_count=torch.get_num_threads(), is_integrated=backend == "cpu")


def get_device_capability(device: Optional[Any] = None) -> tuple[int, int]:
    """(0, 0): the tpu device has no CUDA compute capability; code that
    checks one for a CUDA feature takes its portable path."""
    return (0, 0)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """True: every engine backend computes bfloat16 (the native one in float
    with bfloat16 rounding, as PyTorch's CPU kernels)."""
    return True
