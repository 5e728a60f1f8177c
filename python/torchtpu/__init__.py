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

from typing import Any

from ._dynamo import CompiledGraph, UnsupportedOpError, torchtpu_backend
from ._lib import TorchTPUError
from ._options import Options

__all__ = ["Options", "TorchTPUError", "UnsupportedOpError", "devices", "report", "reset_report",
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


class Report(dict):
    """What torchtpu did in this process: one entry per compiled graph, and
    totals. A dict; ``print(report)`` shows a table."""

    def __str__(self) -> str:
        lines = [f"torchtpu: {self['graphs']} graphs, {self['on_torchtpu']} on torchtpu, "
                 f"{self['on_eager']} in eager PyTorch (fallback)"]
        for g in self["entries"]:
            eng = g.get("engine") or {}
            line = (f"  {g['name']:<14} {g['ran_on']:<9} runs {g['runs']:<5} compile {g['compile_ms']:.0f} ms"
                    f"  engine compiles {eng.get('compiles', '-')}, cache hits {eng.get('cache_hits', '-')}")
            if eng.get("recompiles"):
                line += f", {len(eng['recompiles'])} specialisations"
            lines.append(line)
            if g.get("fallback_reason"):
                lines.append(f"      fallback: {g['fallback_reason']}")
            for u in g.get("unsupported", []):
                lines.append(f"      {u['op']} ×{u['count']} (node {u['node']}) {u.get('source', '')}")
        dev = self.get("device") or {}
        if dev.get("cpu_fallbacks"):
            lines.append(f"tpu device: {len(dev['cpu_fallbacks'])} ops ran on the CPU")
            for f in dev["cpu_fallbacks"]:
                lines.append(f"      {f['op']} ×{f['calls']}: {f['reason']}")
        return "\n".join(lines)


def report() -> Report:
    """A summary of every graph torchtpu compiled in this process: where it
    ran (torchtpu or eager fallback, with the reason and the unsupported ops
    with their source lines), runs, compile time, engine compiles, cache hits
    and recompiles with reasons."""
    from ._dynamo import graphs

    entries = [g.report() for g in graphs()]
    on_eager = sum(1 for e in entries if e["ran_on"] == "eager")
    dev = device.stats() if device.is_initialized() else {}
    return Report(graphs=len(entries), on_torchtpu=len(entries) - on_eager, on_eager=on_eager, entries=entries,
                  device=dev)


def reset_report() -> None:
    """Clears the records :func:`report` summarises."""
    from ._dynamo import reset

    reset()
