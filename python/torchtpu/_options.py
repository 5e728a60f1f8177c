"""Options of the torchtpu backend."""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping, Optional, Sequence, Union

_DEVICES = ("cpu", "xla-cpu", "tpu", "cuda")
_GRAPH_KINDS = ("forward", "backward", "inference")


@dataclasses.dataclass(frozen=True)
class Options:
    """How torchtpu compiles and runs the graphs ``torch.compile`` gives it.

    Pass them as ``torch.compile(model, backend="torchtpu", options={...})``
    with the field names as keys, or set the defaults with environment
    variables (``TORCHTPU_DEVICE``, ``TORCHTPU_FALLBACK``, ``TORCHTPU_CACHE_DIR``).

    Attributes:
        device: where graphs run: ``"cpu"`` (torchtpu's native CPU backend, the
            default), ``"xla-cpu"``, ``"tpu"`` or ``"cuda"`` (PJRT plugins; see
            ``torchtpu.devices()``), with an optional index (``"tpu:1"``). A
            graph whose tensors are on the ``tpu`` device runs on the backend
            serving the device; a device given here must name that backend.
        fallback: what happens to a graph holding an op torchtpu cannot run:
            ``"eager"`` (the graph is split: those ops run in eager PyTorch, the
            rest on torchtpu; counted, warned once and listed by
            ``torchtpu.report()``) or ``"error"`` (raise, naming the op and the
            source line).
        cache_dir: the compile cache folder (``None``: ``$TORCHTPU_CACHE_DIR`` or
            the user cache folder; ``"-"``: no disk cache).
        buckets: pad dynamic dims to buckets so nearby sizes share one compiled
            program: ``"pow2"``, a list of sizes, or ``"exact"``; ``None`` is the
            device's default: exact sizes on ``"cpu"``, ``"pow2"`` on the PJRT
            devices, where each compile takes seconds.
        explain_recompiles: print each new specialisation and its reason.
        host_fallback: ops with data-dependent output shapes (``nonzero``) run
            between compiled segments on the host (``"cpu"``) or fail (``"error"``).
        dump_dir: a folder where each graph is saved as ``NAME.pt2`` with its
            first call's inputs as ``NAME.io.safetensors`` (``input.0``, ...), for
            ``torchtpu run``/``bench``/``verify`` (``$TORCHTPU_DUMP_DIR``).
        eager_graphs: kinds of graph to run in eager PyTorch although torchtpu
            could run them: any of ``"forward"``, ``"backward"``, ``"inference"``
            (``$TORCHTPU_EAGER_GRAPHS``, comma-separated). Running the backward in
            eager while the forward runs on torchtpu (or the reverse) checks that
            every value the forward saves for the backward is what PyTorch's own
            kernels would have saved; it also bisects a wrong result.
        eager_ops: ops to treat as unsupported, so that the graphs holding them
            are split around them (``"aten::addmm"`` for every overload, or
            ``"aten::addmm.default"``; ``torch.ops`` spellings work too;
            ``$TORCHTPU_EAGER_OPS``, comma-separated): for testing the split,
            and for bisecting a wrong result to one op.
        min_part_size: the fewest ops (getitem not counted) a part of a split
            graph needs to run on torchtpu; smaller parts run in eager PyTorch
            with the unsupported ops around them (1: every part runs on torchtpu).
        partition: how a training graph is cut into its forward and backward,
            that is, which values the forward saves for the backward:
            ``"min_cut"`` (the default, as inductor does: the fewest bytes saved,
            cheap elementwise ops such as a GELU's intermediates computed again
            in the backward, where the engine fuses them into the ops that read
            them) or ``"default"`` (AOTAutograd's default: every value the
            backward reads is saved; more memory, more outputs, no recomputation)
            (``$TORCHTPU_PARTITION``).
    """

    device: str = "cpu"
    fallback: str = "eager"
    cache_dir: Optional[str] = None
    buckets: Union[None, str, Sequence[int]] = None
    explain_recompiles: bool = False
    host_fallback: str = "cpu"
    dump_dir: Optional[str] = None
    eager_graphs: Sequence[str] = ()
    eager_ops: Sequence[str] = ()
    min_part_size: int = 1
    partition: str = "min_cut"

    def __post_init__(self) -> None:
        base = self.device.split(":", 1)[0]
        if base not in _DEVICES:
            raise ValueError(f"torchtpu: device {self.device!r}: want one of {', '.join(_DEVICES)} (optionally :N)")
        if self.fallback not in ("eager", "error"):
            raise ValueError(f"torchtpu: fallback {self.fallback!r}: want 'eager' or 'error'")
        if self.host_fallback not in ("cpu", "error"):
            raise ValueError(f"torchtpu: host_fallback {self.host_fallback!r}: want 'cpu' or 'error'")
        if isinstance(self.eager_graphs, str):
            object.__setattr__(self, "eager_graphs", tuple(k for k in self.eager_graphs.split(",") if k))
        object.__setattr__(self, "eager_graphs", tuple(self.eager_graphs))
        for k in self.eager_graphs:
            if k not in _GRAPH_KINDS:
                raise ValueError(f"torchtpu: eager_graphs {k!r}: want any of {', '.join(_GRAPH_KINDS)}")
        if isinstance(self.eager_ops, str):
            object.__setattr__(self, "eager_ops", tuple(k.strip() for k in self.eager_ops.split(",") if k.strip()))
        object.__setattr__(self, "eager_ops", tuple(self.eager_ops))
        if self.partition not in ("min_cut", "default"):
            raise ValueError(f"torchtpu: partition {self.partition!r}: want 'min_cut' or 'default'")
        if int(self.min_part_size) < 1:
            raise ValueError(f"torchtpu: min_part_size {self.min_part_size!r}: want 1 or more")
        if isinstance(self.buckets, str) and self.buckets not in ("pow2", "exact"):
            raise ValueError(f"torchtpu: buckets {self.buckets!r}: want 'pow2', 'exact' or a list of sizes")
        # Whether the device was chosen rather than defaulted (graphs on the
        # tpu device follow the device's backend unless it was chosen).
        object.__setattr__(self, "_device_given", self.device != "cpu")

    @classmethod
    def from_mapping(cls, options: Optional[Mapping[str, Any]]) -> "Options":
        """Options from ``torch.compile``'s ``options`` dict over the
        environment's defaults; an unknown key is an error."""
        env: dict[str, Any] = {}
        if os.environ.get("TORCHTPU_DEVICE"):
            env["device"] = os.environ["TORCHTPU_DEVICE"]
        if os.environ.get("TORCHTPU_FALLBACK"):
            env["fallback"] = os.environ["TORCHTPU_FALLBACK"]
        if os.environ.get("TORCHTPU_CACHE_DIR"):
            env["cache_dir"] = os.environ["TORCHTPU_CACHE_DIR"]
        if os.environ.get("TORCHTPU_DUMP_DIR"):
            env["dump_dir"] = os.environ["TORCHTPU_DUMP_DIR"]
        if os.environ.get("TORCHTPU_EAGER_GRAPHS"):
            env["eager_graphs"] = os.environ["TORCHTPU_EAGER_GRAPHS"]
        if os.environ.get("TORCHTPU_EAGER_OPS"):
            env["eager_ops"] = os.environ["TORCHTPU_EAGER_OPS"]
        if os.environ.get("TORCHTPU_PARTITION"):
            env["partition"] = os.environ["TORCHTPU_PARTITION"]
        names = {f.name for f in dataclasses.fields(cls)}
        for k in options or {}:
            if k not in names:
                raise ValueError(f"torchtpu: unknown option {k!r} (known: {', '.join(sorted(names))})")
        opts = cls(**{**env, **dict(options or {})})
        if "device" in env or "device" in (options or {}):
            object.__setattr__(opts, "_device_given", True)
        return opts

    def engine(self) -> dict[str, Any]:
        """The engine's program options (the C ABI's JSON)."""
        o: dict[str, Any] = {"device": self.device, "fallback": self.host_fallback,
                             "explain": self.explain_recompiles}
        if self.cache_dir is not None:
            o["cache_dir"] = self.cache_dir
        if self.buckets in ("pow2", "exact"):
            o["buckets"] = self.buckets
        elif self.buckets:
            o["bucket_sizes"] = [int(s) for s in self.buckets]
        return o
