"""torch.distributed on the ``tpu`` device: the ``"torchtpu"`` c10d backend.

``import torchtpu`` registers it for the tpu device, so the usual programs
run unchanged, launched with ``torchrun``::

    import torch, torch.distributed as dist, torchtpu
    dist.init_process_group()                  # picks "torchtpu" for tpu tensors
    model = DDP(model.to("tpu"))               # or fully_shard, DTensor, torch.compile
    dist.all_reduce(torch.ones(4, device="tpu"))

``init_process_group("cpu:gloo,tpu:torchtpu")`` serves CPU tensors too (an
object collective, a CPU barrier); ``init_process_group()`` with no backend
serves the tpu device only, as NCCL serves CUDA only.

The backend is C++ (``torchtpu/csrc/distributed``), a ``c10d::Backend`` in the
device's extension. Its collectives stage tpu tensors through host memory and
run them on Gloo, PyTorch's own host transport, created for the same store,
ranks and timeout; each Work's future completes once the results are back on
the device. Before each collective the ranks compare what they call (kind,
dtype, shapes; ``TORCHTPU_DIST_CHECK=0`` skips it), so a mismatch raises on
every rank naming the ranks, and a failure (a rank that died, a timeout as
given to ``init_process_group(timeout=...)``) raises naming the collective and
the ranks of this host that have exited. See docs/distributed.md.
"""

from __future__ import annotations

import os
import socket
from datetime import timedelta
from typing import Any

import torch

__all__ = ["BACKEND", "is_available"]

BACKEND = "torchtpu"
_DEVICES = ["tpu"]


def is_available() -> bool:
    """True when torch.distributed and Gloo (the host transport) are built
    into this torch."""
    import torch.distributed as dist

    return dist.is_available() and dist.is_gloo_available()


def _register() -> None:
    """Registers the backend with torch.distributed (called by ``import
    torchtpu``; nothing is loaded until a process group is made)."""
    if not is_available():
        return
    import torch.distributed as dist

    if BACKEND.upper() in getattr(dist.Backend, "_plugins", {}):
        return
    dist.Backend.register_backend(BACKEND, _create, extended_api=True, devices=list(_DEVICES))


def _create(opts: Any, backend_options: Any = None) -> Any:
    """Makes the tpu backend of a new process group: a Gloo backend for the
    same store, ranks and timeout carries its data."""
    import torch.distributed as dist
    from torch._C._distributed_c10d import ProcessGroup, ProcessGroupGloo

    from .. import device
    from . import _syncbn

    device._loaded()  # the extension holds the backend
    _syncbn.register()
    store, rank, size = opts.store, opts.group_rank, opts.group_size
    timeout = opts.timeout if isinstance(opts.timeout, timedelta) else timedelta(seconds=float(opts.timeout))
    host = ProcessGroupGloo(dist.PrefixStore("host/", store), rank, size, timeout)
    global_ranks = list(getattr(opts, "global_ranks_in_group", None) or range(size))
    store.set(f"torchtpu/peer/{rank}", f"{global_ranks[rank]}:{os.getpid()}:{socket.gethostname()}")
    peers = [store.get(f"torchtpu/peer/{r}").decode() for r in range(size)]
    pg = ProcessGroup(store, rank, size)
    pg._register_backend(torch.device("cpu"), ProcessGroup.BackendType.GLOO, host)
    group = str(getattr(opts, "group_id", "") or "")
    torch.ops.torchtpu._c10d_backend(pg.boxed(), int(timeout.total_seconds() * 1000), peers, group)
    return pg._get_backend(torch.device(_DEVICES[0]))
