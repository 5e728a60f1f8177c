"""The training checks of the distributed tests (_dist_worker.py's ``train``
and ``ddp_checks`` modes): DDP, FSDP2, DTensor tensor parallelism and
torch.compile of a DDP model trained on the tpu device against one CPU
process on the concatenated batch, and DDP's own options (gradient
buckets, hooks, no_sync, unused parameters)."""

from __future__ import annotations

import copy
import os
import time
import traceback
from typing import Any, Callable

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

import torchtpu
from _dist_common import DEV, STEPS, rank, world

# ---- training ---------------------------------------------------------------------------


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


PER_RANK = 4


def data(n: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """STEPS global batches of n * PER_RANK rows."""
    g = torch.Generator().manual_seed(1234)
    return [(torch.randn(n * PER_RANK, 8, generator=g), torch.randn(n * PER_RANK, 4, generator=g))
            for _ in range(STEPS)]


def new_model() -> MLP:
    torch.manual_seed(0)
    return MLP()


def optimizer(params: Any) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.1, momentum=0.9)


def sgd_steps(step: Callable[[torch.Tensor], torch.Tensor], params: Any, batches: Any,
              share: Callable[[torch.Tensor], torch.Tensor], record: Callable[[torch.Tensor], float]) -> list[float]:
    """The training loop of every mode: the optimizer over params, one step
    per batch on the part of it share picks (and moves), the MSE loss of
    each step as record gives it."""
    opt = optimizer(params)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = F.mse_loss(step(share(x)), share(y))
        loss.backward()
        opt.step()
        losses.append(record(loss))
    return losses


def reference(batches: list[tuple[torch.Tensor, torch.Tensor]]) -> tuple[list[float], dict[str, torch.Tensor]]:
    """Single-process CPU training on the whole batch."""
    m = new_model()
    losses = sgd_steps(m, m.parameters(), batches, lambda t: t, lambda l: l.item())
    return losses, {k: v.detach().clone() for k, v in m.state_dict().items()}


def _mine(t: torch.Tensor) -> torch.Tensor:
    r = rank()
    return t[r * PER_RANK:(r + 1) * PER_RANK]


def _global_loss(loss: torch.Tensor) -> float:
    l = loss.detach().clone()
    dist.all_reduce(l, op=dist.ReduceOp.AVG)
    return l.item()


def _full(sd: dict[str, Any]) -> dict[str, torch.Tensor]:
    out = {}
    for k, v in sd.items():
        if hasattr(v, "full_tensor"):
            v = v.full_tensor()
        out[k.removeprefix("module.").removeprefix("_orig_mod.")] = v.detach().cpu()
    return out


def train_ddp(batches: Any, compiled: bool = False) -> tuple[list[float], dict[str, torch.Tensor]]:
    from torch.nn.parallel import DistributedDataParallel as DDP

    model = DDP(new_model().to(DEV))
    step = model
    if compiled:
        step = torch.compile(model, backend="torchtpu", options={"device": os.environ.get("TORCHTPU_DEVICE", "cpu")})
    losses = sgd_steps(step, model.parameters(), batches, lambda t: _mine(t).to(DEV), _global_loss)
    return losses, _full(model.module.state_dict())


def train_fsdp(batches: Any) -> tuple[list[float], dict[str, torch.Tensor]]:
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    mesh = init_device_mesh(DEV, (world(),))
    model = new_model().to(DEV)
    for layer in (model.fc1, model.fc2):
        fully_shard(layer, mesh=mesh, reshard_after_forward=True)
    fully_shard(model, mesh=mesh, reshard_after_forward=True)
    losses = sgd_steps(model, model.parameters(), batches, lambda t: _mine(t).to(DEV), _global_loss)
    return losses, _full(model.state_dict())


def train_tp(batches: Any) -> tuple[list[float], dict[str, torch.Tensor]]:
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    mesh = init_device_mesh(DEV, (world(),))
    model = parallelize_module(new_model().to(DEV), mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
    # every rank the whole batch: the model is split, not the data
    losses = sgd_steps(model, model.parameters(), batches, lambda t: t.to(DEV), lambda l: l.item())
    return losses, _full(model.state_dict())


def train_fsdp_tp(batches: Any) -> tuple[list[float], dict[str, torch.Tensor]]:
    """A 2-D mesh (data parallel x tensor parallel, subgroups of the world):
    tensor parallelism inside each "tp" group, FSDP2 across the "dp" groups;
    the tp ranks of a dp group train on the same share of the batch."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    dp = world() // 2
    mesh = init_device_mesh(DEV, (dp, 2), mesh_dim_names=("dp", "tp"))
    model = parallelize_module(new_model().to(DEV), mesh["tp"], {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
    fully_shard(model, mesh=mesh["dp"])
    d, rows = mesh["dp"].get_local_rank(), PER_RANK * 2

    def dp_loss(loss: torch.Tensor) -> float:
        l = loss.detach().clone()
        dist.all_reduce(l, op=dist.ReduceOp.AVG, group=mesh["dp"].get_group())
        return l.item()

    losses = sgd_steps(model, model.parameters(), batches, lambda t: t[d * rows:(d + 1) * rows].to(DEV), dp_loss)
    return losses, _full(model.state_dict())


def check_training() -> dict[str, Any]:
    batches = data(world())
    want_losses, want_weights = reference(batches)
    out: dict[str, Any] = {}
    runs = {"ddp": lambda: train_ddp(batches), "fsdp2": lambda: train_fsdp(batches),
            "tp": lambda: train_tp(batches), "compiled_ddp": lambda: train_ddp(batches, compiled=True)}
    if world() % 2 == 0 and world() > 2:
        runs["fsdp_tp_2d"] = lambda: train_fsdp_tp(batches)
    only = os.environ.get("TT_DIST_ONLY")
    for name, run in runs.items():
        if only and name not in only.split(","):
            continue
        t0 = time.perf_counter()
        try:
            losses, weights = run()
            loss_diff = max(abs(a - b) for a, b in zip(losses, want_losses))
            w_diff = max((weights[k].float() - v.float()).abs().max().item() for k, v in want_weights.items())
            ok_l = all(abs(a - b) <= 1e-5 + 1e-5 * abs(b) for a, b in zip(losses, want_losses))
            ok_w = all(torch.allclose(weights[k].float(), v.float(), rtol=1e-4, atol=1e-4)
                       for k, v in want_weights.items())
            out[name] = {"ok": ok_l and ok_w and len(losses) == STEPS, "losses": losses, "want": want_losses,
                         "max_loss_diff": loss_diff, "max_weight_diff": w_diff}
        except Exception:
            out[name] = {"ok": False, "error": traceback.format_exc()[-3000:]}
        out[name]["seconds"] = round(time.perf_counter() - t0, 2)
    if "compiled_ddp" in out:
        rep = torchtpu.report()
        out["compiled_ddp"]["graphs"] = {"total": rep["graphs"], "on_torchtpu": rep["on_torchtpu"]}
    return out


# ---- DDP checks ---------------------------------------------------------------------------


def check_ddp() -> dict[str, Any]:
    """DDP's features on tpu, checked the way PyTorch's DDP tests
    (torch/testing/_internal/distributed/distributed_test.py) check them:
    training against the same model trained on the whole batch in one
    process, or the ranks' parameters and buffers against each other."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel as DDP

    n = world()
    batches = data(n)
    want_losses, want_weights = reference(batches)
    results: dict[str, str] = {}

    def case(name: str, fn: Callable[[], None]) -> None:
        try:
            fn()
            results[name] = "ok"
        except Exception as e:
            results[name] = f"{type(e).__name__}: {e}"[:800]

    def train(model: nn.Module, step: Callable[[nn.Module, torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
              tol: float = 1e-4, **ddp: Any) -> DDP:
        m = DDP(model.to(DEV), **ddp)
        opt = optimizer(m.parameters())
        losses = []
        for x, y in batches:
            opt.zero_grad()
            xs, ys = _mine(x).to(DEV), _mine(y).to(DEV)
            loss = step(m, xs, ys) if step else F.mse_loss(m(xs), ys)
            if not step:
                loss.backward()
            opt.step()
            losses.append(_global_loss(loss))
        torch.testing.assert_close(torch.tensor(losses), torch.tensor(want_losses), rtol=tol / 10, atol=tol / 10)
        got = _full(m.module.state_dict())
        for k, v in want_weights.items():
            torch.testing.assert_close(got[k], v, rtol=tol, atol=tol)
        return m

    def same_on_every_rank(t: torch.Tensor) -> None:
        everyone = [torch.empty_like(t) for _ in range(n)]
        dist.all_gather(everyone, t.detach().contiguous())
        for q, e in enumerate(everyone):
            torch.testing.assert_close(e.cpu(), t.detach().cpu(), rtol=0, atol=0, msg=lambda m: f"rank {q}: {m}")

    case("DistributedDataParallel", lambda: train(new_model()))
    case("gradient_as_bucket_view", lambda: train(new_model(), gradient_as_bucket_view=True))
    case("static_graph", lambda: train(new_model(), static_graph=True))
    case("small_buckets", lambda: train(new_model(), bucket_cap_mb=0.0001))  # a bucket per parameter
    case("broadcast_buffers_off", lambda: train(new_model(), broadcast_buffers=False))

    class WithUnused(MLP):
        def __init__(self) -> None:
            super().__init__()
            self.unused = nn.Linear(8, 8)

    def find_unused() -> None:
        torch.manual_seed(0)
        m = WithUnused()
        torch.manual_seed(0)
        m.load_state_dict({**new_model().state_dict(), **{f"unused.{k}": v for k, v in m.unused.state_dict().items()}})
        before = m.unused.weight.detach().clone()
        d = train(m, find_unused_parameters=True)
        torch.testing.assert_close(d.module.unused.weight.cpu(), before, rtol=0, atol=0)
    case("find_unused_parameters", find_unused)

    def hook(h: Any, tol: float) -> Callable[[], None]:
        def run() -> None:
            m = DDP(new_model().to(DEV))
            m.register_comm_hook(dist.group.WORLD, h)
            opt = optimizer(m.parameters())
            for x, y in batches:
                opt.zero_grad()
                F.mse_loss(m(_mine(x).to(DEV)), _mine(y).to(DEV)).backward()
                opt.step()
            got = _full(m.module.state_dict())
            for k, v in want_weights.items():
                torch.testing.assert_close(got[k], v, rtol=tol, atol=tol)
        return run

    case("comm_hook.allreduce_hook", hook(default_hooks.allreduce_hook, 1e-4))
    case("comm_hook.fp16_compress_hook", hook(default_hooks.fp16_compress_hook, 5e-3))
    try:
        case("comm_hook.bf16_compress_hook", hook(default_hooks.bf16_compress_hook, 5e-2))
    finally:  # torch 2.14's hook refuses any device but CUDA and XPU (2.15 lifted it)
        if "required CUDA" in results["comm_hook.bf16_compress_hook"] and torch.__version__ < "2.15":
            results["comm_hook.bf16_compress_hook"] = "skip: " + results["comm_hook.bf16_compress_hook"]
    calls = []

    def python_hook(state, bucket):  # type: ignore[no-untyped-def]  (DDP reads the annotations)
        calls.append(1)
        fut = dist.all_reduce(bucket.buffer().div_(n), async_op=True).get_future()
        return fut.then(lambda f: f.value()[0])

    def python_future_hook() -> None:
        hook(python_hook, 1e-4)()
        assert len(calls) == STEPS, calls
    case("comm_hook.python_future", python_future_hook)

    def no_sync() -> None:
        def step(m: DDP, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            h = x.shape[0] // 2
            with m.no_sync():  # accumulate the first half locally
                (F.mse_loss(m(x[:h]), y[:h]) / 2).backward()
            (F.mse_loss(m(x[h:]), y[h:]) / 2).backward()
            return F.mse_loss(m(x), y).detach()
        train(new_model(), step)
    case("no_sync", no_sync)

    def init_sync() -> None:
        torch.manual_seed(rank())  # different weights on every rank
        m = DDP(MLP().to(DEV))
        for p in m.parameters():
            same_on_every_rank(p)
    case("init_sync_broadcast", init_sync)

    def broadcast_buffers() -> None:
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 4))
        m = DDP(model.to(DEV))
        opt = optimizer(m.parameters())
        for x, y in batches:
            opt.zero_grad()
            F.mse_loss(m(_mine(x).to(DEV)), _mine(y).to(DEV)).backward()
            opt.step()
        for t in list(m.parameters()):
            same_on_every_rank(t)
        m.eval()
        with torch.no_grad():  # broadcasts rank 0's buffers first, and leaves them as they are
            m(_mine(batches[0][0]).to(DEV))
        for b in m.buffers():
            if b.is_floating_point():
                same_on_every_rank(b)
    case("broadcast_buffers_batchnorm", broadcast_buffers)

    def join_uneven() -> None:
        m = DDP(new_model().to(DEV))
        opt = optimizer(m.parameters())
        mine = batches[: 2 + rank()]  # uneven numbers of batches
        with m.join():
            for x, y in mine:
                opt.zero_grad()
                F.mse_loss(m(_mine(x).to(DEV)), _mine(y).to(DEV)).backward()
                opt.step()
        for p in m.parameters():
            same_on_every_rank(p)
    case("join_uneven_inputs", join_uneven)

    def sync_batchnorm() -> None:
        torch.manual_seed(0)
        local = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 4))
        whole = copy.deepcopy(local)
        m = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(local).to(DEV))
        x, y = batches[0]
        F.mse_loss(m(_mine(x).to(DEV)), _mine(y).to(DEV)).backward()
        F.mse_loss(whole(x), y).backward()  # batch statistics of the whole batch, as SyncBatchNorm computes
        for (k, a), b in zip(m.module.named_parameters(), whole.parameters()):
            torch.testing.assert_close(a.grad.cpu(), b.grad, rtol=1e-4, atol=1e-5, msg=lambda s: f"{k}: {s}")
    case("SyncBatchNorm", sync_batchnorm)
    return {"cases": results, "passed": sum(v == "ok" for v in results.values()),
            "skipped": sum(v.startswith("skip: ") for v in results.values()), "total": len(results)}
