"""Partial graphs: the ops torchtpu cannot run go to eager PyTorch, the rest
to the engine.

A graph (forward, backward or inference) holding an op the engine lacks is
split with PyTorch's own partitioner
(``torch.fx.passes.infra.partitioner.CapabilityBasedPartitioner``, as
Torch-TensorRT and OpenVINO do): the supported nodes are grouped into as
few parts as the graph allows without cycles (a part never waits on an
eager op that waits on the same part), each part becomes one engine program
(an :class:`~torchtpu._graph.EngineGraph`), and the graph that calls the
parts and the unsupported ops in order runs in Python. ``getitem`` follows
its producer; views inside a part are the engine's, between parts they are
PyTorch's (no copy). Tensors cross between parts as they are: the engine
reads CPU tensors in place and hands its outputs over without a copy, in the
strides the graph records for them.

A part needs every size symbol its tensors use: one that no input carries
(a part fed only ``[s0*8]`` views) becomes a SymInt argument of the part,
read from the graph's inputs.
"""

from __future__ import annotations

import copy
import operator
import re
import warnings
from typing import Any, Iterable, Mapping, Optional, Sequence

import torch
import torch.fx
import torch.fx.passes.operator_support

from . import _lib, _stablehlo
from ._graph import EngineGraph, _plain_dims
from ._options import Options


def op_name(target: Any) -> str:
    """The engine's spelling of a call_function target: ``aten::add.Tensor``,
    ``mylib::mysin.default``, ``higher_order::auto_functionalized``,
    ``_operator.getitem``."""
    if isinstance(target, torch._ops.OpOverload):
        return f"{target._schema.name}.{target._overloadname or 'default'}"
    if isinstance(target, torch._ops.HigherOrderOperator):
        return f"higher_order::{target.name()}"
    mod = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", str(target))
    if mod in ("_operator", "operator"):
        return f"_operator.{name}"
    return f"{mod}.{name}" if mod else name


def canonical(name: str) -> str:
    """An op name as users write it (``torch.ops.aten.addmm.default``,
    ``aten.addmm``, ``aten::addmm.default``) in the engine's spelling; a
    name without an overload stands for all of them (``aten::addmm``)."""
    name = name.strip().removeprefix("torch.ops.")
    if "::" not in name:
        ns, _, rest = name.partition(".")
        name = f"{ns}::{rest}"
    return name


def _matches(op: str, patterns: Iterable[str]) -> bool:
    packet = op.rsplit(".", 1)[0]
    return any(p == op or p == packet for p in patterns)


def source(node: torch.fx.Node) -> str:
    """The user's line that made the node (its stack trace's last frame)."""
    st = node.meta.get("stack_trace") or ""
    lines = st.rstrip().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].lstrip().startswith("File "):
            code = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return f"{lines[i].strip()} {code}".strip()
    return ""


def _counted(n: torch.fx.Node) -> bool:
    """Nodes the report counts: calls of ops (not getitem of their tuples)."""
    return n.op == "call_function" and n.target is not operator.getitem


def compute_nodes(gm: torch.fx.GraphModule) -> int:
    return sum(1 for n in gm.graph.nodes if _counted(n))


def eager_nodes(gm: torch.fx.GraphModule, unsupported: Sequence[Mapping[str, Any]],
                opts: Options) -> dict[str, dict[str, Any]]:
    """The nodes the engine cannot run, by name: op, node, source and why
    (the engine lacks the op; a higher-order op; ``Options.eager_ops``)."""
    missing = {u["op"] for u in unsupported}
    forced = [canonical(p) for p in opts.eager_ops]
    out: dict[str, dict[str, Any]] = {}
    for n in gm.graph.nodes:
        if n.op != "call_function" or n.target is operator.getitem:
            continue
        op = op_name(n.target)
        inner = _functionalized_op(n)
        if inner is not None:  # a mutating custom op, as functionalization calls it
            op, why = op_name(inner), f"a mutating op ({n.target.name()})"
        elif op in missing:
            why = "the engine has no lowering"
        elif isinstance(n.target, torch._ops.HigherOrderOperator):
            why = "a higher-order op"
        elif forced and _matches(op, forced):
            why = "options eager_ops"
        else:
            continue
        out[n.name] = {"op": op, "node": n.name, "source": source(n), "reason": why}
    return out


def _functionalized_op(n: torch.fx.Node) -> Optional[torch._ops.OpOverload]:
    """The op an ``auto_functionalized`` node calls (a mutating custom op)."""
    if isinstance(n.target, torch._ops.HigherOrderOperator) and n.target.name().startswith("auto_functionalized"):
        if n.args and isinstance(n.args[0], torch._ops.OpOverload):
            return n.args[0]
    return None


class _Support(torch.fx.passes.operator_support.OperatorSupportBase):
    def __init__(self, eager: Mapping[str, Any]) -> None:
        self.eager = eager

    def is_node_supported(self, submodules: Mapping[str, torch.nn.Module], node: torch.fx.Node) -> bool:
        return node.op == "call_function" and node.name not in self.eager


def _free_symbols(v: Any) -> set[Any]:
    if isinstance(v, torch.Tensor):
        out: set[Any] = set()
        for d in v.shape:
            if isinstance(d, torch.SymInt):
                out |= d.node.expr.free_symbols
        return out
    if isinstance(v, torch.SymInt):
        return set(v.node.expr.free_symbols)
    return set()


class Part(torch.nn.Module):
    """One part of a split graph: its nodes as one engine program, or in
    eager PyTorch when the engine fails its first run."""

    def __init__(self, gm: torch.fx.GraphModule, opts: Options, name: str) -> None:
        super().__init__()
        self.gm = gm
        self.name = name
        self.nodes = compute_nodes(gm)
        self.runs = 0
        self.engine: Optional[EngineGraph] = None
        self.fallback_reason: Optional[str] = None
        try:
            ex = [n.meta.get("val") for n in gm.graph.nodes if n.op == "placeholder"]
            eg = EngineGraph(gm, ex, opts)
            if eg.unsupported:
                raise _lib.TorchTPUError("ops torchtpu cannot run: " + ", ".join(u["op"] for u in eg.unsupported))
            self.engine = eg
        except Exception as e:
            self.fallback_reason = f"{type(e).__name__}: {e}"

    @property
    def on_torchtpu(self) -> bool:
        return self.engine is not None

    def forward(self, *args: Any) -> Any:
        first = self.runs == 0
        self.runs += 1
        if self.engine is None:
            return self.gm(*args)
        try:
            return self.engine.run(self.engine.tensors(args))
        except _lib.TorchTPUError as e:
            if not first:
                raise
            _stablehlo.raise_if_lowering_error(e)
            self.engine = None
            self.fallback_reason = f"the first run failed: {e}"
            warnings.warn(f"torchtpu: {self.name} runs in eager PyTorch: {self.fallback_reason}", stacklevel=2)
            return self.gm(*args)

    def report(self) -> dict[str, Any]:
        r: dict[str, Any] = {"name": self.name, "ran_on": "torchtpu" if self.engine else "eager",
                             "nodes": self.nodes, "runs": self.runs}
        if self.fallback_reason:
            r["fallback_reason"] = self.fallback_reason
        if self.engine is not None:
            r["engine"] = self.engine.metrics()
        return r


class Split:
    """A graph split into engine parts and eager ops; called with the
    graph's arguments, returns its outputs."""

    def __init__(self, gm: torch.fx.GraphModule, eager: Mapping[str, Mapping[str, Any]], opts: Options,
                 name: str) -> None:
        from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
        from torch.fx.passes.utils.fuser_utils import fuse_by_partitions

        self.eager_ops = list(eager.values())
        self.nodes = compute_nodes(gm)
        g = copy.deepcopy(gm.graph)
        work = torch.fx.GraphModule(gm, g)
        partitioner = CapabilityBasedPartitioner(work, _Support(eager), allows_single_node_partition=True)
        proposed = partitioner.propose_partitions()
        keep = []
        for p in proposed:
            if sum(1 for n in p.nodes if _counted(n)) >= max(opts.min_part_size, 1):
                keep.append(p)
        # parts in the order they run, so that part0 comes first in the report
        order = {n: i for i, n in enumerate(work.graph.nodes)}
        keep.sort(key=lambda p: min(order[n] for n in p.nodes))
        prefix = "torchtpu_part_"
        fused = fuse_by_partitions(work, [dict(p.nodes) for p in keep], prefix=prefix, always_return_tuple=True)
        self.parts: list[Part] = []
        for node in list(fused.graph.nodes):
            if node.op != "call_module" or not str(node.target).startswith(prefix):
                continue
            sub = getattr(fused, node.target)
            _bind_symbols(fused, node, sub)
            part = Part(sub, opts, f"{name}.part{len(self.parts)}")
            setattr(fused, node.target, part)
            self.parts.append(part)
        fused.recompile()
        self.gm = fused

    def __call__(self, args: list[Any]) -> Any:
        return self.gm(*args)

    def nodes_on_torchtpu(self) -> int:
        return sum(p.nodes for p in self.parts if p.on_torchtpu)


def _bind_symbols(parent: torch.fx.GraphModule, call: torch.fx.Node, sub: torch.fx.GraphModule) -> None:
    """Makes every size symbol a part's inputs use reach the part: one that
    no input carries (as a dim of its own or as a SymInt argument) becomes
    a new SymInt argument, from a SymInt placeholder of the graph or the
    size of a tensor placeholder (the EngineGraph passes it on)."""
    import sympy

    phs = [n for n in sub.graph.nodes if n.op == "placeholder"]
    needed: set[Any] = set()
    bound: set[Any] = set()
    for p in phs:
        v = p.meta.get("val")
        needed |= _free_symbols(v)
        bound |= _plain_dims(v)
        if isinstance(v, torch.SymInt) and isinstance(v.node.expr, sympy.Symbol):
            bound.add(v.node.expr)
    missing = needed - bound
    for s in sorted(missing, key=str):
        src = _symbol_source(parent, s)
        if src is None:
            continue  # the part fails its first run and goes eager, named in the report
        call.args = tuple(call.args) + (src,)
        with sub.graph.inserting_after(phs[-1]):
            ph = sub.graph.placeholder(f"sym_{re.sub(r'[^0-9a-zA-Z_]', '_', str(s))}")
        ph.meta["val"] = src.meta["val"]
        phs.append(ph)
    if missing:
        sub.recompile()


def _symbol_source(gm: torch.fx.GraphModule, s: Any) -> Optional[torch.fx.Node]:
    """A node of gm whose value is symbol s: a SymInt placeholder, or a
    new sym_size of a tensor placeholder that has s as a dim."""
    phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for p in phs:
        v = p.meta.get("val")
        if isinstance(v, torch.SymInt) and v.node.expr == s:
            return p
    for p in phs:
        v = p.meta.get("val")
        if not isinstance(v, torch.Tensor):
            continue
        for i, d in enumerate(v.shape):
            if isinstance(d, torch.SymInt) and d.node.expr == s:
                with gm.graph.inserting_after(phs[-1]):
                    n = gm.graph.call_function(torch.ops.aten.sym_size.int, (p, i))
                n.meta["val"] = d
                return n
    return None
