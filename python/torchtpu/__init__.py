"""torchtpu: PyTorch's native TPU backend, with its engine in Go.

Compile a model for torchtpu with ``torch.compile``::

    import torch
    model = torch.compile(model, backend="torchtpu")   # options={"device": "xla-cpu"}
    out = model(x)                                      # training works too: loss.backward()

Each graph dynamo captures is split by AOTAutograd into forward and backward
aten graphs, which torchtpu lowers to StableHLO, compiles (through a compile
cache on disk) and runs on its native CPU backend or a PJRT device. The
backend is registered under the name ``"torchtpu"`` through the
``torch_dynamo_backends`` entry point, so no import is needed once the package
is installed; ``import torchtpu`` gives :func:`report`, :func:`devices` and
:class:`Options`.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator

from ._dynamo import CompiledGraph, UnsupportedOpError, torchtpu_backend
from ._lib import TorchTPUError
from ._lowering import LoweringError, lowerings, register_lowering
from ._options import Options
from ._stablehlo import register_stablehlo

__all__ = ["LoweringError", "Options", "TorchTPUError", "UnsupportedOpError", "devices", "lowerings",
           "profile_engine", "register_lowering", "register_stablehlo", "report", "reset_report",
           "torchtpu_backend", "version"]
__version__ = "0.1.0"


def _register() -> None:
    """Registers the backend by name with dynamo too, for a package used
    from a checkout (PYTHONPATH) without pip's entry point."""
    try:
        from torch._dynamo.backends.registry import _BACKENDS, register_backend
    except ImportError:  # pragma: no cover - a torch without dynamo
        return
    if "torchtpu" not in _BACKENDS:
        register_backend(name="torchtpu")(torchtpu_backend)


_register()

from . import device  # noqa: E402  (registers the tpu device: torch.tpu, tensors on "tpu")

device._register()
from . import distributed  # noqa: E402  (registers the "torchtpu" c10d backend for the tpu device)
distributed._register()


def devices() -> list[dict[str, Any]]:
    """The engine's devices (``cpu`` and each PJRT plugin found) and whether
    each opens on this machine."""
    from . import _lib

    return _lib.devices()


def version() -> dict[str, Any]:
    """The engine library's build: C ABI version, Go version, revision."""
    from . import _lib

    return _lib.version()


@contextlib.contextmanager
def profile_engine(path: str | os.PathLike) -> Iterator[str]:
    """Takes a Go CPU profile of the engine while the block runs, into the
    pprof file at ``path`` (created or truncated)::

        with torchtpu.profile_engine("engine.pprof"):
            for _ in range(100):
                step()

    The profile samples every thread while it runs the engine's Go code,
    100 times a second: the calls PyTorch makes into the engine, the native
    backend's helper threads (their work, and their spin-wait between
    parallel loops), the tpu device's queue. Samples outside Go code
    (PyTorch's threads, Python) show as ``runtime._ExternalCode`` or a
    library such as ``[libc.so.6]``; Go takes them from a process-wide timer
    and places them poorly, so use ``perf`` for the host's side. A block
    shorter than about a second holds few samples: run enough steps.

    Read it with Go's pprof and the library this process loaded (it names
    the functions; ``torchtpu._lib.library_path()`` says where it is)::

        go tool pprof -top python/torchtpu/lib/libtorchtpu.so engine.pprof
        go tool pprof -top -cum -focus=pool libtorchtpu.so engine.pprof   # the parallel loops
        go tool pprof -http=: libtorchtpu.so engine.pprof                 # flame graph in a browser

    In ``-top``, ``flat`` is the samples in a function itself and ``cum``
    those in it and what it calls. Time in ``backend/native/internal/pool``
    (``(*loopHelper).loop``, ``pool.Run``) outside the loops' bodies, and in
    ``runtime.futex``, ``runtime.usleep``, ``runtime.procyield`` and
    ``runtime.osyield``, is threads waiting, not working
    (``tools/bench/compile_bench.py --profile`` reports that share).

    One profile runs at a time in a process: a second one raises
    :class:`TorchTPUError`, as does a path that cannot be created. Yields
    the path.
    """
    from . import _lib

    path = os.fspath(path)
    _lib.cpu_profile_start(path)
    try:
        yield path
    finally:
        _lib.cpu_profile_stop()


class Report(dict):
    """What torchtpu did in this process: one entry per compiled graph, and
    totals. A dict; ``print(report)`` shows a table."""

    def __str__(self) -> str:
        lines = [f"torchtpu: {self['graphs']} graphs, {self['on_torchtpu']} on torchtpu, {self['split']} split "
                 f"between torchtpu and eager PyTorch, {self['on_eager']} in eager PyTorch (fallback)"]
        for g in self["entries"]:
            eng = g.get("engine") or {}
            line = (f"  {g['name']:<14} {g['ran_on']:<9} runs {g['runs']:<5} nodes {g['nodes_on_torchtpu']} on torchtpu, "
                    f"{g['nodes_on_eager']} eager  compile {g['compile_ms']:.0f} ms  engine compiles "
                    f"{eng.get('compiles', '-')}, cache hits {eng.get('cache_hits', '-')}")
            if eng.get("recompiles"):
                line += f", {len(eng['recompiles'])} specialisations"
            lines.append(line)
            if g.get("fallback_reason"):
                lines.append(f"      fallback: {g['fallback_reason']}")
            for u in g.get("unsupported", []):
                lines.append(f"      {u['op']} ×{u['count']} (node {u['node']}) {u.get('source', '')}")
            for p in g.get("parts", []):
                why = f": {p['fallback_reason']}" if p.get("fallback_reason") else ""
                lines.append(f"      {p['name']}: {p['nodes']} nodes on {p['ran_on']}{why}")
        dev = self.get("device") or {}
        if dev.get("cpu_fallbacks"):
            lines.append(f"tpu device: {len(dev['cpu_fallbacks'])} ops ran on the CPU")
            for f in dev["cpu_fallbacks"]:
                lines.append(f"      {f['op']} ×{f['calls']}: {f['reason']}")
        return "\n".join(lines)


def report() -> Report:
    """A summary of every graph torchtpu compiled in this process: where it
    ran (``ran_on``: ``torchtpu``; ``split``, with the ops torchtpu cannot
    run in eager PyTorch and the rest in parts on torchtpu; or ``eager``),
    ``nodes_on_torchtpu`` and ``nodes_on_eager`` (its op calls, getitem not
    counted), the unsupported ops with their source lines, runs, compile
    time, engine compiles, cache hits and recompiles with reasons."""
    from ._dynamo import graphs

    entries = [g.report() for g in graphs()]
    on_eager = sum(1 for e in entries if e["ran_on"] == "eager")
    split = sum(1 for e in entries if e["ran_on"] == "split")
    dev = device.stats() if device.is_initialized() else {}
    return Report(graphs=len(entries), on_torchtpu=len(entries) - on_eager - split, split=split, on_eager=on_eager,
                  nodes_on_torchtpu=sum(e["nodes_on_torchtpu"] for e in entries),
                  nodes_on_eager=sum(e["nodes_on_eager"] for e in entries), entries=entries, device=dev)


def reset_report() -> None:
    """Clears the records :func:`report` summarises."""
    from ._dynamo import reset

    reset()
