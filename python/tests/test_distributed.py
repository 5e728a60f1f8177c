"""torch.distributed on the tpu device: the "torchtpu" c10d backend, tested in
separate processes launched by torchrun (2 and 4 ranks), as a user runs them.

Each launch runs several checks in the same processes (_dist_worker.py) to
keep the suite short: on 2 cores, a 2-rank launch takes about 20 s and a
4-rank one about 30 s, most of it starting Python, torch and torchtpu.

- every collective of the backend on float32, bfloat16 and int64 tpu tensors;
- DDP, FSDP2, DTensor tensor parallelism and torch.compile of a DDP model,
  5 steps each, against single-process CPU training on the whole batch
  (losses within 1e-5, final weights within 1e-4), on the native backend
  and on xla-cpu;
- a collective called with different shapes raises on every rank, naming
  the ranks; a rank killed mid-run makes the others raise within the timeout;
- DDP checks modelled on PyTorch's own DDP tests (distributed_test.py).
"""

from __future__ import annotations

import functools
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import torch

import torchtpu

from conftest import IN_CI, ROOT, TEST_ENV

WORKER = Path(__file__).with_name("_dist_worker.py")

pytestmark = pytest.mark.skipif(not torchtpu.distributed.is_available() and not IN_CI,
                                reason="this torch has no torch.distributed with Gloo")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@functools.lru_cache(maxsize=None)
def _has_libuv() -> bool:
    """Whether this torch's TCPStore has its default libuv server (Debian's
    torch is built without it: then USE_LIBUV=0, as its error asks)."""
    import torch.distributed as dist

    try:
        dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, use_libuv=True)
    except Exception:
        return False
    return True


def _env(out: Path, extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TT_DIST_OUT=str(out), OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    if not _has_libuv():
        env["USE_LIBUV"] = "0"  # init_process_group's TCPStore without libuv
    if TEST_ENV != "wheel":  # the checkout's package, as in this process
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.update(extra)
    return env


def _results(out: Path, n: int, log: str) -> list[dict[str, Any]]:
    res = []
    for r in range(n):
        f = out / f"rank{r}.json"
        assert f.is_file(), f"rank {r} wrote no result:\n{log[-6000:]}"
        d = json.loads(f.read_text())
        # Every rank ran this torchtpu (the checkout's, or the installed wheel's).
        assert d["torchtpu"] == torchtpu.__file__, (d["torchtpu"], torchtpu.__file__)
        assert d["tpu_backend"] == "torchtpu", d
        res.append(d)
    return res


def _launch(script: Path, args: list[str], n: int, out: Path, extra: dict[str, str]) -> tuple[int, str]:
    """Runs script on n ranks with torchrun: (exit status, output).

    Debian's torch 2.14 has no libuv, and its torchrun's rendezvous asks for
    a libuv TCPStore whatever USE_LIBUV says (it fails before any rank
    starts): there the ranks are started as torchrun starts them (RANK,
    LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; init_process_group's
    env:// store honours USE_LIBUV=0)."""
    if _has_libuv():
        cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={n}", "--master_addr=127.0.0.1",
               f"--master_port={_port()}", str(script), *args]
        p = subprocess.run(cmd, env=_env(out, extra), capture_output=True, text=True, timeout=900)
        return p.returncode, p.stdout + p.stderr
    procs = _spawn(script, args, n, out, extra)
    logs = [p.communicate(timeout=900)[0] for p in procs]
    return max(abs(p.returncode) for p in procs), "\n".join(logs)


def torchrun(modes: str, n: int, out: Path, **extra: str) -> list[dict[str, Any]]:
    """Runs the worker's modes on n ranks; returns each rank's result."""
    t0 = time.perf_counter()
    rc, log = _launch(WORKER, [modes], n, out, extra)
    assert rc == 0, f"the ranks exited {rc} after {time.perf_counter() - t0:.0f} s:\n{log[-8000:]}"
    return _results(out, n, log)


def _spawn(script: Path, args: list[str], n: int, out: Path, extra: dict[str, str]) -> list[subprocess.Popen]:
    """Starts n ranks of script directly, with torchrun's environment."""
    env = _env(out, {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(_port()), "WORLD_SIZE": str(n),
                     "LOCAL_WORLD_SIZE": str(n), **extra})
    return [subprocess.Popen([sys.executable, str(script), *args],
                             env={**env, "RANK": str(r), "LOCAL_RANK": str(r), "GROUP_RANK": "0"},
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for r in range(n)]


def _check_collectives(res: list[dict[str, Any]]) -> None:
    for d in res:
        c = d["collectives"]
        bad = {k: v for k, v in c["cases"].items() if v != "ok"}
        assert not bad, f"rank {d['rank']}: {c['passed']}/{c['total']} passed; failed:\n" + \
            "\n".join(f"  {k}: {v}" for k, v in bad.items())
        assert c["total"] >= 50


def _check_training(res: list[dict[str, Any]]) -> None:
    for d in res:
        t = d["train"]
        want = ["ddp", "fsdp2", "tp", "compiled_ddp"] + (["fsdp_tp_2d"] if d["world"] == 4 else [])
        for run in want:
            assert t[run]["ok"], f"rank {d['rank']} {run}: {json.dumps(t[run], indent=1)[:3000]}"
        g = t["compiled_ddp"]["graphs"]
        assert g["total"] >= 2 and g["on_torchtpu"] == g["total"], g  # compiled by torchtpu, no eager fallback
        assert d["cpu_fallbacks"] == [], d["cpu_fallbacks"]


def test_two_ranks(tmp_path):
    """2 ranks on the native backend: collectives, a shape mismatch, training."""
    res = torchrun("collectives,mismatch,train", 2, tmp_path)
    _check_collectives(res)
    for d in res:
        m = d["mismatch"]
        assert m["error"] and "differs between ranks" in m["error"], m
        assert "rank 0 called all_reduce(SUM) float32[4]; rank 1 called all_reduce(SUM) float32[5]" in m["error"], m
        assert m["after"] == [2.0, 2.0], m  # the group still works
    _check_training(res)


def test_four_ranks(tmp_path):
    """4 ranks on the native backend, init_process_group("torchtpu"):
    collectives and training."""
    res = torchrun("collectives,train", 4, tmp_path, TT_DIST_BACKEND="torchtpu")
    assert all(d["backend_name"] == "torchtpu" for d in res), [d["backend_name"] for d in res]
    _check_collectives(res)
    _check_training(res)


def _xla_cpu() -> None:
    devs = {d["name"]: d for d in torchtpu.devices()}
    d = devs.get("xla-cpu")
    if d is None or not d["available"]:
        why = d["error"] if d else "no xla-cpu device registered"
        if IN_CI and TEST_ENV != "chroot":
            pytest.fail(f"xla-cpu is not available in CI: {why}")
        pytest.skip(f"xla-cpu is not available: {why}")


@pytest.mark.parametrize("n", [2, 4])
def test_ranks_xla_cpu(tmp_path, n):
    """Ranks whose tpu device is XLA's CPU compiler (PJRT): the collectives
    are staged through host memory as on the native backend (the CPU plugin
    has no cross-process collectives: docs/distributed.md)."""
    _xla_cpu()
    res = torchrun("collectives,train", n, tmp_path, TORCHTPU_DEVICE="xla-cpu")
    assert all(d["backend"] == "xla-cpu" for d in res), [d["backend"] for d in res]
    _check_collectives(res)
    _check_training(res)


def test_rank_killed(tmp_path):
    """The last of 3 ranks is killed at step 2 of DDP training: the others
    raise, naming the collective and the dead rank, well within the timeout."""
    n, timeout = 3, 60
    procs = _spawn(WORKER, ["kill"], n, tmp_path, {"TT_DIST_TIMEOUT": str(timeout)})
    logs = [p.communicate(timeout=600)[0] for p in procs]
    assert procs[-1].returncode == -signal.SIGKILL, logs[-1][-3000:]
    res = _results(tmp_path, n - 1, "\n".join(logs))
    for d in res:
        k = d["kill"]
        assert k["error"], f"rank {d['rank']} did not notice the dead rank: {k}"
        assert "DistBackendError" in k["error"] and "torchtpu: " in k["error"], k
        assert f"rank {n - 1} (pid {procs[-1].pid}) has exited" in k["error"], k
        assert k["seconds"] < timeout, k


def test_rank_stopped(tmp_path):
    """The last of 2 ranks stops (SIGSTOP) at step 2: its connections stay
    open, so the other rank fails when the group's timeout expires, with an
    error naming the collective, instead of hanging."""
    n, timeout = 2, 8
    procs = _spawn(WORKER, ["kill"], n, tmp_path, {"TT_DIST_TIMEOUT": str(timeout), "TT_DIST_SIGNAL": "SIGSTOP"})
    try:
        log = procs[0].communicate(timeout=600)[0]
    finally:
        procs[-1].kill()
        procs[-1].communicate()
    d = _results(tmp_path, 1, log)[0]["kill"]
    assert d["error"] and "DistBackendError" in d["error"] and "torchtpu: " in d["error"], d
    assert "no rank on this host has exited" in d["error"], d
    assert timeout / 2 <= d["seconds"] < 3 * timeout, d


def test_ddp_checks(tmp_path):
    """DDP features checked as PyTorch's DDP tests check them, on tpu, in a
    group made with init_process_group("cpu:gloo,tpu:torchtpu") (CPU
    tensors on Gloo, tpu tensors on the tpu backend)."""
    res = torchrun("mixed,ddp_checks", 2, tmp_path, TT_DIST_BACKEND="cpu:gloo,tpu:torchtpu")
    for d in res:
        m = d["mixed"]
        assert m["ok"] and m["cpu_backend"] == "gloo" and m["tpu_backend"] == "torchtpu", m
        c = d["ddp_checks"]
        bad = {k: v for k, v in c["cases"].items() if v != "ok" and not v.startswith("skip: ")}
        assert not bad, f"rank {d['rank']}: {c['passed']}/{c['total']} passed; failed:\n" + \
            "\n".join(f"  {k}: {v}" for k, v in bad.items())


def test_registered():
    """import torchtpu registers the backend for the tpu device."""
    import torch.distributed as dist

    assert dist.Backend.default_device_backend_map.get("tpu") == "torchtpu"
    assert dist.Backend.backend_capability["torchtpu"] == ["tpu"]
    assert dist.Backend("torchtpu") == "torchtpu"


def test_device_apis_distributed_uses():
    """What torch.distributed (DDP, FSDP2, DTensor) asks of the device module."""
    tpu = torch.tpu
    tpu.set_device(0)
    tpu.set_device("tpu:0")
    assert tpu.current_device() == 0 and tpu.device_count() == 1
    with pytest.raises(ValueError, match="one tpu device"):
        tpu.set_device(1)
    # Streams and events (FSDP2's all-gather and reduce-scatter streams).
    s = tpu.Stream(priority=-1)
    assert s.device == torch.device("tpu", 0)
    with tpu.stream(s):
        assert tpu.current_stream() == s
        x = torch.ones(4, device="tpu") * 3
    assert tpu.current_stream() != s
    ev = s.record_event()
    tpu.current_stream().wait_event(ev)
    tpu.current_stream().wait_stream(s)
    ev.synchronize()
    assert ev.query()
    torch.testing.assert_close(x.cpu(), torch.full((4,), 3.0))
    # RNG state round trip.
    state = tpu.get_rng_state()
    a = torch.rand(5, device="tpu")
    tpu.set_rng_state(state)
    torch.testing.assert_close(torch.rand(5, device="tpu").cpu(), a.cpu(), rtol=0, atol=0)
    # FSDP2 frees a parameter's storage and reallocates it before the all-gather.
    t = torch.arange(6.0, device="tpu")
    st = t.untyped_storage()
    n = st.nbytes()
    st.resize_(0)
    assert st.nbytes() == 0 and t.untyped_storage().nbytes() == 0
    st.resize_(n)
    t.copy_(torch.arange(6.0).flip(0))
    torch.testing.assert_close(t.cpu(), torch.arange(6.0).flip(0))
    # Pinned host memory (DDP's used-parameter map).
    p = torch.ones(3).pin_memory()
    assert p.is_pinned() and not torch.ones(3).is_pinned()
    torch.testing.assert_close(p.to("tpu", non_blocking=True).cpu(), torch.ones(3))


def test_fsdp_copy_ops_on_tpu():
    """FSDP2's copy-in and copy-out ops on tpu tensors: on the device, as on CPU."""
    import torch.distributed.fsdp._fully_shard._fsdp_collectives  # noqa: F401  (defines the fsdp ops)

    before = torch.tpu.fallback_calls()
    g = torch.Generator().manual_seed(0)
    ins = [torch.randn(3, generator=g), torch.randn(5, generator=g)]
    got = {}
    for dev in ("cpu", "tpu"):
        out = torch.zeros(16, device=dev)
        inp, whole = torch.ops.fsdp.all_gather_copy_in([t.to(dev) for t in ins], out, [3, 5], 8, 1)
        assert inp.data_ptr() == whole.data_ptr() + 8 * 4 and whole.data_ptr() == out.data_ptr()
        gathered = torch.arange(16.0).reshape(2, 8).to(dev)
        parts = [torch.empty(2, 3, device=dev), torch.empty(2, 5, device=dev)]
        torch.ops.fsdp.split_with_sizes_copy(gathered, [3, 5], dim=1, out=parts)
        cat = torch.empty(2, 7, device=dev)
        torch.ops.fsdp.chunk_cat([torch.arange(6.0).reshape(2, 3).to(dev), torch.arange(8.0).reshape(2, 4).to(dev)],
                                 dim=0, num_chunks=2, out=cat)
        got[dev] = [out.cpu(), *[p.cpu() for p in parts], cat.cpu()]
    for a, b in zip(got["tpu"], got["cpu"]):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    assert torch.tpu.fallback_calls() == before, torch.tpu.fallbacks()


def test_example(tmp_path):
    """examples/torchrun_tpu.py --fsdp on 2 ranks: the losses it prints are
    those of the same model trained on the whole batch in one process."""
    import re

    import torch.nn as nn
    import torch.nn.functional as F

    example = ROOT.parent / "examples" / "torchrun_tpu.py"
    if not example.is_file():  # the wheel's tests run outside the checkout
        pytest.skip("the examples are not beside these tests")
    rc, log = _launch(example, ["--fsdp", "--steps", "3"], 2, tmp_path, {})
    assert rc == 0, log[-6000:]
    got = [float(v) for v in re.findall(r"^step \d+: loss ([0-9.]+)$", log, re.M)]
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(1234)
    want = []
    for _ in range(3):
        x, y = torch.randn(16, 32, generator=g), torch.randint(0, 10, (16,), generator=g)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        want.append(round(loss.item(), 4))
    assert got == pytest.approx(want, abs=2e-4), (got, want, log[-3000:])
