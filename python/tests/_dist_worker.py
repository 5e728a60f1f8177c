"""One rank of the distributed tests (test_distributed.py), started by torchrun
or by the test itself: ``python _dist_worker.py MODE``. Each rank writes what
it found as JSON to ``$TT_DIST_OUT/rank<R>.json``.

Modes:
- ``collectives``: every collective the tpu backend serves, on float32,
  bfloat16 and int64 tpu tensors, against the values computed on the CPU;
- ``train``: DDP, FSDP2 (fully_shard per layer and at the root), DTensor
  tensor parallelism and torch.compile of a DDP model, each trained for
  ``STEPS`` steps on the tpu device, against single-process CPU training
  on the concatenated batch;
- ``kill``: the last rank dies mid-run (SIGKILL); the others report the
  error they got and how long it took;
- ``mismatch``: the ranks call all_reduce with different shapes.

The collectives check is _dist_collectives.py, the training and DDP checks
_dist_training.py, what they share (device, rank, report) _dist_common.py;
the failure checks and the entry point are here.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Any, Callable

import torch
import torch.distributed as dist
import torch.nn.functional as F

from _dist_collectives import check_collectives
from _dist_common import DEV, TIMEOUT, rank, report, world
from _dist_training import _global_loss, _mine, check_ddp, check_training, data, new_model, optimizer

# ---- failures ---------------------------------------------------------------------------


def check_kill() -> dict[str, Any]:
    """The last rank dies (or, with TT_DIST_SIGNAL=SIGSTOP, stops) at step 2
    of a DDP run; the others must raise."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    model = DDP(new_model().to(DEV))
    opt = optimizer(model.parameters())
    batches = data(world())
    t0 = time.perf_counter()
    for i, (x, y) in enumerate(batches * 4):
        if i == 2 and rank() == world() - 1:
            os.kill(os.getpid(), getattr(signal, os.environ.get("TT_DIST_SIGNAL", "SIGKILL")))
        t0 = time.perf_counter()
        try:
            opt.zero_grad()
            loss = F.mse_loss(model(_mine(x).to(DEV)), _mine(y).to(DEV))
            loss.backward()
            opt.step()
            _global_loss(loss)
        except Exception as e:
            return {"error": f"{type(e).__name__}: {e}", "seconds": time.perf_counter() - t0, "step": i}
    return {"error": None, "seconds": time.perf_counter() - t0}


def check_mismatch() -> dict[str, Any]:
    t = torch.ones(4 + rank(), device=DEV)
    try:
        dist.all_reduce(t)
    except Exception as e:
        first = f"{type(e).__name__}: {e}"
    else:
        first = None
    # The group still works after the mismatch was caught.
    u = torch.ones(2, device=DEV)
    dist.all_reduce(u)
    return {"error": first, "after": u.cpu().tolist()}


def check_mixed() -> dict[str, Any]:
    """Under init_process_group("cpu:gloo,tpu:torchtpu"): CPU tensors go to
    Gloo, tpu tensors to the tpu backend, in one process group."""
    pg = dist.group.WORLD
    c = torch.full((3,), float(rank() + 1))
    dist.all_reduce(c)
    t = torch.full((3,), float(rank() + 1), device=DEV)
    dist.all_reduce(t)
    dist.barrier()
    want = float(sum(range(1, world() + 1)))
    return {"cpu_backend": pg._get_backend(torch.device("cpu")).name(),
            "tpu_backend": pg._get_backend(torch.device(DEV)).name(),
            "ok": c.tolist() == [want] * 3 and t.cpu().tolist() == [want] * 3}


MODES: dict[str, Callable[[], dict[str, Any]]] = {
    "collectives": check_collectives, "train": check_training, "kill": check_kill, "mismatch": check_mismatch,
    "ddp_checks": check_ddp, "mixed": check_mixed}


def main() -> None:
    modes = sys.argv[1].split(",")  # several modes run one after the other in the same processes
    t0 = time.perf_counter()
    dist.init_process_group(backend=os.environ.get("TT_DIST_BACKEND") or None, timeout=TIMEOUT)
    result: dict[str, Any] = {"backend_name": dist.get_backend(), "init_seconds": round(time.perf_counter() - t0, 2),
                              "tpu_backend": dist.group.WORLD._get_backend(torch.device(DEV)).name()}
    for mode in modes:
        t0 = time.perf_counter()
        result[mode] = MODES[mode]()
        result[mode]["seconds"] = round(time.perf_counter() - t0, 2)
    report(result)
    if "kill" in modes:
        time.sleep(3)  # alive while the other survivors look for the dead rank
        os._exit(0)  # the group lost a rank: do not wait for it at exit
    dist.destroy_process_group()
    # Leave without the interpreter's teardown: about one run in twenty
    # aborted there ("terminate called without an active exception", a
    # joinable std::thread destroyed at exit; the backend's only thread is
    # joined or detached by its destructor, the culprit is not found yet).
    # Everything the tests check was reported above.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
