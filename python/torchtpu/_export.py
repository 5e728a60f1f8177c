"""Turning the aten graphs that torch.compile hands a backend into .pt2 bytes.

AOTAutograd gives a backend functional aten graphs (a forward, and for
training a backward) whose placeholders are tensors and, with dynamic shapes,
SymInts. Such a graph is already what ``torch.export`` would produce, so it
is wrapped as an ``ExportedProgram`` directly (every placeholder a user input,
every output a user output) and saved with ``torch.export.save``: no
re-tracing, node names and source lines kept. Should that fail for a graph
(a newer PyTorch changing the serializer's expectations), the graph is
re-exported with ``torch.export.export`` instead.
"""

from __future__ import annotations

import io
from typing import Any, Sequence

import torch
import torch.fx
from torch.export import ExportedProgram
from torch.export.graph_signature import (
    ConstantArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    SymBoolArgument,
    SymFloatArgument,
    SymIntArgument,
    TensorArgument,
)

# Node metadata the serializer writes and the engine reads; the rest
# (module stacks holding classes, provenance) is dropped from the copy.
_KEEP_META = ("val", "stack_trace", "unbacked_bindings")


def _argument(name: str, v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        return TensorArgument(name=name)
    if isinstance(v, torch.SymInt):
        return SymIntArgument(name=name)
    if isinstance(v, torch.SymFloat):
        return SymFloatArgument(name=name)
    if isinstance(v, torch.SymBool):
        return SymBoolArgument(name=name)
    return ConstantArgument(name=name, value=v)


def _copy_graph(gm: torch.fx.GraphModule) -> tuple[torch.fx.Graph, Any]:
    """A copy of gm's graph with trimmed node metadata, and its output values."""
    g = torch.fx.Graph()
    vals = g.graph_copy(gm.graph, {})
    out = g.output(vals)
    for n in g.nodes:
        n.meta = {k: n.meta[k] for k in _KEEP_META if k in n.meta}
    return g, out


def _range_constraints(placeholders: Sequence[torch.fx.Node]) -> dict[Any, Any]:
    """The value ranges of the size symbols the inputs use, from the graph's
    ShapeEnv (what dynamo's guards allow)."""
    rc: dict[Any, Any] = {}
    for n in placeholders:
        v = n.meta.get("val")
        if isinstance(v, torch.Tensor):
            syms = [d for d in v.shape if isinstance(d, torch.SymInt)]
        elif isinstance(v, torch.SymInt):
            syms = [v]
        else:
            syms = []
        for s in syms:
            expr = s.node.expr
            env = s.node.shape_env
            for sym in expr.free_symbols:
                if sym not in rc and sym in env.var_to_range:
                    rc[sym] = env.var_to_range[sym]
    return rc


def to_pt2(gm: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> bytes:
    """Serializes an AOTAutograd graph as .pt2 bytes for the engine."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    try:
        # AOTAutograd calls compilers inside its fake mode; constants are real.
        with unset_fake_temporarily():
            return _direct(gm)
    except Exception as direct_error:  # fall back to re-tracing
        try:
            return _reexport(gm, example_inputs)
        except Exception as e:
            raise RuntimeError(f"torchtpu could not serialize the graph: {direct_error}; "
                               f"torch.export also failed: {e}") from e


def _lift_constants(gm: torch.fx.GraphModule, graph: torch.fx.Graph) -> tuple[list[InputSpec], dict[str, Any]]:
    """Turns the graph's get_attr nodes (tensor constants) into placeholders
    of lifted constants, as torch.export writes them."""
    specs: list[InputSpec] = []
    constants: dict[str, Any] = {}
    first = next(iter(graph.nodes))
    fake_mode = None
    for node in list(graph.nodes):
        if node.op != "get_attr":
            continue
        value = gm
        for part in str(node.target).split("."):
            value = getattr(value, part)
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"graph attribute {node.target} is a {type(value).__name__}, not a tensor")
        name = "c_" + str(node.target).replace(".", "_")
        with graph.inserting_before(first):
            ph = graph.placeholder(name)
        val = node.meta.get("val")
        if val is None:  # the serializer wants a fake tensor's metadata
            if fake_mode is None:
                from torch._guards import detect_fake_mode
                from torch._subclasses.fake_tensor import FakeTensorMode

                vals = [n.meta.get("val") for n in graph.nodes if n.op == "placeholder"]
                fake_mode = detect_fake_mode(vals) or FakeTensorMode()
            val = fake_mode.from_tensor(value)
        ph.meta["val"] = val
        node.replace_all_uses_with(ph)
        graph.erase_node(node)
        constants[name] = value
        specs.append(InputSpec(kind=InputKind.CONSTANT_TENSOR, arg=TensorArgument(name=ph.name), target=name))
    return specs, constants


def _direct(gm: torch.fx.GraphModule) -> bytes:
    graph, out = _copy_graph(gm)
    lifted, constants = _lift_constants(gm, graph)
    lifted_names = {s.arg.name for s in lifted}
    placeholders = [n for n in graph.nodes if n.op == "placeholder" and n.name not in lifted_names]
    ins = lifted + [InputSpec(kind=InputKind.USER_INPUT, arg=_argument(n.name, n.meta.get("val")), target=None)
                    for n in placeholders]
    outs = []
    results = out.args[0] if isinstance(out.args[0], (tuple, list)) else (out.args[0],)
    for a in results:
        if isinstance(a, torch.fx.Node):
            arg = _argument(a.name, a.meta.get("val"))
        else:
            arg = ConstantArgument(name="", value=a)
        outs.append(OutputSpec(kind=OutputKind.USER_OUTPUT, arg=arg, target=None))
    sig = ExportGraphSignature(input_specs=ins, output_specs=outs)
    ep = ExportedProgram(root=torch.nn.Module(), graph=graph, graph_signature=sig, state_dict={},
                         range_constraints=_range_constraints(placeholders), module_call_graph=[],
                         constants=constants)
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    return buf.getvalue()


def _reexport(gm: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> bytes:
    ep = torch.export.export(gm, tuple(example_inputs), strict=False)
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    return buf.getvalue()
