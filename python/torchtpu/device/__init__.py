"""The ``tpu`` device: PyTorch's PrivateUse1 backend, served by torchtpu's engine.

``import torchtpu`` registers it; then ``torch.tpu`` is this module and
tensors live on ``"tpu"``. Its kernels are a C++ extension (``_ext``):
prebuilt in a wheel and loaded at import, or built from the sources for the
running torch when the device is first used::

    x = torch.randn(4, 4).to("tpu")        # data in an engine buffer
    y = (x @ x.T).relu()                   # each op: the engine's registry, compiled once per signature
    print(y.cpu(), y.sum().item())
    model.to("tpu"); loss.backward(); opt.step()   # autograd and optimizers as on CPU

Which engine backend serves the device is ``$TORCHTPU_DEVICE`` (``cpu``, the
native backend, by default; ``xla-cpu``, ``tpu``, ``cuda`` through PJRT) or
:func:`set_backend` before the first tensor. Modes (:func:`set_mode`,
``$TORCHTPU_MODE``):

- ``"async"`` (default): ops are queued and run in order while Python goes
  on; a failure surfaces at the next synchronisation (``.cpu()``,
  ``.item()``, :func:`synchronize`) naming the op.
- ``"debug"``: each op runs before its call returns; errors at the op.
- ``"fused"``: ops are recorded and compiled in blocks, run at a read, at
  :func:`synchronize` or at a size bound; blocks are cached by structure.

Ops the engine cannot run go to PyTorch's CPU kernels (counted, warned once
per op, listed by ``torchtpu.report()``) or raise, per :func:`set_fallback`
(``$TORCHTPU_DEVICE_FALLBACK``: ``cpu`` or ``error``). Random ops use
PyTorch's CPU generator, so seeded programs draw the same numbers as on CPU.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
import warnings
from typing import Any, Iterator, Optional, Union

import torch

from . import _engine

__all__ = [
    "Event", "Stream", "current_device", "current_stream", "default_stream", "device_count", "get_mode",
    "is_available", "manual_seed", "manual_seed_all", "max_memory_allocated", "memory_allocated",
    "memory_stats", "mode", "reset_peak_memory_stats", "set_backend", "set_fallback", "set_mode", "stats",
    "stream", "synchronize",
    # _surface.py
    "DeviceProperties", "empty_cache", "get_device_capability", "get_device_name", "get_device_properties",
    "is_bf16_supported", "max_memory_reserved", "mem_get_info", "memory_reserved", "memory_summary",
    "reset_max_memory_allocated",
]

_NAME = "tpu"
# ext: the loaded extension once the device is set up; partial: the same
# while _init runs (its own steps reach _loaded; other threads wait for it).
_state: dict[str, Any] = {"registered": False, "ext": None, "partial": None, "error": None, "mode": "async",
                          "fallback": "cpu"}
_init_lock = threading.RLock()


def _register() -> None:
    """Renames PrivateUse1 to ``tpu`` and makes this module ``torch.tpu``.
    Called by ``import torchtpu``; nothing is compiled here.

    When a build of the C++ extension that fits this torch is ready (a
    wheel's prebuilt one, or an earlier build from the sources), it is
    loaded now too: that takes under a tenth of a second, and then every
    device API works from the start, including the ones PyTorch reaches
    without asking ``torch.tpu`` first (``torch.Stream("tpu")``, the
    accelerator hooks). Otherwise the extension is built when the device is
    first used: :func:`is_available`, or the first tpu tensor (PyTorch calls
    :func:`_lazy_init` before it makes one). A failure is a warning here and
    an error at that use."""
    if _state["registered"]:
        return
    _state["registered"] = True
    try:
        if torch._C._get_privateuse1_backend_name() != _NAME:
            torch.utils.rename_privateuse1_backend(_NAME)
        if not hasattr(torch.Tensor, "is_tpu"):
            torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True,
                                                                 for_packed_sequence=True, for_storage=True)
        if not hasattr(torch, _NAME):
            torch._register_device_module(_NAME, __import__(__name__, fromlist=["_"]))
        # TPUs compute in bfloat16: torch.autocast("tpu") without a dtype
        # uses it (as torch_xla's autocast does); set_autocast_dtype changes it.
        torch.set_autocast_dtype(_NAME, torch.bfloat16)
    except Exception as e:  # another backend owns PrivateUse1
        _state["error"] = f"PrivateUse1 is taken: {e}"
        warnings.warn(f"torchtpu: the tpu device is not registered: {_state['error']}", stacklevel=3)
        return
    from . import _ext

    if _ext.ready() is not None:
        try:
            _loaded()
        except RuntimeError as e:
            warnings.warn(str(e), stacklevel=3)


def _init() -> None:
    """Loads the extension (building it if no build fits this torch),
    registers the decompositions and applies the environment's settings."""
    from . import _decomp, _ext

    _state["partial"] = _ext.load()
    _decomp.register()
    _decomp.register_direct()
    from .. import _stablehlo

    _stablehlo.route_pending()
    opts: dict[str, Any] = {}
    if os.environ.get("TORCHTPU_DEVICE"):
        opts["backend"] = os.environ["TORCHTPU_DEVICE"]
    if os.environ.get("TORCHTPU_MODE"):
        opts["mode"] = os.environ["TORCHTPU_MODE"]
    if opts:
        _engine.configure(**opts)
    _state["mode"] = _engine.stats()["mode"]
    set_fallback(os.environ.get("TORCHTPU_DEVICE_FALLBACK", "cpu"))
    # Backward on the calling thread, as for CPU tensors: the device is one
    # in-order queue the ops go to from whichever thread records them, and
    # PyTorch's per-device autograd thread only adds two thread hand-offs
    # to every backward (100 us of a 2-core machine's time for a small
    # one; a tiny GPT's training step 3.8 -> 2.8 ms in async mode). The
    # setting is the initializing thread's (PyTorch keeps it per thread);
    # torch.autograd.set_multithreading_enabled(True) restores PyTorch's.
    torch.autograd.set_multithreading_enabled(False)


def _loaded() -> ctypes.CDLL:
    """The loaded extension, initializing the device on first use; raises
    with the reason when the device is unavailable."""
    ext = _state["ext"]
    if ext is not None:
        return ext
    with _init_lock:  # reentrant: _init's own steps come back here
        if _state["ext"] is not None:
            return _state["ext"]
        if _state["partial"] is not None:
            return _state["partial"]
        if _state["error"]:
            raise RuntimeError(f"torchtpu: the tpu device is unavailable: {_state['error']}")
        try:
            _init()
        except Exception as e:
            _state["partial"] = None
            _state["error"] = str(e).removeprefix("torchtpu: ")
            raise RuntimeError(f"torchtpu: the tpu device is unavailable: {_state['error']}") from e
        _state["ext"], _state["partial"] = _state["partial"], None
        return _state["ext"]


def is_available() -> bool:
    """True when the device works here. Loads its extension if import did not
    (no build fitted this torch), building it first: the source route of a
    checkout or of a torch the wheel was not built for, about a minute, once.
    False, with a warning the first time, when that fails.

    PyTorch asks this through ``torch.accelerator.is_available()``, among
    others on every ``torch.compile`` (dynamo then asks the device for its
    current stream, which needs the extension): so on the source route the
    first compile builds the extension too, and a failed build leaves
    torch.compile working. A wheel's prebuilt extension builds nothing."""
    if not _state["registered"]:
        return False
    if _state["ext"] is not None:
        return True
    if _state["error"]:
        return False
    try:
        _loaded()
    except RuntimeError as e:
        warnings.warn(str(e), stacklevel=2)
        return False
    return True


def is_initialized() -> bool:
    """True once the extension is loaded and the device set up."""
    return _state["ext"] is not None and _state["error"] is None


def _lazy_init() -> None:
    """Called by PyTorch before the first tpu tensor is made."""
    _loaded()


def _is_in_bad_fork() -> bool:
    return False


def device_count() -> int:
    """One tpu device (``tpu:0``) when available."""
    return 1 if is_available() else 0


def current_device() -> int:
    return 0


def set_device(device: Union[int, str, torch.device]) -> None:
    idx = torch.device(device).index if not isinstance(device, int) else device
    if idx not in (None, 0):
        raise ValueError(f"torchtpu: there is one tpu device (tpu:0), not {device}: each process owns one device, "
                         "tpu:0, so under torchrun every rank uses torch.device(\"tpu\") (not tpu:LOCAL_RANK)")


@contextlib.contextmanager
def device(device: Union[int, str, torch.device]) -> Iterator[None]:
    set_device(device)
    yield


def get_amp_supported_dtype() -> list[torch.dtype]:
    return [torch.float16, torch.bfloat16]


def synchronize(device: Optional[Any] = None) -> None:
    """Runs every recorded op and waits for the device; raises the failure of
    an op that ran asynchronously, naming it."""
    _loaded()
    _engine.synchronize()


# Randomness: the tpu device draws from PyTorch's CPU generator.


def manual_seed(seed: int) -> None:
    """Seeds the generator the tpu device draws from (PyTorch's CPU generator)."""
    torch.random.default_generator.manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    manual_seed(seed)


def seed() -> None:
    torch.random.default_generator.seed()


def seed_all() -> None:
    seed()


def initial_seed() -> int:
    return torch.random.default_generator.initial_seed()


def get_rng_state(device: Any = "tpu") -> torch.Tensor:
    return torch.random.default_generator.get_state()


def set_rng_state(state: torch.Tensor, device: Any = "tpu") -> None:
    torch.random.default_generator.set_state(state)


# Memory.


def memory_allocated(device: Optional[Any] = None) -> int:
    """Bytes held by the storages of live tpu tensors."""
    _loaded()
    return _engine.memory()[0]


def max_memory_allocated(device: Optional[Any] = None) -> int:
    """The peak of :func:`memory_allocated` since the start or the last reset."""
    _loaded()
    return _engine.memory()[1]


def reset_peak_memory_stats(device: Optional[Any] = None) -> None:
    _loaded()
    _engine.memory(reset_peak=True)


# The rest of torch.cuda's memory and device queries (_surface.py).
from ._surface import (  # noqa: E402
    DeviceProperties, empty_cache, get_device_capability, get_device_name, get_device_properties,
    is_bf16_supported, max_memory_reserved, mem_get_info, memory_reserved, memory_stats, memory_summary,
    reset_max_memory_allocated)


# Streams and events: marks in the engine's one in-order queue.


def Stream(device: Optional[Any] = None, priority: int = 0) -> torch.Stream:
    """A new tpu stream (a ``torch.Stream``). The engine runs all work in one
    in-order queue, so work on any stream is ordered after all work enqueued
    before it."""
    _loaded()
    return torch.Stream(device=torch.device(_NAME, 0), priority=priority)


def Event(enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> torch.Event:
    """A tpu event (a ``torch.Event``): record, wait, query, synchronize,
    elapsed_time in milliseconds."""
    _loaded()
    return torch.Event(device=torch.device(_NAME, 0), enable_timing=enable_timing, blocking=blocking,
                       interprocess=interprocess)


def current_stream(device: Optional[Any] = None) -> torch.Stream:
    _loaded()
    return torch._C._get_current_stream(torch.device(_NAME, 0)) if hasattr(torch._C, "_get_current_stream") \
        else torch.accelerator.current_stream(torch.device(_NAME, 0))


def default_stream(device: Optional[Any] = None) -> torch.Stream:
    _loaded()
    return torch.Stream(device=torch.device(_NAME, 0), stream_id=0, device_type=0)  # type: ignore[call-arg]


def set_stream(s: torch.Stream) -> None:
    torch.accelerator.set_stream(s)


@contextlib.contextmanager
def stream(s: Optional[torch.Stream]) -> Iterator[None]:
    if s is None:
        yield
        return
    prev = torch.accelerator.current_stream(torch.device(_NAME, 0))
    torch.accelerator.set_stream(s)
    try:
        yield
    finally:
        torch.accelerator.set_stream(prev)


# Modes, backend and fallback policy.

_MODES = ("async", "debug", "fused")


def set_mode(m: str) -> None:
    """``"async"`` (default), ``"debug"`` or ``"fused"``; queued work is finished first."""
    if m not in _MODES:
        raise ValueError(f"torchtpu: mode {m!r}: want one of {', '.join(_MODES)}")
    _loaded()
    _engine.configure(mode=m)
    _state["mode"] = m


def get_mode() -> str:
    return _state["mode"]


@contextlib.contextmanager
def mode(m: str) -> Iterator[None]:
    """Runs the block in mode ``m``, then restores the previous mode."""
    prev = get_mode()
    set_mode(m)
    try:
        yield
    finally:
        set_mode(prev)


def set_backend(name: str) -> None:
    """The engine backend that serves the device: ``cpu`` (native, default),
    ``xla-cpu``, ``tpu``, ``cuda``; only before the first tpu tensor."""
    _loaded()
    _engine.configure(backend=name)


def set_fallback(policy: str) -> None:
    """``"cpu"``: ops the engine cannot run use PyTorch's CPU kernels (counted,
    warned once per op); ``"error"``: they raise."""
    if policy not in ("cpu", "error"):
        raise ValueError(f"torchtpu: fallback {policy!r}: want 'cpu' or 'error'")
    _loaded().ttx_set_cpu_fallback(1 if policy == "cpu" else 0)
    _state["fallback"] = policy


def fallbacks() -> list[dict[str, Any]]:
    """Ops that ran on PyTorch's CPU kernels: op, calls, reason, and whether
    it is a random op (which always uses the CPU generator)."""
    import ctypes
    import json

    ext = _loaded()
    buf = ctypes.create_string_buffer(1 << 16)
    n = ext.ttx_fallbacks(buf, len(buf))
    if n > len(buf):
        buf = ctypes.create_string_buffer(n)
        ext.ttx_fallbacks(buf, len(buf))
    return sorted(json.loads(buf.value.decode()), key=lambda e: e["op"])


def fallback_calls() -> int:
    """How many op calls ran on PyTorch's CPU kernels by the fallback policy
    so far (random ops, which always use the CPU generator, not counted)."""
    return int(_loaded().ttx_fallback_calls())


def stats() -> dict[str, Any]:
    """The device's state: backend, mode, memory, op counters, plan-cache hits
    and misses, engine compiles, ops the engine declined, CPU fallbacks."""
    _loaded()
    s = _engine.stats()
    s["cpu_fallbacks"] = fallbacks()
    from . import _decomp

    s["decomposed"] = list(_decomp.registered)
    s["fallback_policy"] = _state["fallback"]
    return s
