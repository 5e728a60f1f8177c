"""One aten graph as one engine program.

:class:`EngineGraph` serializes an AOTAutograd graph (or a part of one, see
``_partition``) as ``.pt2`` bytes, loads it into the engine and runs it on
CPU tensors read in place. Its outputs come back with the strides the graph
records for them (the fake tensors' layout), so that eager PyTorch and the
next graph read them as PyTorch's own kernels would have left them.
"""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence

import torch
import torch.fx

from . import _lib
from ._export import to_pt2
from ._graph_io import (Alias, AliasSpec, StridedView, _alias, _alias_of_spec, _alias_spec,  # noqa: F401
                        _contiguous_strides, _inverse, _layout, _layout_words, _permuted_io, _restride)
from ._options import Options


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


def _static_specs(placeholders: Sequence[torch.fx.Node],
                  results: Sequence[Any]) -> Optional[list[Optional[tuple[torch.dtype, list[int], list[int]]]]]:
    """Each output's (dtype, shape, strides) (None for a None output, as a
    backward returns for an input that needs no gradient) when the graph's
    inputs and outputs are all tensors of static shapes and strides, else
    None."""

    def static(t: Any) -> bool:
        return isinstance(t, torch.Tensor) and not any(
            isinstance(d, torch.SymInt) for d in (*t.shape, *t.stride()))

    if not all(static(n.meta.get("val")) for n in placeholders):
        return None
    specs: list[Optional[tuple[torch.dtype, list[int], list[int]]]] = []
    for a in results:
        if a is None:
            specs.append(None)
            continue
        v = a.meta.get("val") if isinstance(a, torch.fx.Node) else None
        if not static(v):
            return None
        specs.append((v.dtype, [int(d) for d in v.shape], [int(s) for s in v.stride()]))
    return specs


class EngineGraph:
    """An aten graph loaded into the engine: ``run`` takes the graph's
    tensor arguments (see ``tensors``) and returns its outputs. Ops the
    engine lacks are listed in ``unsupported`` (then the graph cannot run
    as one program).

    The engine binds each size symbol from the input tensors whose dims it
    is. A SymInt argument whose symbol no input tensor carries as a dim of
    its own (a graph fed only ``[s0*8]`` tensors and ``s0``) is handed to
    the engine as the shape of an empty ``[s, 0]`` tensor, an extra input."""

    def __init__(self, gm: torch.fx.GraphModule, example_inputs: Sequence[Any], opts: Options,
                 engine_options: Optional[dict[str, Any]] = None, guarded: bool = False,
                 permuted_io: bool = True) -> None:
        # guarded: dynamo's guards hold the inputs' shapes and strides (a
        # forward or inference graph); else the fast path checks them.
        # permuted_io: inputs and outputs in a permuted dense layout are
        # passed in place (_permuted_io; CPU tensors only).
        self.guarded = guarded
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        vals = [n.meta.get("val", ex) for n, ex in zip(placeholders, example_inputs)]
        self.tensor_inputs = [isinstance(v, torch.Tensor) for v in vals]
        out = gm.graph.output_node()
        results = out.args[0] if isinstance(out.args[0], (tuple, list)) else (out.args[0],)
        self.single = not isinstance(out.args[0], (tuple, list))
        self.outputs: list[tuple[str, Any]] = []
        for a in results:
            if isinstance(a, torch.fx.Node):
                v = a.meta.get("val")
                kind = _out_kind(v)
                self.outputs.append((kind, _layout(v) if kind == "tensor" else None))
            else:
                self.outputs.append(("constant", a))
        # With static shapes (every input a tensor, every output a tensor of
        # fixed shape and strides), calls after the first take the engine's
        # fast path (``fast``, a _lib.FastCall): outputs allocated in their
        # recorded layouts and written in place by the engine.
        self.fast: Optional[_lib.FastCall] = None
        # the fast path's calls made by the C++ extension (_bind_graph_call)
        self._call_id: Optional[int] = None
        self._static_outs = _static_specs(placeholders, results)
        # Outputs that are inputs as they are, outputs returned before, or
        # views of either (the weights a training forward saves for its
        # backward, a key/value cache returned twice): taken from those
        # tensors as the graph makes them (finish_outputs), never copied out
        # of the engine (a ResNet-18 step's forward returned 47 MB of its
        # weights, copied every call).
        pos = {n: k for k, n in enumerate(n for n, t in zip(placeholders, self.tensor_inputs) if t)}
        self.aliases: dict[int, Alias] = {}
        # the same made by one as_strided, for calls on the fast path
        # (inputs in their recorded layouts)
        self._aliases_fast: dict[int, Alias] = {}
        self._alias_specs: dict[int, Optional[AliasSpec]] = {}
        earlier: dict[torch.fx.Node, int] = {}
        for i, a in enumerate(results):
            f = _alias(a, pos, earlier)
            if f is not None and isinstance(a, torch.fx.Node) and isinstance(a.meta.get("val"), torch.Tensor):
                self.aliases[i] = f
                spec = self._alias_specs[i] = _alias_spec(a, pos, earlier)
                self._aliases_fast[i] = _alias_of_spec(spec) if spec is not None else f
            if isinstance(a, torch.fx.Node) and a not in earlier:
                earlier[a] = i
        # Inputs and outputs in other layouts than row-major, passed in
        # place: the engine reads input k as its tensor's
        # .permute(in_orders[k]), and output i is made by out_views[i] =
        # (k, view) from the engine's output k, a row-major value of which
        # it is that view (written by the engine once when several outputs
        # view it: the others' engine outputs are skipped).
        self.in_orders: dict[int, list[int]] = {}
        self.out_views: dict[int, tuple[int, StridedView]] = {}
        if permuted_io and self._static_outs is not None:
            example_inputs = list(example_inputs)
            gm, self.in_orders, views = _permuted_io(gm, placeholders, results, self.tensor_inputs,
                                                     self.aliases, example_inputs)
            for i, (k, sv, shape) in views.items():
                self.out_views[i] = (k, sv)
                self.outputs[i] = ("tensor", None)
                dt = self._static_outs[i][0]
                self._static_outs[i] = (dt, shape, _contiguous_strides(shape)) if k == i else None
        if self._static_outs is not None:
            self._static_outs = [None if i in self.aliases else o for i, o in enumerate(self._static_outs)]
        self.binders = _unbound_symints(vals)
        if self.binders:
            gm, example_inputs = _with_binders(gm, placeholders, self.binders, list(example_inputs))
        self.pt2: bytes = to_pt2(gm, example_inputs)
        self.program = _lib.Program(self.pt2, engine_options if engine_options is not None else opts.engine())
        self.unsupported: list[dict[str, Any]] = self.program.info()["unsupported"]

    def tensors(self, args: Sequence[Any]) -> list[torch.Tensor]:
        """The engine's inputs for a call's arguments: the tensors (the
        engine binds the SymInt placeholders from their shapes), then an
        empty ``[s, 0]`` tensor for each SymInt no tensor binds."""
        ts = [a for a, t in zip(args, self.tensor_inputs) if t]
        for i in self.binders:
            ts.append(torch.empty((int(args[i]), 0)))
        return ts

    def engine_inputs(self, tensors: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        """The program's inputs for the tensor arguments: each as it is, or
        the row-major view of a permuted one (``in_orders``)."""
        ts = list(tensors)
        for k, order in self.in_orders.items():
            ts[k] = ts[k].permute(order)
        return ts

    def call_fast(self, tensors: Sequence[torch.Tensor]) -> Optional[list[Any]]:
        """The outputs by the fast path (``fast``), or None where it does not
        take the call (no fast path yet, an input in another layout)."""
        if self._call_id is not None:
            # the whole call in the C++ extension (_bind_graph_call); the
            # engine's errors come back as TorchTPUError, as on the others
            try:
                res = torch.ops.torchtpu._graph_call(self._call_id, tensors)
            except RuntimeError as e:
                raise _lib.TorchTPUError(str(e)) from None
            return res if res else None
        fast = self.fast
        if fast is None:
            return None
        outs = fast(self.engine_inputs(tensors) if self.in_orders else tensors)
        if outs is not None:
            self.finish_outputs(outs, tensors, fast=True)
        return outs

    def run(self, tensors: Sequence[torch.Tensor]) -> Any:
        """Runs the program on the tensor arguments; returns the graph's
        outputs (a tuple, or the one value of a graph with a single output)."""
        outs = self.call_fast(tensors)
        if outs is not None:
            return outs[0] if self.single else tuple(outs)
        ins = self.engine_inputs(tensors)
        raw = self.program.run(ins)
        if self._static_outs is not None and self.fast is None:
            self.fast = _lib.FastCall(self.program, ins, self._static_outs, check_layout=not self.guarded)
            self._bind_graph_call(tensors)
        outs = self.values(raw)
        self.finish_outputs(outs, tensors)
        if self.single:
            return outs[0]
        return tuple(outs)

    def _bind_graph_call(self, tensors: Sequence[torch.Tensor]) -> None:
        """Hands the fast path's calls to the C++ extension when it is
        loaded (``torchtpu.device``: a wheel's prebuilt one, or an earlier
        build of a checkout): the layout checks, the outputs' allocation,
        the pointers and the views after the run (``out_views``,
        ``aliases``) then cost a fraction of a microsecond per tensor
        instead of one or more in Python (``runtime/graph_call.cpp``).
        ``TORCHTPU_GRAPH_CALL=0`` keeps them in Python."""
        fast = self.fast
        if (fast is None or os.environ.get("TORCHTPU_GRAPH_CALL", "1") == "0" or self.binders or fast.n_out == 0
                or any(sp is None for sp in self._alias_specs.values())
                or not all(t.device.type == "cpu" for t in tensors) or not hasattr(torch.ops.torchtpu, "_graph_call")):
            return
        check = not self.guarded
        plan = [fast.handle, fast.n_in, fast.n_out, int(check)]
        if check:
            for t in tensors:
                plan += _layout_words(t.shape, t.stride())
        dtypes = []
        for o in fast._specs:
            if o is None:
                plan.append(0)
                dtypes.append(torch.empty(0))
            else:
                plan += [1, *_layout_words(o[1], o[2])]
                dtypes.append(torch.empty(0, dtype=o[0]))
        views = []
        for i, (k, (size, stride, off)) in self.out_views.items():
            views.append([i, 1, k, 0, *_layout_words(size, stride), off])
        for i, spec in self._alias_specs.items():
            assert spec is not None
            kind, k, sv = spec
            src = 0 if kind == "input" else 2
            views.append([i, src, k, 1] if sv is None else [i, src, k, 0, *_layout_words(sv[0], sv[1]), sv[2]])
        plan.append(len(views))
        for v in views:
            plan += v
        self._call_id = torch.ops.torchtpu._graph_call_bind(plan, dtypes)

    def __del__(self) -> None:
        cid, self._call_id = getattr(self, "_call_id", None), None
        if cid is not None:
            try:
                torch.ops.torchtpu._graph_call_free(cid)
            except Exception:  # interpreter shutdown
                pass

    def finish_outputs(self, outs: list[Any], tensors: Sequence[torch.Tensor], fast: bool = False) -> None:
        """Completes the engine's outputs as the graph's: the views of
        engine outputs made (``out_views``), then, in order, the outputs
        that are the tensor arguments, earlier outputs, or views of either
        (``aliases``; with ``fast``, the inputs are known to have their
        recorded layouts, and a view is one as_strided)."""
        if self.out_views:
            raw = list(outs)
            for i, (k, (size, stride, off)) in self.out_views.items():
                r = raw[k]
                if r is not None:
                    outs[i] = r.as_strided(size, stride, r.storage_offset() + off)
        for i, f in (self._aliases_fast if fast else self.aliases).items():
            outs[i] = f(tensors, outs)

    def values(self, raw: Sequence[Any], devices: Optional[Sequence[Optional[str]]] = None) -> list[Any]:
        """The graph's outputs from the program's raw results: tensors in
        their recorded layouts (moved to ``devices[i]`` where given and not
        already there), SymInt/SymFloat/SymBool outputs as Python numbers,
        constants as recorded."""
        outs = []
        for i, ((kind, extra), r) in enumerate(zip(self.outputs, raw)):
            if kind == "tensor":
                if extra is not None and r is not None:
                    r = _restride(r, extra)
                dev = devices[i] if devices is not None else None
                if r is not None and dev is not None and dev != r.device.type:
                    r = r.to(dev)
                outs.append(r)
            elif kind == "int":
                outs.append(int(r.item()) if isinstance(r, torch.Tensor) else r)
            elif kind == "float":
                outs.append(float(r.item()) if isinstance(r, torch.Tensor) else r)
            elif kind == "bool":
                outs.append(bool(r.item()) if isinstance(r, torch.Tensor) else r)
            else:
                outs.append(extra)
        return outs

    def metrics(self) -> dict[str, Any]:
        """The engine's counters for this program (compiles, cache hits, recompiles, times)."""
        m = self.program.metrics()
        return {k: m.get(k) for k in ("compiles", "cache_hits", "cache_misses", "hits_by", "recompiles",
                                      "fallbacks", "runs", "run_ms", "compile_ms", "bucketing")}


def _plain_dims(v: Any) -> set[Any]:
    """The size symbols that are a dim of tensor v on their own."""
    if not isinstance(v, torch.Tensor):
        return set()
    import sympy

    return {d.node.expr for d in v.shape if isinstance(d, torch.SymInt) and isinstance(d.node.expr, sympy.Symbol)}


def _unbound_symints(vals: Sequence[Any]) -> list[int]:
    """Positions of the SymInt arguments that are a plain symbol no tensor
    argument has as a dim (one position per symbol)."""
    import sympy

    bound: set[Any] = set()
    for v in vals:
        bound |= _plain_dims(v)
    out = []
    for i, v in enumerate(vals):
        if isinstance(v, torch.SymInt) and isinstance(v.node.expr, sympy.Symbol) and v.node.expr not in bound:
            bound.add(v.node.expr)
            out.append(i)
    return out


def _with_binders(gm: torch.fx.GraphModule, placeholders: Sequence[torch.fx.Node], binders: Sequence[int],
                  example_inputs: list[Any]) -> tuple[torch.fx.GraphModule, list[Any]]:
    """A copy of gm with an unused ``[s, 0]`` tensor placeholder after the
    others for each SymInt placeholder in binders."""
    import copy

    from torch._guards import detect_fake_mode

    g = copy.deepcopy(gm.graph)
    phs = [n for n in g.nodes if n.op == "placeholder"]
    fake_mode = detect_fake_mode([p.meta.get("val") for p in placeholders])
    last = phs[-1]
    for i in binders:
        with g.inserting_after(last):
            last = g.placeholder(f"bind_{phs[i].name}")
        with fake_mode:
            last.meta["val"] = torch.empty((phs[i].meta["val"], 0))
        example_inputs.append(last.meta["val"])
    return torch.fx.GraphModule(gm, g), example_inputs
