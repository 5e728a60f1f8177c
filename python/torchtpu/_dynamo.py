"""The ``torch.compile`` backend: AOTAutograd's graphs, run by the engine.

``torch.compile(model, backend="torchtpu")`` hands dynamo's graphs to
:func:`torchtpu_backend`, which lets AOTAutograd split each into a forward
and (for training) a backward aten graph, decomposed to Core ATen. Each graph
becomes a ``.pt2`` program (see ``_export``) that the engine lowers to
StableHLO, compiles through its compile cache and runs on CPU tensors read in
place. A graph holding ops torchtpu cannot run is split around them (those
ops in eager PyTorch, the rest on torchtpu; see ``_partition``) or raises,
per :class:`~torchtpu.Options`. Users' lowerings (``_lowering``) are applied
before: as AOTAutograd decompositions, or inlined for mutating ops.
"""

from __future__ import annotations

import functools
import itertools
import threading
import time
import warnings
from typing import Any, Callable, Mapping, Optional, Sequence

import torch
import torch.fx

from . import _device_graph, _lib, _lowering, _stablehlo
from ._graph import EngineGraph
from ._options import Options
from ._partition import Split, compute_nodes, eager_nodes

_counter = itertools.count()
_graphs: list["CompiledGraph"] = []
_graphs_lock = threading.Lock()
_warned_ops: set[str] = set()


class UnsupportedOpError(_lib.TorchTPUError):
    """A graph holds an op torchtpu cannot run and the fallback policy is
    ``"error"``."""


class CompiledGraph:
    """One aten graph (forward, backward or inference) compiled by torchtpu.

    Called by AOTAutograd with a list of arguments (boxed calling: the list
    is cleared so that inputs can be freed early); returns the graph's
    outputs as CPU tensors. The whole graph is one engine program when the
    engine can run every op; otherwise (``fallback="eager"``) it is split
    (``_partition``): the ops it cannot run go to eager PyTorch, the rest to
    engine programs.
    """

    def __init__(self, gm: torch.fx.GraphModule, example_inputs: Sequence[Any], kind: str, opts: Options,
                 eager_reason: Optional[str] = None) -> None:
        # An instance attribute, so that dynamo's disable() wrapper of the
        # backward copies it (functools.wraps copies __dict__).
        self._boxed_call = True
        self.gm = gm
        self.kind = kind
        self.name = f"{kind}_{next(_counter)}"
        self.opts = opts
        self.engine: Optional[EngineGraph] = None
        self.split: Optional[Split] = None
        self.fallback_reason: Optional[str] = None
        self.unsupported: list[dict[str, Any]] = []
        self.runs = 0
        self.run_seconds = 0.0
        self.nodes = compute_nodes(gm)
        # A graph whose tensors live on the tpu device runs on the device's
        # buffers (_device_graph); None for a graph of CPU tensors.
        out = gm.graph.output_node()
        results = out.args[0] if isinstance(out.args[0], (tuple, list)) else (out.args[0],)
        self._device = _device_graph.for_graph(self, example_inputs, results)
        self.pt2: Optional[bytes] = None
        t0 = time.perf_counter()
        if eager_reason or kind in opts.eager_graphs:
            self.fallback_reason = eager_reason or f"options eager_graphs={list(opts.eager_graphs)}"
            self.compile_seconds = 0.0
            with _graphs_lock:
                _graphs.append(self)
            return
        try:
            eg = EngineGraph(gm, example_inputs, opts,
                             self._device.engine_options() if self._device is not None else None,
                             guarded=kind in ("forward", "inference"), permuted_io=self._device is None)
            self.pt2 = eg.pt2
            eager = eager_nodes(gm, eg.unsupported, opts)
            if eager:
                self._partition(gm, eager, eg.unsupported)
            else:
                self.engine = eg
        except UnsupportedOpError:
            raise
        except Exception as e:
            self._fall_back(f"{type(e).__name__}: {e}")
        self.compile_seconds = time.perf_counter() - t0
        with _graphs_lock:
            _graphs.append(self)

    @property
    def program(self) -> Optional[_lib.Program]:
        """The engine program of a graph that runs whole on torchtpu."""
        return self.engine.program if self.engine is not None else None

    def _partition(self, gm: torch.fx.GraphModule, eager: dict[str, dict[str, Any]],
                   unsupported: Sequence[Mapping[str, Any]]) -> None:
        """Splits the graph around the nodes the engine cannot run, or
        raises under ``fallback="error"``."""
        ops: dict[str, dict[str, Any]] = {}
        for e in eager.values():
            if e["op"] in ops:
                ops[e["op"]]["count"] += 1
            else:
                ops[e["op"]] = {"op": e["op"], "node": e["node"], "source": e["source"], "count": 1}
        for u in unsupported:  # the engine's record of the source line where it has one
            if u["op"] in ops and u.get("source"):
                ops[u["op"]]["source"] = u["source"]
        self.unsupported = sorted(ops.values(), key=lambda u: u["op"])
        names = ", ".join(u["op"] for u in self.unsupported)
        first = self.unsupported[0]
        where = f" at {first['source']}" if first.get("source") else ""
        if self.opts.fallback == "error":
            raise UnsupportedOpError(f"torchtpu cannot run {first['op']} (node {first['node']}){where}; "
                                     f"graph {self.name}: ops torchtpu cannot run: {names}")
        if self._device is not None:
            # A graph on tpu tensors is not split: the eager device runs it
            # whole, op by op (the engine's parts read CPU tensors).
            self._fall_back(f"ops torchtpu cannot run: {names}")
            return
        self.split = Split(gm, eager, self.opts, self.name)
        on = self.split.nodes_on_torchtpu()
        self.fallback_reason = (f"ops torchtpu cannot run: {names}; {self.nodes - on} of {self.nodes} nodes in eager "
                                f"PyTorch, {len(self.split.parts)} parts on torchtpu")
        key = ",".join(sorted(ops))
        if key not in _warned_ops:
            _warned_ops.add(key)
            warnings.warn(f"torchtpu: graph {self.name}: {names} run in eager PyTorch{where}; the rest of the graph "
                          f"({on} of {self.nodes} nodes) on torchtpu", stacklevel=3)

    def _fall_back(self, reason: str) -> None:
        """Runs the whole graph in eager PyTorch (it could not be compiled,
        or its first run failed), or raises under ``fallback="error"``."""
        if self.opts.fallback == "error":
            raise _lib.TorchTPUError(f"torchtpu cannot run graph {self.name}: {reason}")
        self.engine = None
        self.split = None
        self.fallback_reason = reason
        if reason not in _warned_ops:
            _warned_ops.add(reason)
            warnings.warn(f"torchtpu: graph {self.name} runs in eager PyTorch: {reason}", stacklevel=3)

    def __call__(self, *call_args: Any) -> Any:
        # AOTAutograd calls boxed (one list, cleared here so inputs can be
        # freed early) where it sees _boxed_call, else with the arguments
        # (the backward, wrapped by dynamo's disable()).
        if len(call_args) == 1 and type(call_args[0]) is list:
            args = call_args[0]
        else:
            args = list(call_args)
        if self._device is not None and self.engine is not None:
            return self._device.call(args)
        eng = self.engine
        if eng is not None and eng.fast is not None:
            t0 = time.perf_counter()
            outs = eng.call_fast(args)
            if outs is not None:  # None: an input in another layout than bound
                args.clear()
                self.runs += 1
                self.run_seconds += time.perf_counter() - t0
                return outs[0] if eng.single else tuple(outs)
        t0 = time.perf_counter()
        first = self.runs == 0
        self.runs += 1
        try:
            if self.split is not None:
                a = list(args)
                args.clear()
                return self.split(a)
            if self.engine is None:
                outs = self.gm(*args)
                args.clear()
                return outs
            tensors = self.engine.tensors(args)
            if first and self.opts.dump_dir:
                self._dump(self.engine.engine_inputs(tensors))
            saved = list(args) if first else None
            args.clear()
            try:
                return self.engine.run(tensors)
            except _lib.TorchTPUError as e:
                if not first:
                    raise
                _stablehlo.raise_if_lowering_error(e)
                self._fall_back(f"the first run failed: {e}")
                return self.gm(*saved)
        finally:
            self.run_seconds += time.perf_counter() - t0

    def _dump(self, tensors: Sequence[torch.Tensor]) -> None:
        """Saves the graph and its first inputs for the torchtpu CLI."""
        import os

        d = self.opts.dump_dir
        assert d is not None and self.pt2 is not None
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, self.name + ".pt2"), "wb") as f:
            f.write(self.pt2)
        try:
            from safetensors.torch import save_file
        except ImportError:
            warnings.warn("torchtpu: dump_dir: the safetensors package is missing; inputs not saved", stacklevel=3)
            return
        save_file({f"input.{i}": t.detach().clone(memory_format=torch.contiguous_format) for i, t in enumerate(tensors)},
                  os.path.join(d, self.name + ".io.safetensors"))

    def nodes_on_torchtpu(self) -> int:
        if self.split is not None:
            return self.split.nodes_on_torchtpu()
        return self.nodes if self.engine is not None else 0

    def report(self) -> dict[str, Any]:
        """What happened to this graph: where it ran (torchtpu, eager, or
        split between them), why not torchtpu, counts."""
        on = self.nodes_on_torchtpu()
        ran_on = "split" if self.split is not None else "torchtpu" if self.engine is not None else "eager"
        r: dict[str, Any] = {"name": self.name, "kind": self.kind, "device": self.opts.device, "ran_on": ran_on,
                             "runs": self.runs, "nodes_on_torchtpu": on, "nodes_on_eager": self.nodes - on,
                             "compile_ms": round(self.compile_seconds * 1e3, 2),
                             "run_ms": round(self.run_seconds * 1e3, 2)}
        if self._device is not None:
            r.update(self._device.report())
        if self.fallback_reason:
            r["fallback_reason"] = self.fallback_reason
        if self.unsupported:
            r["unsupported"] = self.unsupported
        if self.engine is not None:
            r["engine"] = self.engine.metrics()
        if self.split is not None:
            r["parts"] = [p.report() for p in self.split.parts]
            r["eager_ops"] = self.split.eager_ops
            r["engine"] = _sum_metrics([p["engine"] for p in r["parts"] if "engine" in p])
        return r


def _sum_metrics(ms: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The engine counters of a split graph's parts, added up."""
    out: dict[str, Any] = {}
    for m in ms:
        for k, v in m.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[k] = out.get(k, 0) + v
            elif isinstance(v, list):
                out[k] = out.get(k, []) + v
            elif isinstance(v, dict):
                d = out.setdefault(k, {})
                for kk, vv in v.items():
                    d[kk] = d.get(kk, 0) + vv if isinstance(vv, (int, float)) else vv
    return out


# Decompositions of PyTorch's Core ATen table that torchtpu leaves out: ops
# whose decomposition breaks the op's contract with its backward, so that a
# graph holding the op's backward (which no decomposition reaches) would
# read what the decomposition saved instead of what the kernel saves.
# _scaled_dot_product_flash_attention_for_cpu's decomposition returns the
# attention weights [B, H, L, S] as its "logsumexp" (and a transposed
# output): the engine lowers the op and its backward instead, as inductor
# keeps the op (torch/_inductor/decomposition.py, decomps_to_exclude).
_KEEP_OPS = ("_scaled_dot_product_flash_attention_for_cpu.default",)


@functools.cache
def _decompositions() -> dict[Any, Callable[..., Any]]:
    from torch._decomp import core_aten_decompositions

    table = dict(core_aten_decompositions())
    for name in _KEEP_OPS:
        packet, overload = name.split(".")
        op = getattr(getattr(torch.ops.aten, packet, None), overload, None)
        if op is not None:
            table.pop(op, None)
    return table


def torchtpu_backend(gm: torch.fx.GraphModule, example_inputs: Sequence[Any],
                     options: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> Callable[..., Any]:
    """The ``torch.compile`` backend ``"torchtpu"``.

    Registered through the ``torch_dynamo_backends`` entry point, so that
    ``torch.compile(model, backend="torchtpu")`` needs no import; ``options``
    are :class:`~torchtpu.Options` fields, e.g. ``{"device": "xla-cpu"}``.
    """
    if kwargs.get("mode") not in (None, "default"):
        warnings.warn(f"torchtpu: mode={kwargs['mode']!r} is ignored", stacklevel=2)
    opts = Options.from_mapping(options)
    from torch._dynamo.backends.common import aot_autograd

    def compiler(kind: str) -> Callable[..., Any]:
        def compile_graph(g: torch.fx.GraphModule, ex: Sequence[Any]) -> CompiledGraph:
            return CompiledGraph(g, ex, kind, opts)

        return compile_graph

    _lowering.prepare(gm)
    table = {**_decompositions(), **_lowering.decompositions()}
    from torch._functorch import partitioners

    # which values the forward saves for the backward (Options.partition)
    partition = (partitioners.min_cut_rematerialization_partition if opts.partition == "min_cut"
                 else partitioners.default_partition)
    aot = aot_autograd(fw_compiler=compiler("forward"), bw_compiler=compiler("backward"),
                       inference_compiler=compiler("inference"), decompositions=table, partition_fn=partition)
    try:
        return aot(gm, example_inputs)
    except RuntimeError as e:
        # A custom op without an autograd formula: PyTorch raises when
        # AOTAutograd traces the backward. As in eager PyTorch, the forward
        # runs (in eager, so that its autograd graph holds the op) and the
        # user's backward() raises PyTorch's own error.
        if "no autograd formula was registered" not in str(e):
            raise
        return CompiledGraph(gm, example_inputs, "forward", opts, eager_reason=f"{e} (the backward raises it)")


def graphs() -> list[CompiledGraph]:
    """Every graph compiled in this process, oldest first."""
    with _graphs_lock:
        return list(_graphs)


def reset() -> None:
    """Forgets the compiled graphs' records (not the compiled code)."""
    with _graphs_lock:
        _graphs.clear()
    _warned_ops.clear()
