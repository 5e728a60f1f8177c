"""Where the engine's tensors change hands with PyTorch's, in place.

The engine computes and reads row-major tensors; a graph's inputs and
outputs have the layouts PyTorch records for them (a training forward's
saved activations transposed or sliced, attention heads as views of a
projection, weights returned as they are). The helpers here find, at
compile time, how each such tensor is made from memory the engine reads or
writes in place (``_permuted_io``, ``_alias``) and make it at each call as
views (``as_strided`` of recorded layouts on the fast path)."""

from __future__ import annotations

import contextlib
import copy
import operator
from typing import Any, Callable, Mapping, Optional, Sequence

import torch
import torch.fx

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


def _mutated(n: torch.fx.Node) -> bool:
    """Whether an op of the graph writes placeholder n (an in-place or out= op)."""
    for u in n.users:
        schema = getattr(u.target, "_schema", None)
        if u.op == "call_function" and (schema is None or schema.is_mutable):
            return True
    return False


def _is_view(target: Any) -> bool:
    """Whether target is an aten op whose result is a view of its first
    argument (returns ``Tensor(a)``, not written)."""
    schema = getattr(target, "_schema", None)
    if schema is None or schema.is_mutable or len(schema.returns) != 1:
        return False
    alias = schema.returns[0].alias_info
    return alias is not None and not alias.is_write


def _leaves(x: Any) -> Any:
    if isinstance(x, (tuple, list)):
        for y in x:
            yield from _leaves(y)
    else:
        yield x


def _const_args(xs: Any) -> bool:
    """Whether xs (an op's arguments) hold no node or symbol."""
    return not any(isinstance(x, (torch.fx.Node, torch.SymInt, torch.SymFloat, torch.SymBool)) for x in _leaves(xs))


# An alias is made from the engine's input tensors and the outputs before
# it: f(inputs, outputs) -> tensor.
Alias = Callable[[Sequence[torch.Tensor], Sequence[Any]], torch.Tensor]


def _alias(a: Any, pos: dict[torch.fx.Node, int], earlier: dict[torch.fx.Node, int]) -> Optional[Alias]:
    """For a graph output that is a tensor input as it is, an output the
    graph returns before it (the same value twice: a forward's key/value
    cache and the same tensors saved for its backward), or a view of either
    by view ops with constant arguments (a weight's transpose, an
    activation and its [b·t, d] reshape), the function that makes it as the
    graph does: that tensor, or the same views of it. None for any other
    output."""
    if not isinstance(a, torch.fx.Node):
        return None
    if a in earlier:
        j = earlier[a]
        return lambda ts, outs: outs[j]
    if a.op == "placeholder":
        if a not in pos or _mutated(a):
            return None
        k = pos[a]
        return lambda ts, outs: ts[k]
    if a.op != "call_function" or not _is_view(a.target) or not a.args or a.kwargs:
        return None
    rest = a.args[1:]
    if not _const_args(rest):
        return None
    base = _alias(a.args[0], pos, earlier)
    if base is None:
        return None
    op = a.target
    return lambda ts, outs: op(base(ts, outs), *rest)


# A view as (size, stride, offset): as_strided(size, stride, offset) of
# its base, the offset counted from the base's own.
StridedView = tuple[list[int], list[int], int]


def _strided_view(v: Any, base: Any) -> Optional[StridedView]:
    """The view v of base as ``(size, stride, offset)`` for
    ``as_strided(size, stride, base.storage_offset() + offset)``, when both
    are tensors of static layouts (None otherwise): one call makes a view
    the graph makes by several view ops (a split's part, a reshape, a
    transpose), a few microseconds less per view and call."""
    if not isinstance(v, torch.Tensor) or not isinstance(base, torch.Tensor):
        return None
    vals = (*v.shape, *v.stride(), v.storage_offset(), base.storage_offset())
    if any(isinstance(d, (torch.SymInt, torch.SymFloat)) for d in vals):
        return None
    return [int(d) for d in v.shape], [int(d) for d in v.stride()], int(v.storage_offset()) - int(base.storage_offset())


# Where a graph output that aliases an input or an earlier output comes
# from: ("input", k) or ("out", j), and the view of it as (size, stride,
# offset), or None for that tensor itself.
AliasSpec = tuple[str, int, Optional[StridedView]]


def _alias_spec(a: Any, pos: dict[torch.fx.Node, int], earlier: dict[torch.fx.Node, int]) -> Optional[AliasSpec]:
    """_alias's output as data, for an output _alias makes, and calls whose
    inputs have their recorded layouts (the fast path): the tensor it is,
    or the one ``as_strided`` of the input or earlier output it views; None
    where a view's layout is not static."""
    if a in earlier:
        return ("out", earlier[a], None)
    if a.op == "placeholder":
        return ("input", pos[a], None)
    root = a
    while root not in earlier and root.op != "placeholder":
        root = root.args[0]
    sv = _strided_view(a.meta.get("val"), root.meta.get("val"))
    if sv is None:
        return None
    return ("out", earlier[root], sv) if root in earlier else ("input", pos[root], sv)


def _alias_of_spec(spec: AliasSpec) -> Alias:
    """The function making an alias from its spec (_alias_spec)."""
    kind, k, sv = spec
    if sv is None:
        return (lambda ts, outs: outs[k]) if kind == "out" else (lambda ts, outs: ts[k])
    size, stride, off = sv
    if kind == "out":
        return lambda ts, outs: outs[k].as_strided(size, stride, outs[k].storage_offset() + off)
    return lambda ts, outs: ts[k].as_strided(size, stride, ts[k].storage_offset() + off)


def _layout_words(shape: Sequence[int], strides: Sequence[int]) -> list[int]:
    return [len(shape), *[int(d) for d in shape], *[int(d) for d in strides]]


def _contiguous_strides(sizes: Sequence[int]) -> list[int]:
    out, acc = [0] * len(sizes), 1
    for d in reversed(range(len(sizes))):
        out[d] = acc
        acc *= max(sizes[d], 1)
    return out


def _inverse(order: Sequence[int]) -> list[int]:
    inv = [0] * len(order)
    for i, d in enumerate(order):
        inv[d] = i
    return inv


# The views of a view chain, replayed: f(base) -> the view.
ViewReplay = Callable[[torch.Tensor], torch.Tensor]


def _view_chain(a: torch.fx.Node) -> tuple[torch.fx.Node, Optional[ViewReplay]]:
    """The node a is a view of through view ops with constant arguments
    (``view``, ``permute``, ``alias``, a ``split``'s part...), and the
    function that makes a's value from that node's (None when a is no
    view)."""
    steps: list[Callable[[torch.Tensor], torch.Tensor]] = []
    n = a
    while isinstance(n, torch.fx.Node) and n.op == "call_function" and not n.kwargs:
        if _is_view(n.target) and n.args and _const_args(n.args[1:]):
            op, rest = n.target, n.args[1:]
            if isinstance(n.meta.get("val"), (list, tuple)):
                break  # a split as such: only its parts (getitem) are views
            steps.append(lambda t, op=op, rest=rest: op(t, *rest))
            n = n.args[0]
            continue
        s = n.args[0] if n.target is operator.getitem and len(n.args) == 2 else None
        if (isinstance(s, torch.fx.Node) and s.op == "call_function" and not s.kwargs and s.args
                and isinstance(n.args[1], int) and _is_view(s.target) and _const_args(s.args[1:])):
            op, rest, idx = s.target, s.args[1:], n.args[1]
            steps.append(lambda t, op=op, rest=rest, idx=idx: op(t, *rest)[idx])
            n = s.args[0]
            continue
        break
    if not steps or not isinstance(n, torch.fx.Node):
        return a, None
    steps.reverse()

    def replay(t: torch.Tensor) -> torch.Tensor:
        for f in steps:
            t = f(t)
        return t

    return n, replay


def _same_shape_views(n: torch.fx.Node) -> list[torch.fx.Node]:
    """The users of n that view it whole, as it is (an alias, a view to its
    own shape)."""
    v = n.meta.get("val")
    out = []
    for u in n.users:
        if u.op != "call_function" or u.kwargs or u.args[0] is not n:
            continue
        if u.target is torch.ops.aten.alias.default or (
                u.target is torch.ops.aten.view.default and isinstance(v, torch.Tensor)
                and list(u.args[1]) == list(v.shape)):
            out.append(u)
    return out


def _permuted_io(gm: torch.fx.GraphModule, placeholders: Sequence[torch.fx.Node], results: Sequence[Any],
                 tensor_inputs: Sequence[bool], aliases: Mapping[int, Any],
                 example_inputs: list[Any]) -> tuple[torch.fx.GraphModule, dict[int, list[int]],
                                                      dict[int, tuple[int, StridedView, list[int]]]]:
    """Inputs and outputs in layouts other than row-major, passed in place.

    A training forward saves transposed or sliced activations for its
    backward (a weight gradient's xᵀ; attention heads as ``[b, h, t, d]``
    views of a ``[b, t, 3·h·d]`` projection; the attention's output and
    log-sum-exp, which PyTorch's kernel lays out ``[b, t, h, ·]``), and the
    backward reads them in that layout. The engine's tensors are
    row-major, so each such output was scattered into its strided memory
    after the run (in a fresh buffer: strided outputs are not computed in
    place) and gathered back into a row-major copy before the backward's.

    Instead, an output whose value is a view (by view ops with constant
    arguments) of a row-major value b the graph computes is returned as b,
    written in place, and made from it by the same views; when b (or the
    output itself, a view of nothing) is dense in a permuted layout, the
    engine returns ``permute(b, order)``, row-major, and the output is made
    from its ``.permute(order⁻¹)``. Outputs that are views of one value share
    its memory, as in eager. An input of a static dense permuted layout
    (``_layout``'s "order") is passed as ``t.permute(order)``, a row-major
    view of its memory, the graph reading it through ``permute(·,
    order⁻¹)`` (which the lowering folds into the products that read it).
    Values and bits are unchanged: only where the layout changes hands.

    Returns the graph (gm itself when nothing changes), the inputs' orders
    by tensor position, and per output position that is made this way the
    engine output it is made from and how; example_inputs is updated in
    place. (The engine output's shape is given with each.)"""
    from torch._guards import detect_fake_mode

    permute = torch.ops.aten.permute.default
    tensor_at = [j for j, t in enumerate(tensor_inputs) if t]  # tensor input k is placeholder tensor_at[k]
    in_orders: dict[int, list[int]] = {}
    for k, j in enumerate(tensor_at):
        n = placeholders[j]
        v = n.meta.get("val")
        if not isinstance(v, torch.Tensor) or _mutated(n) or not n.users:
            continue
        lay = _layout(v)
        if lay is not None and lay[0] == "order" and not any(isinstance(d, torch.SymInt) for d in v.shape):
            in_orders[k] = lay[1]

    def static(v: Any) -> bool:
        return isinstance(v, torch.Tensor) and not any(
            isinstance(d, torch.SymInt) for d in (*v.shape, *v.stride(), v.storage_offset()))

    # the first output returning each node as it is, row-major
    plain: dict[torch.fx.Node, int] = {}
    for i, a in enumerate(results):
        if i not in aliases and isinstance(a, torch.fx.Node) and a not in plain and static(a.meta.get("val")) \
                and _layout(a.meta["val"]) is None and a.meta["val"].is_contiguous():
            plain[a] = i
    # per output made from an engine output: (base node, order or None, engine output, view)
    made: dict[int, tuple[torch.fx.Node, Optional[list[int]], int, StridedView, list[int]]] = {}
    first: dict[tuple[torch.fx.Node, Optional[tuple[int, ...]]], int] = {}
    for i, a in enumerate(results):
        if i in aliases or not isinstance(a, torch.fx.Node) or a.op != "call_function":
            continue
        v = a.meta.get("val")
        if not static(v) or (_layout(v) is None and v.is_contiguous()):
            continue
        b, replay = _view_chain(a)
        bv = b.meta.get("val")
        if b.op == "placeholder" or not static(bv) or bv.dtype != v.dtype:
            continue
        lay = _layout(bv)
        if lay is None and not bv.is_contiguous():
            continue
        if lay is not None and lay[0] != "order":
            continue
        order = lay[1] if lay is not None else None
        if order is None and replay is None:
            continue
        inv = _inverse(order) if order is not None else None

        # the engine's output (b, or b permuted to memory order), row-major;
        # the output is one as_strided of it where the graph's views of it,
        # replayed on a meta tensor, make exactly the recorded layout
        shape = [int(bv.shape[d]) for d in order] if order is not None else [int(d) for d in bv.shape]
        try:
            m = torch.empty(shape, dtype=v.dtype, device="meta")
            if inv is not None:
                m = m.permute(inv)
            if replay is not None:
                m = replay(m)
        except Exception:
            continue
        sv = ([int(d) for d in v.shape], [int(d) for d in v.stride()], int(v.storage_offset()))
        if (list(m.shape), list(m.stride()), m.storage_offset()) != sv:
            continue
        key = (b, tuple(order) if order is not None else None)
        k = plain.get(b, -1) if order is None else -1
        if k < 0:
            k = first.setdefault(key, i)
        made[i] = (b, order, k, sv, shape)
    if not in_orders and not made:
        return gm, in_orders, {}
    g = copy.deepcopy(gm.graph)
    # the copy's nodes by name (deepcopy keeps the names)
    by_name = {n.name: n for n in g.nodes}
    phs = [n for n in g.nodes if n.op == "placeholder"]
    first_op = next(n for n in g.nodes if n.op != "placeholder")
    fake_mode = detect_fake_mode([n.meta.get("val") for n in phs])
    fake = fake_mode if fake_mode is not None else contextlib.nullcontext()
    for k, order in in_orders.items():
        j = tensor_at[k]
        old = phs[j]
        v = old.meta["val"]
        with g.inserting_before(old):
            dense = g.placeholder(old.name + "_dense")
        with g.inserting_before(first_op):
            pv = g.call_function(permute, (dense, _inverse(order)))
        with fake:
            dense.meta["val"] = torch.empty([int(v.shape[d]) for d in order], dtype=v.dtype, device=v.device)
            pv.meta["val"] = dense.meta["val"].permute(_inverse(order))
        old.replace_all_uses_with(pv)
        g.erase_node(old)
        if isinstance(example_inputs[j], torch.Tensor):
            example_inputs[j] = example_inputs[j].permute(order)
    out = g.output_node()
    single = not isinstance(out.args[0], (tuple, list))
    res = [out.args[0]] if single else list(out.args[0])
    engine_node: dict[tuple[str, Optional[tuple[int, ...]]], torch.fx.Node] = {}
    for i, (b, order, _, _, _) in made.items():
        key = (b.name, tuple(order) if order is not None else None)
        n = engine_node.get(key)
        if n is None:
            n = by_name[b.name]
            if order is not None:
                # the graph's own permute of b to its memory order where it
                # has one (the attention's output, transposed back for the
                # projection after it), else a new one
                same = [u for v in (n, *_same_shape_views(n)) for u in v.users
                        if u.op == "call_function" and u.target is permute and not u.kwargs
                        and [int(d) for d in u.args[1]] == order]
                if same:
                    n = same[0]
                else:
                    with g.inserting_before(out):
                        p = g.call_function(permute, (n, order))
                    with fake:
                        p.meta["val"] = n.meta["val"].permute(order).contiguous()
                    n = p
            engine_node[key] = n
        res[i] = n
    out.args = (res[0] if single else tuple(res),)
    g.eliminate_dead_code()
    g.lint()
    return torch.fx.GraphModule(gm, g), in_orders, {i: (k, sv, shape) for i, (_, _, k, sv, shape) in made.items()}


def _restride(r: torch.Tensor, layout: tuple[str, list[int]]) -> torch.Tensor:
    """A copy of the row-major engine output r in the recorded layout, on
    r's device (for a tpu tensor, an eager op queued after the run)."""
    kind, spec = layout
    if kind == "order":
        p = torch.empty_permuted(r.shape, spec, dtype=r.dtype, device=r.device)
        p.copy_(r)
        return p
    # static strides: broadcast dims (stride 0) hold one slice, expanded after
    base = [1 if st == 0 else n for n, st in zip(r.shape, spec)]
    out = torch.empty_strided(base, spec, dtype=r.dtype, device=r.device)
    out.copy_(r[tuple(slice(0, 1) if st == 0 else slice(None) for st in spec)])
    return out.as_strided(r.shape, spec) if base != list(r.shape) else out
