"""The tpu device's C++ extension (``torchtpu/csrc``): where it comes from, and loading it.

The extension registers PyTorch's PrivateUse1 kernels (allocation, views,
copies, and one boxed fallback for every other aten op) that call the
engine's C ABI directly: a Python hop per op would cost several times
PyTorch's own per-op time (DESIGN.md, "Measured constraints"). It is a
shared library compiled against one torch's C++ headers and linked against
that torch's ``libc10``/``libtorch_cpu``, so it comes from one of two places:

- **prebuilt**: a wheel carries ``torchtpu/lib/torchtpu_device.so``, compiled
  when the wheel was built (``python/setup.py``), and
  ``torchtpu_device.json`` beside it naming the torch it was built for. It
  is used when the running torch has the same major.minor version and C++
  ABI, and the sources in ``torchtpu/csrc`` are the ones it was built from.
  Loading it takes about a tenth of a second, so ``import torchtpu`` does it.
- **built here**: otherwise (a source checkout, or a torch the wheel was not
  built for) the sources are compiled with the C++ compiler (``$CXX``, else
  ``g++``, else ``c++``) against the running torch's headers and libraries,
  once per torch build and source version, when the device is first used
  (a minute or so on two cores). The build goes to ``torchtpu/lib/ext/`` in a
  checkout, or to the user's cache (``~/.cache/torchtpu/ext``) for an
  installed package; ``$TORCHTPU_EXT_DIR`` overrides both.

The extension does not use Python's C API, so one build serves every Python
version of its torch.
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import torch

_PACKAGE = Path(__file__).resolve().parent.parent
_CSRC = _PACKAGE / "csrc"
# The sources are split by concern, one folder each (as PyTorch's reference
# device, OpenReg, lays its out): runtime/ (the engine's C ABI, allocator,
# hooks, guard, streams and events, threads), aten/ (the kernels and the
# boxed fallback), amp/ (autocast), profiler/, distributed/. Every .cpp
# under csrc is compiled and every .h is a header of each; a concern added
# as a folder needs no change here. Includes are relative to csrc
# ("runtime/device.h").


def _sources() -> list[str]:
    """The extension's C++ sources, paths relative to csrc, sorted."""
    return sorted(p.relative_to(_CSRC).as_posix() for p in _CSRC.rglob("*.cpp"))


def _headers() -> list[str]:
    return sorted(p.relative_to(_CSRC).as_posix() for p in _CSRC.rglob("*.h"))

# The prebuilt extension of a wheel and the record of what it was built for.
PREBUILT = _PACKAGE / "lib" / "torchtpu_device.so"
MANIFEST = PREBUILT.with_suffix(".json")


def compiler() -> Optional[str]:
    """The C++ compiler a build would use: ``$CXX``, ``g++`` or ``c++`` on
    PATH; None when there is none."""
    return os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")


def torch_series(version: str) -> str:
    """``"2.15"`` for torch ``"2.15.0+cu132"``: the part of the version a
    prebuilt extension must share with the running torch (patch releases
    keep the C++ ABI)."""
    return ".".join(version.split("+")[0].split(".")[:2])


def sources_digest() -> str:
    """SHA-256 (16 hex digits) of the extension's sources and headers, with
    their paths (a file moved to another folder is another build)."""
    return _digest(*[part for f in _sources() + _headers() for part in (f.encode(), (_CSRC / f).read_bytes())])


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
        h.update(b"\0")
    return h.hexdigest()[:16]


def manifest_for_this_torch(cxx: str) -> dict[str, Any]:
    """What a prebuilt extension records about its build (written beside it
    as JSON by python/setup.py): the torch, its C++ ABI, the sources'
    digest and the compiler."""
    first_line = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    return {"torch": torch.__version__, "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
            "sources": sources_digest(), "compiler": first_line.strip()}


def prebuilt() -> tuple[Optional[Path], str]:
    """(the prebuilt extension, "") when there is one that fits this torch,
    else (None, why not)."""
    if not PREBUILT.is_file() or not MANIFEST.is_file():
        return None, "this package has no prebuilt extension (a source checkout, or an install without one)"
    try:
        m = json.loads(MANIFEST.read_text())
    except (OSError, ValueError) as e:
        return None, f"the prebuilt extension's manifest {MANIFEST} is unreadable ({e})"
    built_for = m.get("torch", "?")
    if torch_series(built_for) != torch_series(torch.__version__):
        return None, f"the prebuilt extension is for torch {built_for}, this is torch {torch.__version__}"
    if m.get("cxx11_abi") != bool(torch._C._GLIBCXX_USE_CXX11_ABI):
        return None, f"the prebuilt extension was built with another C++ ABI than torch {torch.__version__}"
    if m.get("sources") != sources_digest():
        return None, "the prebuilt extension was built from other sources than those in torchtpu/csrc"
    return PREBUILT, ""


def _in_checkout() -> bool:
    root = _PACKAGE.parent.parent
    return (root / "go.mod").is_file() and (root / "capi").is_dir()


def _build_dir() -> Path:
    """$TORCHTPU_EXT_DIR, or torchtpu/lib/ext in a source checkout, or the
    user's cache: an installed package never writes into site-packages."""
    env = os.environ.get("TORCHTPU_EXT_DIR")
    if env:
        return Path(env)
    if _in_checkout():
        return _PACKAGE / "lib" / "ext"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "torchtpu" / "ext"


def _flags(runpath: Optional[str]) -> tuple[list[str], list[str]]:
    """Compile and link flags for this torch: its headers, its C++ ABI, its
    libraries, and the run path they are found at (default: this torch's
    lib folder)."""
    from torch.utils import cpp_extension

    cflags = ["-O2", "-std=c++20", "-fPIC", "-fvisibility=hidden", "-w",
              f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}",
              f"-I{_CSRC}",
              f"-ffile-prefix-map={_CSRC}=torchtpu/csrc"]  # messages name torchtpu/csrc/x.cpp, not the build's folder
    cflags += [f"-I{p}" for p in cpp_extension.include_paths()]
    # Kineto's headers (profiler/: the device's rows in torch.profiler traces):
    # in torch's include folder (PyPI), or the system's (Debian's libtorch-dev)
    kineto = [Path(p, "kineto") for p in [*cpp_extension.include_paths(), "/usr/include", "/usr/local/include"]
              if Path(p, "kineto", "libkineto.h").is_file()]
    cflags += [f"-I{kineto[0]}", f"-idirafter{_CSRC / 'profiler' / 'shim'}"] if kineto else []
    # at::parallel_for is a template whose OpenMP team is compiled into the
    # caller: without -fopenmp the engine's loops lent to PyTorch's threads
    # (runtime/parallel.cpp) would run on the calling thread alone. Only the
    # compile step gets it: the OpenMP runtime is torch's own libgomp,
    # already loaded with libtorch_cpu, not a second one linked here.
    if "parallel backend: OpenMP" in torch.__config__.parallel_info():
        cflags.append("-fopenmp")
    ldflags = []
    for p in cpp_extension.library_paths():
        ldflags += [f"-L{p}", f"-Wl,-rpath,{runpath or p}"]
    ldflags += ["-lc10", "-ltorch_cpu", "-ltorch"]
    return cflags, ldflags


class _Plan:
    """Where a build of the sources with one compiler and set of flags goes:
    object files named by the digest of their source and the headers, the
    library by the digest of its objects."""

    def __init__(self, cxx: str, base: Path, runpath: Optional[str]) -> None:
        self.cxx = cxx
        self.cflags, self.ldflags = _flags(runpath)
        headers = b"".join(h.encode() + b"\0" + (_CSRC / h).read_bytes() for h in _headers())
        tag = _digest(torch.__version__.encode(), str(Path(torch.__file__).resolve()).encode(),
                      " ".join([cxx] + self.cflags + self.ldflags).encode())
        self.dir = base / f"torch-{torch.__version__.replace('+', '_')}-{tag}"
        self.objs = [(src, self.dir / f"{src[:-4].replace('/', '-')}-{_digest((_CSRC / src).read_bytes(), headers)}.o")
                     for src in _sources()]
        self.lib = self.dir / f"torchtpu_device-{_digest(*[str(o).encode() for _, o in self.objs])}.so"


def built() -> Optional[Path]:
    """An earlier build of these sources for this torch, if there is one
    (nothing is compiled)."""
    cxx = compiler()
    if cxx is None:
        return None
    lib = _Plan(cxx, _build_dir(), None).lib
    return lib if lib.is_file() else None


def build(base: Optional[Path] = None, runpath: Optional[str] = None) -> Path:
    """Compiles the extension for this torch (when its sources, torch or
    flags changed since the last build in ``base``) and returns the
    library's path. ``runpath`` is where the library finds torch's
    libraries at run time (python/setup.py gives one relative to
    ``$ORIGIN`` for a wheel)."""
    cxx = compiler()
    if cxx is None:
        raise RuntimeError("torchtpu: building the tpu device extension needs a C++ compiler (g++, or $CXX)")
    plan = _Plan(cxx, base or _build_dir(), runpath)
    if plan.lib.exists():
        return plan.lib
    plan.dir.mkdir(parents=True, exist_ok=True)
    with open(plan.dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if plan.lib.exists():
            return plan.lib
        print(f"torchtpu: building the tpu device extension for torch {torch.__version__} with {cxx} "
              f"(once; a minute or two) in {plan.dir}", file=sys.stderr, flush=True)
        procs = []
        for src, obj in plan.objs:
            if obj.exists():
                continue
            tmp = obj.with_suffix(f".tmp{os.getpid()}.o")
            cmd = [cxx, *plan.cflags, "-c", str(_CSRC / src), "-o", str(tmp)]
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
        tmp = plan.lib.with_suffix(f".tmp{os.getpid()}.so")
        cmd = [cxx, "-shared", *[str(o) for _, o in plan.objs], "-o", str(tmp), *plan.ldflags]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise RuntimeError("torchtpu: linking the tpu device extension failed:\n" + r.stdout.decode(errors="replace"))
        os.replace(tmp, plan.lib)
    return plan.lib


def ready() -> Optional[Path]:
    """The extension to load without compiling anything: the prebuilt one
    when it fits this torch, else an earlier build; None when the device's
    first use must build it."""
    path, _ = prebuilt()
    return path or built()


_ext: Optional[ctypes.CDLL] = None
# Where the loaded extension came from: "prebuilt" or "built here", and its path.
origin: Optional[str] = None
path: Optional[Path] = None


def _find_or_build() -> tuple[Path, str]:
    pre, why_not = prebuilt()
    if pre is not None:
        return pre, "prebuilt"
    done = built()
    if done is not None:
        return done, "built here"
    if compiler() is None:
        raise RuntimeError(
            f"torchtpu: the tpu device needs its C++ extension for torch {torch.__version__}: {why_not}, and no "
            f"C++ compiler was found to build it from torchtpu/csrc (install g++ or set $CXX; or install the "
            f"torchtpu wheel built for torch {torch_series(torch.__version__)}). torch.compile(model, "
            "backend=\"torchtpu\") does not need it.")
    if PREBUILT.is_file():
        print(f"torchtpu: {why_not}: building the tpu device extension from its sources", file=sys.stderr, flush=True)
    return build(), "built here"


def load() -> ctypes.CDLL:
    """Loads the extension (prebuilt, built before, or built now; see the
    module's docstring), which registers its kernels with PyTorch's
    dispatcher, and binds it to the engine library."""
    global _ext, origin, path
    if _ext is not None:
        return _ext
    from .. import _lib

    lib_path, how = _find_or_build()
    try:
        torch.ops.load_library(str(lib_path))
    except OSError as e:  # a prebuilt one this system cannot load (an older libstdc++, say): build it here
        if how != "prebuilt" or compiler() is None:
            raise RuntimeError(f"torchtpu: loading the tpu device extension {lib_path} failed: {e}") from e
        print(f"torchtpu: the prebuilt tpu device extension does not load here ({e}): building it from its "
              "sources", file=sys.stderr, flush=True)
        lib_path, how = build(), "built here"
        torch.ops.load_library(str(lib_path))
    ext = ctypes.CDLL(str(lib_path))
    ext.ttx_init.restype = ctypes.c_int
    ext.ttx_init.argtypes = [ctypes.c_char_p, ctypes.c_int32, ctypes.c_char_p, ctypes.c_int]
    ext.ttx_host_parallel.restype = ctypes.c_int
    ext.ttx_host_parallel.argtypes = [ctypes.c_int]
    ext.ttx_set_cpu_fallback.restype = None
    ext.ttx_set_cpu_fallback.argtypes = [ctypes.c_int]
    ext.ttx_register_direct.restype = ctypes.c_int
    ext.ttx_register_direct.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    ext.ttx_register_boxed.restype = ctypes.c_int
    ext.ttx_register_boxed.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
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
    _ext, origin, path = ext, how, lib_path
    return ext


def describe() -> dict[str, Any]:
    """Where the extension was (or would be) loaded from, for ``python -m
    torchtpu``: origin and path once loaded, the prebuilt one and the torch
    it was built for, and why it is not used when it is not."""
    pre, why_not = prebuilt()
    d: dict[str, Any] = {"loaded": _ext is not None, "origin": origin, "path": str(path) if path else None,
                         "prebuilt": str(PREBUILT) if PREBUILT.is_file() else None,
                         "build_dir": str(_build_dir()), "compiler": compiler()}
    if _ext is not None:
        d["profiler"] = profiler_state()
    if pre is not None:
        d["prebuilt_for"] = json.loads(MANIFEST.read_text())
    else:
        d["prebuilt_unused"] = why_not
    return d


def profiler_state() -> str:
    """How the device's profiler (csrc/profiler) stands with PyTorch's Kineto."""
    if _ext is None:
        return "extension not loaded"
    f = _ext.ttx_profiler_state
    f.restype, f.argtypes = ctypes.c_int, []
    st = f()
    if st < 0:
        return "not built (this torch has no Kineto headers): torch.profiler shows no tpu device time"
    if not st & 2:
        return "not registered with Kineto: torch.profiler shows no tpu device time"
    return "registered with Kineto" + (", initialized" if st & 4 else "")
