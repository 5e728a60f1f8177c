"""The collectives check of the distributed tests (_dist_worker.py's
``collectives`` mode): every collective the tpu backend serves, on float32,
bfloat16 and int64 tpu tensors, against the values computed on the CPU."""

from __future__ import annotations

from typing import Any, Callable

import torch
import torch.distributed as dist

from _dist_common import DEV, rank, world

# ---- collectives ---------------------------------------------------------------------


def _values(r: int, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """Rank r's input: small integers (exact in bfloat16 after a few sums)."""
    n = 1
    for s in shape:
        n *= s
    v = (torch.arange(n).reshape(shape) % 7 + 1 + 2 * r).to(dtype)
    return v


def check_collectives() -> dict[str, Any]:
    r, n = rank(), world()
    results: dict[str, str] = {}

    def case(name: str, fn: Callable[[], None]) -> None:
        try:
            fn()
            results[name] = "ok"
        except Exception as e:  # recorded, so one failure shows every other case too
            results[name] = f"{type(e).__name__}: {e}"[:600]

    def same(got: torch.Tensor, want: torch.Tensor) -> None:
        assert got.device.type == DEV, got.device
        torch.testing.assert_close(got.cpu(), want, rtol=0, atol=0)

    for dtype in (torch.float32, torch.bfloat16, torch.int64):
        dn = str(dtype).removeprefix("torch.")
        shape = (3, 4)
        mine = _values(r, shape, dtype)
        everyone = [_values(q, shape, dtype) for q in range(n)]
        acc = {  # reductions computed in float64, then rounded once to the dtype
            "SUM": sum(e.double() for e in everyone),
            "MAX": torch.stack([e.double() for e in everyone]).amax(0),
            "MIN": torch.stack([e.double() for e in everyone]).amin(0),
            "PRODUCT": torch.stack([e.double() for e in everyone]).prod(0),
        }
        acc["AVG"] = acc["SUM"] / n if dtype.is_floating_point else torch.div(acc["SUM"], n, rounding_mode="trunc")
        for op, want in acc.items():
            def allreduce(op=op, want=want):
                t = mine.to(DEV)
                dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
                same(t, want.to(dtype))
            case(f"all_reduce.{op}.{dn}", allreduce)

        def allreduce_async():
            t = mine.to(DEV)
            w = dist.all_reduce(t, async_op=True)
            fut = w.get_future()
            w.wait()
            assert fut.done()
            same(fut.value()[0], acc["SUM"].to(dtype))
            same(t, acc["SUM"].to(dtype))
        case(f"all_reduce.async_op.{dn}", allreduce_async)

        def broadcast():
            t = mine.to(DEV)
            dist.broadcast(t, src=n - 1)
            same(t, everyone[n - 1])
        case(f"broadcast.{dn}", broadcast)

        def all_gather():
            outs = [torch.empty(shape, dtype=dtype, device=DEV) for _ in range(n)]
            dist.all_gather(outs, mine.to(DEV))
            for q in range(n):
                same(outs[q], everyone[q])
        case(f"all_gather.{dn}", all_gather)

        def all_gather_into_tensor():
            out = torch.empty((n * shape[0], shape[1]), dtype=dtype, device=DEV)
            dist.all_gather_into_tensor(out, mine.to(DEV))
            same(out, torch.cat(everyone))
        case(f"all_gather_into_tensor.{dn}", all_gather_into_tensor)

        def reduce_scatter_tensor():
            big = torch.cat([_values(r + k, shape, dtype) for k in range(n)])  # rank r's input, n chunks
            out = torch.empty(shape, dtype=dtype, device=DEV)
            dist.reduce_scatter_tensor(out, big.to(DEV))
            want = sum(_values(q + r, shape, dtype).double() for q in range(n)).to(dtype)
            same(out, want)
        case(f"reduce_scatter_tensor.{dn}", reduce_scatter_tensor)

        def reduce_scatter_avg():
            big = torch.cat([_values(r + k, shape, dtype) for k in range(n)])
            out = torch.empty(shape, dtype=dtype, device=DEV)
            if not dtype.is_floating_point:
                return
            dist.reduce_scatter_tensor(out, big.to(DEV), op=dist.ReduceOp.AVG)
            want = (sum(_values(q + r, shape, dtype).double() for q in range(n)) / n).to(dtype)
            same(out, want)
        case(f"reduce_scatter_tensor.AVG.{dn}", reduce_scatter_avg)

        def reduce_scatter_list():
            ins = [_values(r + k, shape, dtype).to(DEV) for k in range(n)]
            out = torch.empty(shape, dtype=dtype, device=DEV)
            dist.reduce_scatter(out, ins)
            same(out, sum(_values(q + r, shape, dtype).double() for q in range(n)).to(dtype))
        case(f"reduce_scatter.{dn}", reduce_scatter_list)

        def all_to_all_single():
            inp = torch.cat([_values(r * n + k, (2, 3), dtype) for k in range(n)]).to(DEV)
            out = torch.empty((2 * n, 3), dtype=dtype, device=DEV)
            dist.all_to_all_single(out, inp)
            same(out, torch.cat([_values(q * n + r, (2, 3), dtype) for q in range(n)]))
        case(f"all_to_all_single.{dn}", all_to_all_single)

        def all_to_all_uneven():
            # rank r sends k+1 rows to rank k
            ins = [_values(r * n + k, (k + 1, 2), dtype) for k in range(n)]
            out = torch.empty((n * (r + 1), 2), dtype=dtype, device=DEV)
            dist.all_to_all_single(out, torch.cat(ins).to(DEV), output_split_sizes=[r + 1] * n,
                                   input_split_sizes=[k + 1 for k in range(n)])
            same(out, torch.cat([_values(q * n + r, (r + 1, 2), dtype) for q in range(n)]))
        case(f"all_to_all_single.uneven.{dn}", all_to_all_uneven)

        def reduce_gather_scatter():
            t = mine.to(DEV)
            dist.reduce(t, dst=0, op=dist.ReduceOp.MAX)
            same(t, acc["MAX"].to(dtype) if r == 0 else mine)  # only the root receives
            outs = [torch.empty(shape, dtype=dtype, device=DEV) for _ in range(n)] if r == n - 1 else None
            dist.gather(mine.to(DEV), outs, dst=n - 1)
            if r == n - 1:
                for q in range(n):
                    same(outs[q], everyone[q])
            got = torch.empty(shape, dtype=dtype, device=DEV)
            dist.scatter(got, [e.to(DEV) * 2 for e in everyone] if r == 0 else None, src=0)
            same(got, everyone[r] * 2)
        case(f"reduce_gather_scatter.{dn}", reduce_gather_scatter)

        def all_to_all_list():
            ins = [_values(r * n + k, (k + 1, 2), dtype).to(DEV) for k in range(n)]
            outs = [torch.empty((r + 1, 2), dtype=dtype, device=DEV) for _ in range(n)]
            dist.all_to_all(outs, ins)
            for q in range(n):
                same(outs[q], _values(q * n + r, (r + 1, 2), dtype))
        case(f"all_to_all.{dn}", all_to_all_list)

        def send_recv():
            # a ring: rank r sends to r+1, receives from r-1
            ops = [dist.P2POp(dist.isend, mine.to(DEV), (r + 1) % n),
                   dist.P2POp(dist.irecv, got := torch.empty(shape, dtype=dtype, device=DEV), (r - 1) % n)]
            for w in dist.batch_isend_irecv(ops):
                w.wait()
            same(got, everyone[(r - 1) % n])
            if r == 0:
                dist.send(mine.to(DEV), n - 1)
            elif r == n - 1:
                t = torch.empty(shape, dtype=dtype, device=DEV)
                dist.recv(t, 0)
                same(t, everyone[0])
        case(f"send_recv.{dn}", send_recv)

        def coalesced():
            from torch.distributed import _functional_collectives as fc
            a, b = mine.to(DEV), (mine[:1] * 2).to(DEV)
            ra, rb = fc.all_reduce_coalesced([a, b], "sum", dist.group.WORLD)
            same(ra, acc["SUM"].to(dtype))
            same(rb, sum(e[:1].double() * 2 for e in everyone).to(dtype))
            ga, = (getattr(fc, "all_gather_single_coalesced", None) or fc.all_gather_into_tensor_coalesced)(
                [a], dist.group.WORLD)
            same(ga, torch.cat(everyone))
            big = torch.cat([_values(r + k, shape, dtype) for k in range(n)]).to(DEV)
            sa, = (getattr(fc, "reduce_scatter_single_coalesced", None) or fc.reduce_scatter_tensor_coalesced)(
                [big], "sum", [0], dist.group.WORLD)
            same(sa, sum(_values(q + r, shape, dtype).double() for q in range(n)).to(dtype))
        case(f"functional_coalesced.{dn}", coalesced)

        def functional():
            from torch.distributed import _functional_collectives as fc
            t = fc.all_reduce(mine.to(DEV), "sum", dist.group.WORLD)
            same(fc.wait_tensor(t), acc["SUM"].to(dtype))
            g = (getattr(fc, "all_gather_single", None) or fc.all_gather_tensor)(mine.to(DEV), 0, dist.group.WORLD)
            same(fc.wait_tensor(g), torch.cat(everyone))
            inp = torch.cat([_values(r * n + k, (2, 3), dtype) for k in range(n)]).to(DEV)
            a = fc.all_to_all_single(inp, None, None, dist.group.WORLD)
            same(fc.wait_tensor(a), torch.cat([_values(q * n + r, (2, 3), dtype) for q in range(n)]))
        case(f"functional.{dn}", functional)

    def barrier():
        dist.barrier()
        w = dist.barrier(async_op=True)
        w.wait()
    case("barrier", barrier)

    def objects():
        got: list[Any] = [None] * n
        dist.all_gather_object(got, {"rank": r})
        assert got == [{"rank": q} for q in range(n)], got
    case("all_gather_object", objects)
    return {"cases": results, "passed": sum(v == "ok" for v in results.values()), "total": len(results)}
