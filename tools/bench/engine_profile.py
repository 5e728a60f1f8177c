"""The engine's Go CPU profile in the bench tools (--profile DIR): where its threads wait.

profiled(step, path, runs, seconds) runs step under torchtpu.profile_engine (at least `runs`
steps and `seconds` seconds: the profile samples 100 times a second, so a short loop holds too
few samples to share out) and reads the profile back: the engine's samples, and their share in
spin-wait or idle-wait code:

- pool: the native backend's parallel-loop pool (backend/native/internal/pool) waiting, not
  working: a helper's `(*loopHelper).loop` polling for the next loop, or the caller in `pool.Run`
  polling for the helpers to finish (inside PyTorch, a lent thread in `pool.Lend` polling for
  the next loop, the caller in `pool.runLent`), with what they call to do so (the clock, atomics,
  runtime.Gosched and the scheduler under it); a loop's body is work, not wait;
- futex/usleep/yield: the rest of the samples whose innermost function is runtime.futex,
  runtime.usleep, runtime.procyield or runtime.osyield (threads parking, waking, or the
  scheduler spinning for work).

Samples outside Go code (runtime._ExternalCode: PyTorch's threads, Python) are left out: Go's
profiler takes them from a process-wide timer and places them poorly (on this machine most fell
in a libc futex wait in which perf saw no time), and PyTorch's OpenMP pool is not seen at all:
perf is the tool for the host's side. On a quiet machine the pool's share here matched perf's
samples in (*loopHelper).loop and pool.Run (13% of the engine's against 12%, compiled GPT-2 on 2
threads); on a loaded one the profile gave the waits more. The profile is read here (gzip'd protobuf, pprof's
profile.proto), so no Go toolchain is needed; `go tool pprof -top libtorchtpu.so FILE` shows the
same file by function.
"""

from __future__ import annotations

import gzip
import time
from pathlib import Path
from typing import Any, Callable, Iterator

POOL = "/backend/native/internal/pool."
# the helpers' and the caller's waits, and a lent run's (pool.Lend: the
# lent threads polling for a loop, the caller waiting for them)
POOL_WAIT = (POOL + "(*loopHelper).loop", POOL + "Run", POOL + "Lend.func1", POOL + "runLent")
# what the waits call to poll, yield or look at the clock
WAIT_CALLEES = ("runtime.", "time.", "sync/atomic.", "internal/")
IDLE_LEAVES = {"runtime.futex", "runtime.usleep", "runtime.procyield", "runtime.osyield"}
EXTERNAL = {"runtime._ExternalCode", "runtime._System", "runtime._GC", "runtime._VDSO"}


def _varint(b: bytes, i: int) -> tuple[int, int]:
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        if c < 0x80:
            return v, i
        s += 7


def _fields(b: bytes) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) of a protobuf message: an int for
    varints and fixed-width fields, bytes for length-delimited ones."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wt}")
        yield f, wt, v


def _ints(wt: int, v: Any) -> list[int]:
    """A repeated integer field's values: packed (bytes) or one varint."""
    if wt != 2:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = _varint(v, i)
        out.append(x)
    return out


def read(path: str | Path) -> list[tuple[int, list[str]]]:
    """The samples of a pprof file: (count, function names innermost first,
    inlined frames expanded)."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strings: list[str] = []
    funcs: dict[int, int] = {}  # function id -> name's string index
    locs: dict[int, list[int]] = {}  # location id -> function ids, innermost first
    raw_samples: list[tuple[list[int], list[int]]] = []
    for f, wt, v in _fields(data):
        if f == 6:
            strings.append(v.decode("utf-8", "replace"))
        elif f == 5:
            fid = name = 0
            for g, _, w in _fields(v):
                if g == 1:
                    fid = w
                elif g == 2:
                    name = w
            funcs[fid] = name
        elif f == 4:
            lid, lines = 0, []
            for g, _, w in _fields(v):
                if g == 1:
                    lid = w
                elif g == 4:
                    lines += [x for h, _, x in _fields(w) if h == 1]
            locs[lid] = lines
        elif f == 2:
            ids: list[int] = []
            vals: list[int] = []
            for g, gwt, w in _fields(v):
                if g == 1:
                    ids += _ints(gwt, w)
                elif g == 2:
                    vals += _ints(gwt, w)
            raw_samples.append((ids, vals))

    def string(i: int) -> str:
        return strings[i] if i < len(strings) else ""

    return [(vals[0] if vals else 0, [string(funcs.get(fid, 0)) for lid in ids for fid in locs.get(lid, [])])
            for ids, vals in raw_samples]


def _pool_wait(stack: list[str]) -> bool:
    """Whether the innermost frame that is not a runtime, clock or atomic
    function is the pool waiting (a generic atomic's name may spell the
    pool's types, so those frames are skipped first)."""
    for fn in stack:
        if not fn.startswith(WAIT_CALLEES):
            return POOL in fn and fn.endswith(POOL_WAIT)
    return False


def spin_share(path: str | Path) -> dict[str, Any]:
    """The profile's engine samples and their shares in the pool's waits and
    in the runtime's futex/usleep/yield (fractions of engine samples)."""
    engine = pool = idle = 0
    for n, stack in read(path):
        if any(fn in EXTERNAL for fn in stack):
            continue
        elif _pool_wait(stack):
            engine, pool = engine + n, pool + n
        elif stack and stack[0] in IDLE_LEAVES:
            engine, idle = engine + n, idle + n
        else:
            engine += n
    share = (lambda k: k / engine) if engine else (lambda k: 0.0)
    return {"profile": str(path), "engine_samples": engine, "spin_wait": share(pool + idle),
            "pool_wait": share(pool), "runtime_wait": share(idle)}


def profiled(step: Callable[[], Any], path: str | Path, runs: int, seconds: float) -> dict[str, Any]:
    """Runs step at least runs times and for at least seconds under the
    engine's CPU profile into path, and returns spin_share of it with the
    steps run and their mean wall time (ms)."""
    import torchtpu

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with torchtpu.profile_engine(path):
        t0 = time.perf_counter()
        while n < runs or time.perf_counter() - t0 < seconds:
            step()
            n += 1
        wall = time.perf_counter() - t0
    r = spin_share(path)
    r.update(steps=n, step_ms=wall / n * 1e3)
    return r


def line(col: str, r: dict[str, Any]) -> str:
    """One line of a column's share, e.g. "torchtpu: engine samples 1234,
    spin-wait 8.1% (pool 6.0%, futex/usleep/yield 2.1%) ..."."""
    return (f"{col}: engine samples {r['engine_samples']}, spin-wait {r['spin_wait'] * 100:.1f}% "
            f"(pool {r['pool_wait'] * 100:.1f}%, futex/usleep/yield {r['runtime_wait'] * 100:.1f}%); "
            f"{r['steps']} steps of {r['step_ms']:.2f} ms; {r['profile']}")
