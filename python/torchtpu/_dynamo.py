"""The ``torch.compile`` backend: AOTAutograd's graphs, run by the engine.

``torch.compile(model, backend="torchtpu")`` hands dynamo's graphs to
:func:`torchtpu_backend`, which lets AOTAutograd split each into a forward
and (for training) a backward aten graph, decomposed to Core ATen. Each graph
becomes a ``.pt2`` program (see ``_export``) that the engine lowers to
StableHLO, compiles through its compile cache and runs on CPU tensors read in
place. A graph holding an op torchtpu cannot run falls back to eager PyTorch
or raises, per :class:`~torchtpu.Options`.
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

from . import _device_graph, _lib
from ._export import to_pt2
from ._options import Options

_counter = itertools.count()
_graphs: list["CompiledGraph"] = []
_graphs_lock = threading.Lock()
_warned_ops: set[str] = set()


class UnsupportedOpError(_lib.TorchTPUError):
    """A graph holds an op torchtpu cannot run and the fallback policy is
    ``"error"``."""


def _out_kind(v: Any) -> str:
    if isinstance(v, torch.Tensor):
        return "tensor"
    if isinstance(v, torch.SymInt):
        return "int"
    if isinstance(v, torch.SymFloat):
        return "float"
    if isinstance(v, torch.SymBool):
        return "bool"
    return "constant"


def _hint(v: Any) -> int:
    if isinstance(v, torch.SymInt):
        return int(v.node.hint) if v.node.hint is not None else 0
    return int(v)


def _layout(t: torch.Tensor) -> Optional[tuple[str, list[int]]]:
    """How a graph output's recorded strides (its fake tensor's) differ from
    the row-major layout the engine returns: ``("order", dims)`` for a dense
    permutation (outermost dim first; applied at each call's sizes, so it
    holds under dynamic shapes), ``("strides", strides)`` for other static
    strides (broadcast or gapped), None for row-major (or symbolic strides
    that are no permutation, which are left row-major)."""
    if t.dim() < 2:
        return None
    try:
        strides = [_hint(s) for s in t.stride()]
        sizes = [_hint(s) for s in t.shape]
    except Exception:
        return None
    if strides == _contiguous_strides(sizes):
        return None
    order = sorted(range(t.dim()), key=lambda d: (-strides[d], d))
    expect = 1
    dense = True
    for d in reversed(order):  # dense: each stride the product of the inner sizes
        if sizes[d] != 1 and strides[d] != expect:
            dense = False
            break
        expect *= sizes[d]
    if dense:
        return ("order", order) if order != list(range(t.dim())) else None
    if any(isinstance(s, torch.SymInt) for s in t.stride()):
        return None
    return ("strides", strides)


def _static_specs(placeholders: Sequence[torch.fx.Node],
                  results: Sequence[Any]) -> Optional[list[tuple[torch.dtype, list[int], list[int]]]]:
    """Each output's (dtype, shape, strides) when the graph's inputs and
    outputs are all tensors of static shapes and strides, else None."""

    def static(t: Any) -> bool:
        return isinstance(t, torch.Tensor) and not any(
            isinstance(d, torch.SymInt) for d in (*t.shape, *t.stride()))

    if not all(static(n.meta.get("val")) for n in placeholders):
        return None
    specs = []
    for a in results:
        v = a.meta.get("val") if isinstance(a, torch.fx.Node) else None
        if not static(v):
            return None
        specs.append((v.dtype, [int(d) for d in v.shape], [int(s) for s in v.stride()]))
    return specs


def _contiguous_strides(sizes: Sequence[int]) -> list[int]:
    out, acc = [0] * len(sizes), 1
    for d in reversed(range(len(sizes))):
        out[d] = acc
        acc *= max(sizes[d], 1)
    return out


def _restride(r: torch.Tensor, layout: tuple[str, list[int]]) -> torch.Tensor:
    """A copy of the row-major engine output r in the recorded layout."""
    kind, spec = layout
    if kind == "order":
        p = torch.empty_permuted(r.shape, spec, dtype=r.dtype)
        p.copy_(r)
        return p
    # static strides: broadcast dims (stride 0) hold one slice, expanded after
    base = [1 if st == 0 else n for n, st in zip(r.shape, spec)]
    out = torch.empty_strided(base, spec, dtype=r.dtype)
    out.copy_(r[tuple(slice(0, 1) if st == 0 else slice(None) for st in spec)])
    return out.as_strided(r.shape, spec) if base != list(r.shape) else out


class CompiledGraph:
    """One aten graph (forward, backward or inference) compiled by torchtpu.

    Called by AOTAutograd with a list of arguments (boxed calling: the list
    is cleared so that inputs can be freed early); returns the graph's
    outputs as CPU tensors.
    """

    def __init__(self, gm: torch.fx.GraphModule, example_inputs: Sequence[Any], kind: str, opts: Options) -> None:
        # An instance attribute, so that dynamo's disable() wrapper of the
        # backward copies it (functools.wraps copies __dict__).
        self._boxed_call = True
        self.gm = gm
        self.kind = kind
        self.name = f"{kind}_{next(_counter)}"
        self.opts = opts
        self.program: Optional[_lib.Program] = None
        self.fallback_reason: Optional[str] = None
        self.unsupported: list[dict[str, Any]] = []
        self.runs = 0
        self.run_seconds = 0.0
        self.nodes = sum(1 for n in gm.graph.nodes if n.op == "call_function")
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        self.tensor_inputs = [isinstance(n.meta.get("val", ex), torch.Tensor)
                              for n, ex in zip(placeholders, example_inputs)]
        out = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
        results = out.args[0] if isinstance(out.args[0], (tuple, list)) else (out.args[0],)
        self.single = not isinstance(out.args[0], (tuple, list))
        self.outputs: list[tuple[str, Any]] = []
        for a in results:
            if isinstance(a, torch.fx.Node):
                v = a.meta.get("val")
                kind_ = _out_kind(v)
                self.outputs.append((kind_, _layout(v) if kind_ == "tensor" else None))
            else:
                self.outputs.append(("constant", a))
        # With static shapes (every input a tensor, every output a tensor of
        # fixed shape and strides), calls after the first take the engine's
        # fast path (_lib.FastCall): outputs allocated in their recorded
        # layouts and written in place by the engine.
        self._fast: Optional[_lib.FastCall] = None
        self._static_outs = _static_specs(placeholders, results)
        # A graph whose tensors live on the tpu device runs on the device's
        # buffers (_device_graph); None for a graph of CPU tensors.
        self._device = _device_graph.for_graph(self, example_inputs, results)
        self.pt2: Optional[bytes] = None
        t0 = time.perf_counter()
        if kind in opts.eager_graphs:
            self.fallback_reason = f"options eager_graphs={list(opts.eager_graphs)}"
            self.compile_seconds = 0.0
            with _graphs_lock:
                _graphs.append(self)
            return
        try:
            pt2 = self.pt2 = to_pt2(gm, example_inputs)
            self.program = _lib.Program(pt2, self._device.engine_options() if self._device else opts.engine())
            self.unsupported = self.program.info()["unsupported"]
        except Exception as e:
            self._fall_back(f"{type(e).__name__}: {e}")
        if self.unsupported:
            ops = ", ".join(u["op"] for u in self.unsupported)
            self._fall_back(f"ops torchtpu cannot run: {ops}", self.unsupported)
        self.compile_seconds = time.perf_counter() - t0
        with _graphs_lock:
            _graphs.append(self)

    def _fall_back(self, reason: str, ops: Sequence[Mapping[str, Any]] = ()) -> None:
        """Applies the fallback policy to a graph torchtpu cannot run."""
        where = ""
        if ops and ops[0].get("source"):
            where = f" at {ops[0]['source']}"
        if self.opts.fallback == "error":
            if ops:
                first = ops[0]
                raise UnsupportedOpError(f"torchtpu cannot run {first['op']} (node {first['node']}){where}; "
                                         f"graph {self.name}: {reason}")
            raise _lib.TorchTPUError(f"torchtpu cannot run graph {self.name}: {reason}")
        self.program = None
        self.fallback_reason = reason
        key = ",".join(sorted(u["op"] for u in ops)) or reason
        if key not in _warned_ops:
            _warned_ops.add(key)
            warnings.warn(f"torchtpu: graph {self.name} runs in eager PyTorch: {reason}{where}", stacklevel=2)

    def __call__(self, *call_args: Any) -> Any:
        # AOTAutograd calls boxed (one list, cleared here so inputs can be
        # freed early) where it sees _boxed_call, else with the arguments
        # (the backward, wrapped by dynamo's disable()).
        if len(call_args) == 1 and type(call_args[0]) is list:
            args = call_args[0]
        else:
            args = list(call_args)
        if self._device is not None and self.program is not None:
            return self._device.call(args)
        if self._fast is not None:
            t0 = time.perf_counter()
            outs = self._fast(args)
            args.clear()
            self.runs += 1
            self.run_seconds += time.perf_counter() - t0
            return outs[0] if self.single else tuple(outs)
        if self.program is None:
            t0 = time.perf_counter()
            outs = self.gm(*args)
            args.clear()
            self.runs += 1
            self.run_seconds += time.perf_counter() - t0
            return outs
        tensors = [a for a, t in zip(args, self.tensor_inputs) if t]
        first = self.runs == 0
        if first and self.opts.dump_dir:
            self._dump(tensors)
        saved = list(args) if first else None
        args.clear()
        t0 = time.perf_counter()
        try:
            raw = self.program.run(tensors)
        except _lib.TorchTPUError as e:
            if not first:
                raise
            self._fall_back(f"the first run failed: {e}")
            outs = self.gm(*saved)
            self.runs += 1
            self.run_seconds += time.perf_counter() - t0
            return outs
        if first and self._static_outs is not None:
            self._fast = _lib.FastCall(self.program, tensors, self._static_outs)
        del tensors
        outs = []
        for (kind, extra), r in zip(self.outputs, raw):
            if kind == "tensor":
                if extra is not None and r is not None:
                    r = _restride(r, extra)
                outs.append(r)
            elif kind == "int":
                outs.append(int(r.item()) if isinstance(r, torch.Tensor) else r)
            elif kind == "float":
                outs.append(float(r.item()) if isinstance(r, torch.Tensor) else r)
            elif kind == "bool":
                outs.append(bool(r.item()) if isinstance(r, torch.Tensor) else r)
            else:
                outs.append(extra)
        self.runs += 1
        self.run_seconds += time.perf_counter() - t0
        if self.single:
            return outs[0]
        return tuple(outs)

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

    def report(self) -> dict[str, Any]:
        """What happened to this graph: where it ran, why not torchtpu, counts."""
        r: dict[str, Any] = {"name": self.name, "kind": self.kind, "device": self.opts.device,
                             "ran_on": "eager" if self.program is None else "torchtpu", "runs": self.runs,
                             "nodes_on_torchtpu": 0 if self.program is None else self.nodes,
                             "nodes_on_eager": self.nodes if self.program is None else 0,
                             "compile_ms": round(self.compile_seconds * 1e3, 2),
                             "run_ms": round(self.run_seconds * 1e3, 2)}
        if self._device is not None:
            r.update(self._device.report())
        if self.fallback_reason:
            r["fallback_reason"] = self.fallback_reason
        if self.unsupported:
            r["unsupported"] = self.unsupported
        if self.program is not None:
            m = self.program.metrics()
            r["engine"] = {k: m.get(k) for k in ("compiles", "cache_hits", "cache_misses", "hits_by",
                                                 "recompiles", "fallbacks", "runs", "run_ms", "compile_ms",
                                                 "bucketing")}
        return r


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

    aot = aot_autograd(fw_compiler=compiler("forward"), bw_compiler=compiler("backward"),
                       inference_compiler=compiler("inference"), decompositions=_decompositions)
    return aot(gm, example_inputs)


def graphs() -> list[CompiledGraph]:
    """Every graph compiled in this process, oldest first."""
    with _graphs_lock:
        return list(_graphs)


def reset() -> None:
    """Forgets the compiled graphs' records (not the compiled code)."""
    with _graphs_lock:
        _graphs.clear()
    _warned_ops.clear()
