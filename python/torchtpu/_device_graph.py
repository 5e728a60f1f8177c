"""Compiled graphs on the ``tpu`` device: ``torch.compile`` of a model whose
tensors live on ``tpu``, the way CUDA users compile.

A graph whose inputs (or outputs) are ``tpu`` tensors runs as one engine
program on the device's buffers: the inputs are read in place, the outputs
are new ``tpu`` tensors over the engine's new buffers, and the run is one
task of the device's queue, ordered with the eager ``tpu`` ops before and
after it (C ABI ``tt_program_run_device``, through the extension's
``torchtpu::_run_program``). Nothing goes through host memory.

The program is compiled for the backend serving the device
(``TORCHTPU_DEVICE`` or :func:`torch.tpu.set_backend`). A ``device`` option
given to ``torch.compile`` (or ``$TORCHTPU_DEVICE`` for both) must name that
backend: a graph cannot run on one backend with its tensors on another, and
torchtpu says so when it compiles the graph rather than copying tensors
behind the user's back.

:class:`~torchtpu._dynamo.CompiledGraph` calls this module for such graphs;
graphs of CPU tensors keep the CPU path.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Optional, Sequence

import torch

from . import _lib

if TYPE_CHECKING:
    from ._dynamo import CompiledGraph

_DEVICE = "tpu"


def _on_device(v: Any) -> bool:
    return isinstance(v, torch.Tensor) and v.device.type == _DEVICE


def _backend() -> str:
    """The engine backend serving the tpu device."""
    from .device import _engine

    return str(_engine.stats()["backend"])


def _same_backend(device: str, backend: str) -> bool:
    return device.removesuffix(":0") == backend


class DeviceMismatchError(_lib.TorchTPUError):
    """A graph's tensors are on the tpu device but the compile options name
    another backend than the device's."""


class DeviceGraph:
    """How one compiled graph runs on the tpu device."""

    def __init__(self, graph: "CompiledGraph", backend: str, out_devices: Sequence[Optional[str]]) -> None:
        self.graph = graph
        self.backend = backend
        # outputs the graph returns on another device than tpu (a .cpu()
        # inside the graph): moved there after the run
        self.out_devices = list(out_devices)
        self.n_out = len(self.out_devices)
        self.span = f"torchtpu graph {graph.name}"

    def engine_options(self) -> dict[str, Any]:
        return {**self.graph.opts.engine(), "device": self.backend, "name": self.graph.name}

    def call(self, args: list[Any]) -> Any:
        g = self.graph
        e = g.engine
        assert e is not None
        tensors = [a for a, t in zip(args, e.tensor_inputs) if t]
        first = g.runs == 0
        if first and g.opts.dump_dir:
            g._dump([t.cpu() if isinstance(t, torch.Tensor) else t for t in tensors])
        saved = list(args) if first else None
        args.clear()
        if first:
            # The first run is checked at once (a failure falls back to
            # eager PyTorch, as on the CPU path). Work queued before it is
            # finished first: its failure is its own, raised here as it
            # would be at any synchronisation, not taken for the graph's.
            torch.tpu.synchronize()
        t0 = time.perf_counter()
        try:
            raw = self._run(tensors)
            if first:
                torch.tpu.synchronize()
        except (RuntimeError, _lib.TorchTPUError) as e:
            if not first:
                raise
            g._fall_back(f"the first run on the tpu device failed: {e}")
            outs = g.gm(*saved)
            g.runs += 1
            g.run_seconds += time.perf_counter() - t0
            return outs
        del tensors
        outs = e.values(raw, self.out_devices)
        g.runs += 1
        g.run_seconds += time.perf_counter() - t0
        return outs[0] if e.single else tuple(outs)

    def _run(self, tensors: list[Any]) -> list[Optional[torch.Tensor]]:
        run = torch.ops.torchtpu._run_program
        h = self.graph.program.handle
        if torch.autograd._profiler_enabled():
            with torch.profiler.record_function(self.span):
                return run(h, self.n_out, tensors)
        return run(h, self.n_out, tensors)

    def report(self) -> dict[str, Any]:
        return {"tensors_on": f"{_DEVICE}:0", "device": self.backend}


def for_graph(graph: "CompiledGraph", example_inputs: Sequence[Any],
              results: Sequence[Any]) -> Optional[DeviceGraph]:
    """A DeviceGraph when the graph's tensors are on the tpu device (any
    input, or any output of a graph without tpu inputs), else None. Raises
    DeviceMismatchError when the options name another backend than the
    device's."""
    vals = [r.meta.get("val") if isinstance(r, torch.fx.Node) else None for r in results]
    if not any(_on_device(v) for v in (*example_inputs, *vals)):
        return None
    backend = _backend()
    opts = graph.opts
    if getattr(opts, "_device_given", False) and not _same_backend(opts.device, backend):
        raise DeviceMismatchError(
            f"torchtpu: graph {graph.name}: its tensors are on the tpu device, served by the {backend!r} backend, "
            f"but torch.compile's options name device {opts.device!r}. A compiled graph runs where its tensors "
            f"are: drop the device option (the graph then runs on {backend!r}), set it to {backend!r}, or serve "
            f"the tpu device from {opts.device!r} (TORCHTPU_DEVICE={opts.device.split(':')[0]} or "
            f"torch.tpu.set_backend({opts.device.split(':')[0]!r}) before the first tpu tensor).")
    out_devices = [v.device.type if isinstance(v, torch.Tensor) else None for v in vals]
    return DeviceGraph(graph, backend, out_devices)
