"""Users' own lowerings: how torchtpu runs an op it does not know.

Two routes, both per process (register before the first compile or call
that reaches the op; ``torch._dynamo.reset()`` forgets graphs compiled
before):

- :func:`register_lowering`: a Python function of torch ops with the op's
  signature. Under ``torch.compile`` it is the op's decomposition
  (AOTAutograd traces it to aten and the engine lowers that like any other
  graph; the op's ``register_autograd`` formula still makes the backward).
  A mutating op's lowering mutates its arguments as the op does; it is
  inlined into the graph before AOTAutograd, which functionalizes it (its
  gradient is then that of the lowering's ops). On the ``tpu`` device it is
  the op's PrivateUse1 kernel, called with tpu tensors, each of its ops on
  the engine.
- :func:`register_stablehlo`: a function that returns the text of a
  StableHLO module for the op's argument shapes (see ``_stablehlo``).

Each lowering is checked against the op's fake kernel (the shapes and
dtypes ``register_fake`` gives): a lowering that returns other shapes or
dtypes, or raises, fails with :class:`LoweringError` naming the op and the
user's line.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any, Callable, Optional

import torch
import torch.fx

from . import _lib


class LoweringError(_lib.TorchTPUError):
    """A user's lowering raised, or returned shapes or dtypes other than the
    op's fake kernel gives."""


class Lowering:
    """One registered lowering: the op, the function, the route
    (``"torch"`` or ``"stablehlo"``) and where it was registered."""

    def __init__(self, op: torch._ops.OpOverload, fn: Callable[..., Any], route: str, where: str) -> None:
        self.op, self.fn, self.route, self.where = op, fn, route, where
        self.name = f"{op._schema.name}.{op._overloadname or 'default'}"
        self.mutates = op._schema.is_mutable

    def __repr__(self) -> str:
        return f"Lowering({self.name}, {self.route}, registered at {self.where})"


_lock = threading.Lock()
_registry: dict[torch._ops.OpOverload, Lowering] = {}
_libraries: dict[str, torch.library.Library] = {}


def resolve(op: Any) -> torch._ops.OpOverload:
    """The OpOverload that ``op`` names: an OpOverload, a custom op made by
    ``torch.library.custom_op``, a packet with one overload
    (``torch.ops.mylib.op``) or a name (``"mylib::op"``,
    ``"mylib::op.overload"``)."""
    if isinstance(op, torch._ops.OpOverload):
        return op
    inner = getattr(op, "_opoverload", None)  # torch.library.custom_op's CustomOpDef
    if isinstance(inner, torch._ops.OpOverload):
        return inner
    if isinstance(op, str):
        name = op.removeprefix("torch.ops.")
        if "::" in name:
            ns, _, rest = name.partition("::")
        else:
            ns, _, rest = name.partition(".")
        packet_name, _, overload = rest.partition(".")
        op = getattr(getattr(torch.ops, ns), packet_name)
        if overload:
            return getattr(op, overload)
    if isinstance(op, torch._ops.OpOverloadPacket):
        overloads = op.overloads()
        if len(overloads) != 1:
            raise TypeError(f"torchtpu: {op} has overloads {overloads}: name one (torch.ops.ns.op.overload)")
        return getattr(op, overloads[0])
    raise TypeError(f"torchtpu: {op!r} is not an op (want torch.ops.ns.op.overload, a custom op or 'ns::op')")


def _caller() -> str:
    for f in inspect.stack()[2:]:
        if not f.filename.startswith(__file__.rsplit("/", 1)[0]):
            return f"{f.filename}:{f.lineno}"
    return "?"


def register_lowering(op: Any, fn: Optional[Callable[..., Any]] = None) -> Any:
    """Tells torchtpu how to run ``op``: ``fn`` takes the op's arguments and
    computes its results with torch ops (which torchtpu lowers). Use as a
    decorator::

        @torchtpu.register_lowering(torch.ops.mylib.mysin.default)
        def _(x):
            return torch.sin(x)

    The op then runs on torchtpu under ``torch.compile`` (inference and
    training; the op's own autograd formula makes its backward) and on the
    ``tpu`` device (no CPU fallback). A mutating op's lowering mutates its
    arguments in place, as the op does. Registering again replaces the
    lowering (for graphs compiled afterwards)."""
    target = resolve(op)

    def register(f: Callable[..., Any]) -> Callable[..., Any]:
        _add(Lowering(target, f, "torch", _caller()))
        return f

    return register(fn) if fn is not None else register


def _add(low: Lowering) -> None:
    with _lock:
        _registry[low.op] = low
    _register_device_kernel(low)


def unregister(op: Any) -> None:
    """Forgets op's lowering (for tests); the tpu kernel stays registered
    but falls back to the op's CPU kernel."""
    with _lock:
        _registry.pop(resolve(op), None)


def get(op: Any) -> Optional[Lowering]:
    if not isinstance(op, torch._ops.OpOverload):
        return None
    return _registry.get(op)


def registered() -> list[Lowering]:
    """Every lowering registered in this process."""
    with _lock:
        return list(_registry.values())


def lowerings() -> dict[torch._ops.OpOverload, Callable[..., Any]]:
    """The torch-route lowerings as a decomposition table: pass it to
    ``ExportedProgram.run_decompositions(torchtpu.lowerings())`` so that a
    saved ``.pt2`` holds the aten ops of each lowering instead of the op
    (a program has no Python to call at run time)."""
    return {low.op: _checked(low) for low in registered() if low.route == "torch"}


def decompositions() -> dict[torch._ops.OpOverload, Callable[..., Any]]:
    """The decompositions AOTAutograd applies for the torch-route lowerings
    of non-mutating ops (mutating ones are inlined before AOTAutograd)."""
    return {low.op: _checked(low) for low in registered() if low.route == "torch" and not low.mutates}


def _where(node: Optional[torch.fx.Node]) -> str:
    if node is None:
        return ""
    from ._partition import source

    s = source(node)
    return f" at {s}" if s else ""


def _checked(low: Lowering, node: Optional[torch.fx.Node] = None) -> Callable[..., Any]:
    """low's function, with its exceptions turned into LoweringError."""

    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return low.fn(*args, **kwargs)
        except LoweringError:
            raise
        except Exception as e:
            raise LoweringError(f"torchtpu: the lowering of {low.name} (registered at {low.where}) raised "
                                f"{type(e).__name__}: {e}{_where(node)}") from e

    run.__name__ = f"torchtpu_lowering_{low.op._schema.name.replace('::', '_')}"
    return run


def compare(low: Lowering, got: Any, want: Any, node: Optional[torch.fx.Node] = None) -> None:
    """Raises LoweringError unless got has want's structure, shapes and dtypes."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true, sym_eq
    from torch.utils._pytree import tree_flatten

    if low.op._schema.returns == [] or all(str(r.type) == "NoneType" for r in low.op._schema.returns):
        return
    g, _ = tree_flatten(got)
    w, _ = tree_flatten(want)
    head = f"torchtpu: the lowering of {low.name} (registered at {low.where})"
    if len(g) != len(w):
        raise LoweringError(f"{head} returns {len(g)} values, the op returns {len(w)}{_where(node)}")
    for i, (a, b) in enumerate(zip(g, w)):
        if not isinstance(b, torch.Tensor):
            continue
        if not isinstance(a, torch.Tensor):
            raise LoweringError(f"{head}: result {i} is a {type(a).__name__}, the op returns a tensor{_where(node)}")
        if a.dtype != b.dtype:
            raise LoweringError(f"{head}: result {i} has dtype {a.dtype}, the op's fake kernel gives {b.dtype}"
                                f"{_where(node)}")
        if a.dim() != b.dim() or not statically_known_true(sym_eq(tuple(a.shape), tuple(b.shape))):
            raise LoweringError(f"{head}: result {i} has shape {tuple(a.shape)}, the op's fake kernel gives "
                                f"{tuple(b.shape)}{_where(node)}")


def prepare(gm: torch.fx.GraphModule) -> None:
    """Checks each registered op dynamo's graph calls: the lowering runs on
    the node's fake arguments and must give the fake kernel's shapes and
    dtypes. A mutating op's call is replaced by its lowering (AOTAutograd
    then functionalizes it)."""
    from torch.utils._pytree import tree_map

    changed = False
    for n in list(gm.graph.nodes):
        if n.op != "call_function":
            continue
        target = n.target
        if isinstance(target, torch._ops.OpOverloadPacket):
            ov = target.overloads()
            target = getattr(target, ov[0]) if len(ov) == 1 else target
        low = get(target)
        if low is None or low.route != "torch":
            continue

        def fake(a: Any) -> Any:
            return a.meta.get("example_value", a.meta.get("val")) if isinstance(a, torch.fx.Node) else a

        args = tree_map(fake, n.args)
        kwargs = tree_map(fake, n.kwargs)
        want = n.meta.get("example_value", n.meta.get("val"))
        from torch.utils._pytree import tree_leaves

        mode = next((a.fake_mode for a in tree_leaves((args, kwargs)) if hasattr(a, "fake_mode")), None)
        if mode is not None and want is not None:
            def clone(a: Any) -> Any:
                return a.clone() if isinstance(a, torch.Tensor) else a

            from torch._subclasses.fake_tensor import unset_fake_temporarily

            with unset_fake_temporarily(), mode:
                got = _checked(low, n)(*tree_map(clone, args), **tree_map(clone, kwargs))
            compare(low, got, want, n)
        if low.mutates:
            n.target = _checked(low, n)
            changed = True
    if changed:
        gm.recompile()


# ---- the tpu device ---------------------------------------------------------

def _register_device_kernel(low: Lowering) -> None:
    """Makes the lowering the op's kernel on the tpu device (PrivateUse1):
    it runs on tpu tensors, every op in it on the engine; its results are
    checked against the op's meta kernel once per argument signature."""
    if low.route != "torch":
        return
    ns = low.op.namespace
    if ns not in _libraries:
        _libraries[ns] = torch.library.Library(ns, "IMPL")
    if torch._C._dispatch_has_kernel_for_dispatch_key(low.op.name(), "PrivateUse1") and low.op not in _device_ops:
        import warnings

        warnings.warn(f"torchtpu: {low.name} has a tpu kernel already; the lowering serves torch.compile only",
                      stacklevel=4)
        return
    if low.op in _device_ops:
        return
    _device_ops.add(low.op)
    op = low.op
    seen: set[str] = set()

    def kernel(*args: Any, **kwargs: Any) -> Any:
        cur = _registry.get(op)
        if cur is None or cur.route != "torch":
            return _on_cpu(op, args, kwargs)
        out = _checked(cur)(*args, **kwargs)
        key = _signature(args, kwargs)
        if key not in seen:
            compare(cur, out, _meta_result(op, args, kwargs))
            seen.add(key)
        return out

    _libraries[ns].impl(op, kernel, "PrivateUse1")


_device_ops: set[torch._ops.OpOverload] = set()


def _signature(args: Any, kwargs: Any) -> str:
    from torch.utils._pytree import tree_flatten

    flat, _ = tree_flatten((args, kwargs))
    return ";".join(f"{a.dtype}{tuple(a.shape)}" if isinstance(a, torch.Tensor) else repr(a) for a in flat)


def _meta_result(op: torch._ops.OpOverload, args: Any, kwargs: Any) -> Any:
    from torch.utils._pytree import tree_map

    def meta(a: Any) -> Any:
        if isinstance(a, torch.Tensor):
            return torch.empty_strided(a.shape, a.stride(), dtype=a.dtype, device="meta")
        if isinstance(a, torch.device) and a.type == "tpu":
            return torch.device("meta")
        return a

    return op(*tree_map(meta, args), **tree_map(meta, kwargs))


def _on_cpu(op: torch._ops.OpOverload, args: Any, kwargs: Any) -> Any:
    """An unregistered lowering's op: its CPU kernel, as the fallback would."""
    from torch.utils._pytree import tree_map

    cpu_args, cpu_kwargs = tree_map(lambda a: a.cpu() if isinstance(a, torch.Tensor) else a, (args, kwargs))
    out = op(*cpu_args, **cpu_kwargs)
    for arg, a, c in zip(op._schema.arguments, args, cpu_args):  # write the mutated arguments back
        if arg.alias_info is not None and arg.alias_info.is_write and isinstance(a, torch.Tensor):
            a.copy_(c)
    return tree_map(lambda t: t.to("tpu") if isinstance(t, torch.Tensor) else t, out)
