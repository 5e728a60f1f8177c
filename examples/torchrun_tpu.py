"""Data-parallel training on the tpu device, launched with torchrun.

    torchrun --nproc_per_node=2 examples/torchrun_tpu.py               # DDP
    torchrun --nproc_per_node=2 examples/torchrun_tpu.py --fsdp        # FSDP2 (fully_shard)
    torchrun --nproc_per_node=2 examples/torchrun_tpu.py --compile     # torch.compile(DDP(model), backend="torchtpu")
    TORCHTPU_DEVICE=xla-cpu torchrun --nproc_per_node=2 examples/torchrun_tpu.py

Each rank owns one tpu device, ``torch.device("tpu")``, and trains on its
share of every batch; ``import torchtpu`` registers the "torchtpu" c10d
backend, which ``dist.init_process_group()`` picks for tpu tensors. Rank 0
prints the loss averaged over the ranks, which is the loss of the whole
batch. (On a torch without libuv, such as Debian's, torchrun needs
USE_LIBUV=0 and may still fail in its own rendezvous: start the ranks with
RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set instead.)
"""

from __future__ import annotations

import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

import torchtpu  # noqa: F401  (the tpu device and its c10d backend)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fsdp", action="store_true", help="shard with FSDP2 (fully_shard) instead of DDP")
    ap.add_argument("--compile", action="store_true", help="torch.compile the DDP model with backend=\"torchtpu\"")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--batch", type=int, default=8, help="rows per rank")
    args = ap.parse_args()

    dist.init_process_group()  # torchrun's environment; "torchtpu" serves the tpu device
    rank, world = dist.get_rank(), dist.get_world_size()
    dev = torch.device("tpu")

    torch.manual_seed(0)  # the same initial weights on every rank
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)).to(dev)
    if args.fsdp:
        from torch.distributed.fsdp import fully_shard

        for layer in model:
            if isinstance(layer, nn.Linear):
                fully_shard(layer)
        fully_shard(model)
        step_model = model
    else:
        from torch.nn.parallel import DistributedDataParallel as DDP

        model = DDP(model)
        step_model = torch.compile(model, backend="torchtpu", options={"device": os.environ.get(
            "TORCHTPU_DEVICE", "cpu")}) if args.compile else model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    g = torch.Generator().manual_seed(1234)  # every rank draws the whole batch and keeps its share
    for step in range(args.steps):
        x = torch.randn(world * args.batch, 32, generator=g)
        y = torch.randint(0, 10, (world * args.batch,), generator=g)
        mine = slice(rank * args.batch, (rank + 1) * args.batch)
        opt.zero_grad()
        loss = F.cross_entropy(step_model(x[mine].to(dev)), y[mine].to(dev))
        loss.backward()
        opt.step()
        avg = loss.detach().clone()
        dist.all_reduce(avg, op=dist.ReduceOp.AVG)
        if rank == 0:
            print(f"step {step}: loss {avg.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
