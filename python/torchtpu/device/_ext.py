"""Builds and loads the tpu device's C++ extension (``torchtpu/csrc``).

The extension registers PyTorch's PrivateUse1 kernels (allocation, views,
copies, and one boxed fallback for every other aten op) that call the
engine's C ABI directly: a Python hop per op would cost several times
PyTorch's own per-op time (DESIGN.md, "Measured constraints"). It is built
once per torch build with the C++ compiler torch itself uses, against that
torch's headers (``torch.utils.cpp_extension`` gives the paths and flags),
into ``torchtpu/lib/ext/`` (or ``$TORCHTPU_EXT_DIR``), and reused after.
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import torch

_CSRC = Path(__file__).resolve().parent.parent / "csrc"
_SOURCES = ("device.cpp", "kernels.cpp", "fallback.cpp", "scalars.cpp")
_HEADERS = ("device.h", "tt_abi.h")


def _compiler() -> str:
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not cxx:
        raise RuntimeError("torchtpu: the tpu device needs a C++ compiler (g++) to build its extension")
    return cxx


def _flags() -> tuple[list[str], list[str]]:
    from torch.utils import cpp_extension

    cflags = ["-O2", "-std=c++20", "-fPIC", "-fvisibility=hidden", "-w",
              f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}"]
    cflags += [f"-I{p}" for p in cpp_extension.include_paths()]
    ldflags = []
    for p in cpp_extension.library_paths():
        ldflags += [f"-L{p}", f"-Wl,-rpath,{p}"]
    ldflags += ["-lc10", "-ltorch_cpu", "-ltorch"]
    return cflags, ldflags


def _build_dir() -> Path:
    env = os.environ.get("TORCHTPU_EXT_DIR")
    base = Path(env) if env else Path(__file__).resolve().parent.parent / "lib" / "ext"
    try:
        base.mkdir(parents=True, exist_ok=True)
        probe = base / f".probe{os.getpid()}"
        probe.touch()
        probe.unlink()
    except OSError:
        base = Path.home() / ".cache" / "torchtpu" / "ext"
        base.mkdir(parents=True, exist_ok=True)
    return base


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
        h.update(b"\0")
    return h.hexdigest()[:16]


def build(verbose: bool = False) -> Path:
    """Builds the extension for this torch (when its sources or torch
    changed) and returns the library's path."""
    cxx = _compiler()
    cflags, ldflags = _flags()
    headers = b"".join((_CSRC / h).read_bytes() for h in _HEADERS)
    tag = _digest(torch.__version__.encode(), str(Path(torch.__file__).resolve()).encode(),
                  " ".join([cxx] + cflags + ldflags).encode())
    out_dir = _build_dir() / f"torch-{torch.__version__.replace('+', '_')}-{tag}"
    out_dir.mkdir(parents=True, exist_ok=True)
    objs = []
    for src in _SOURCES:
        code = (_CSRC / src).read_bytes()
        objs.append((src, out_dir / f"{Path(src).stem}-{_digest(code, headers)}.o"))
    lib = out_dir / f"torchtpu_device-{_digest(*[str(o).encode() for _, o in objs])}.so"
    if lib.exists():
        return lib
    with open(out_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if lib.exists():
            return lib
        print(f"torchtpu: building the tpu device extension for torch {torch.__version__} "
              f"(once; a minute or two) in {out_dir}", file=sys.stderr, flush=True)
        procs = []
        for src, obj in objs:
            if obj.exists():
                continue
            tmp = obj.with_suffix(f".tmp{os.getpid()}.o")
            cmd = [cxx, *cflags, "-c", str(_CSRC / src), "-o", str(tmp)]
            procs.append((subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT), tmp, obj, src))
        failed = []
        for p, tmp, obj, src in procs:
            log, _ = p.communicate()
            if p.returncode != 0:
                failed.append(f"{src}:\n{log.decode(errors='replace')[-4000:]}")
            else:
                os.replace(tmp, obj)
        if failed:
            raise RuntimeError("torchtpu: building the tpu device extension failed:\n" + "\n".join(failed))
        tmp = lib.with_suffix(f".tmp{os.getpid()}.so")
        cmd = [cxx, "-shared", *[str(o) for _, o in objs], "-o", str(tmp), *ldflags]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise RuntimeError("torchtpu: linking the tpu device extension failed:\n" + r.stdout.decode(errors="replace"))
        os.replace(tmp, lib)
    return lib


_ext: Optional[ctypes.CDLL] = None


def load() -> ctypes.CDLL:
    """Builds if needed, loads the extension (registering its kernels with
    PyTorch's dispatcher) and binds it to the engine library."""
    global _ext
    if _ext is not None:
        return _ext
    from .. import _lib

    path = build()
    torch.ops.load_library(str(path))
    ext = ctypes.CDLL(str(path))
    ext.ttx_init.restype = ctypes.c_int
    ext.ttx_init.argtypes = [ctypes.c_char_p, ctypes.c_int32, ctypes.c_char_p, ctypes.c_int]
    ext.ttx_set_cpu_fallback.restype = None
    ext.ttx_set_cpu_fallback.argtypes = [ctypes.c_int]
    ext.ttx_register_direct.restype = ctypes.c_int
    ext.ttx_register_direct.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    ext.ttx_note_fallback.restype = ctypes.c_int
    ext.ttx_note_fallback.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    ext.ttx_fallback_calls.restype = ctypes.c_int64
    ext.ttx_fallback_calls.argtypes = []
    ext.ttx_fallbacks.restype = ctypes.c_int
    ext.ttx_fallbacks.argtypes = [ctypes.c_char_p, ctypes.c_int]
    _lib.lib()  # the engine, loaded first: the extension resolves its functions from it
    msg = ctypes.create_string_buffer(1024)
    if ext.ttx_init(str(_lib.library_path()).encode(), _lib.ABI_VERSION, msg, len(msg)) != 0:
        raise RuntimeError("torchtpu: " + msg.value.decode(errors="replace"))
    _ext = ext
    return ext
