"""ctypes bindings of libtorchtpu, the engine's C ABI (capi/libtorchtpu/torchtpu.h).

Everything here is private: the package's public API is in ``torchtpu``.
One library is loaded per process (Go allows one runtime per process); every
function of the C ABI reports failure as a message, which becomes a
:class:`TorchTPUError` here. Handles are plain integers, checked by the engine.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import threading
import weakref
from pathlib import Path
from typing import Any, Optional, Sequence

import torch

ABI_VERSION = 1
MAX_RANK = 16

_LIB_NAME = "libtorchtpu.so" if sys.platform != "darwin" else "libtorchtpu.dylib"


class TorchTPUError(RuntimeError):
    """An error reported by the torchtpu engine (bad input, an op it cannot
    run, a failed compile, a freed handle, ...). The message names what and
    where."""


class _Tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("extent", ctypes.c_int64),
        ("dtype", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
    ]


# c10::ScalarType numbers: the ABI's dtype codes.
_SCALAR_TYPES: dict[torch.dtype, int] = {
    torch.uint8: 0,
    torch.int8: 1,
    torch.int16: 2,
    torch.int32: 3,
    torch.int64: 4,
    torch.float16: 5,
    torch.float32: 6,
    torch.float64: 7,
    torch.complex64: 9,
    torch.complex128: 10,
    torch.bool: 11,
    torch.bfloat16: 15,
}
for _name, _code in (("float8_e5m2", 23), ("float8_e4m3fn", 24), ("float8_e5m2fnuz", 25),
                     ("float8_e4m3fnuz", 26), ("uint16", 27), ("uint32", 28), ("uint64", 29)):
    if hasattr(torch, _name):
        _SCALAR_TYPES[getattr(torch, _name)] = _code
_DTYPES: dict[int, torch.dtype] = {c: d for d, c in _SCALAR_TYPES.items()}


def scalar_type(dtype: torch.dtype) -> int:
    """The ABI's code for a torch dtype."""
    try:
        return _SCALAR_TYPES[dtype]
    except KeyError:
        raise TorchTPUError(f"torchtpu does not support dtype {dtype}") from None


def _repo_root() -> Optional[Path]:
    """The source checkout this package sits in (python/torchtpu), if any."""
    root = Path(__file__).resolve().parent.parent.parent
    return root if (root / "go.mod").is_file() and (root / "capi").is_dir() else None


def library_path() -> Path:
    """Where libtorchtpu is: $TORCHTPU_LIBRARY, or the package's lib/ folder
    (where scripts/build-python.sh and pip put it)."""
    env = os.environ.get("TORCHTPU_LIBRARY")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / "lib" / _LIB_NAME


def build_library(dest: Optional[Path] = None) -> Path:
    """Builds libtorchtpu from the source checkout with ``go build
    -buildmode=c-shared`` (a minute or two the first time; Go's build cache
    makes later builds fast)."""
    root = _repo_root()
    if root is None:
        raise TorchTPUError("libtorchtpu is not built and this package is not inside a torchtpu source checkout")
    go = shutil.which("go") or ("/usr/local/go/bin/go" if os.path.exists("/usr/local/go/bin/go") else None)
    if go is None:
        raise TorchTPUError("libtorchtpu is not built and Go is not installed: run scripts/build-python.sh")
    dest = dest or library_path()
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
    print(f"torchtpu: building {dest} (go build -buildmode=c-shared) ...", file=sys.stderr, flush=True)
    subprocess.run([go, "build", "-buildmode=c-shared", "-o", str(tmp), "./capi/libtorchtpu"],
                   cwd=root, check=True)
    for h in (tmp.with_suffix(".h"), Path(str(tmp) + ".h"), dest.with_suffix(".h")):
        h.unlink(missing_ok=True)
    os.replace(tmp, dest)
    return dest


_lib: Optional[ctypes.CDLL] = None
_lib_lock = threading.Lock()


def lib() -> ctypes.CDLL:
    """The loaded library (loaded, and built from source if needed, on first use)."""
    global _lib
    if _lib is not None:
        return _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        path = library_path()
        if not path.exists():
            if os.environ.get("TORCHTPU_LIBRARY"):
                raise TorchTPUError(f"TORCHTPU_LIBRARY={path} does not exist")
            path = build_library(path)
        l = ctypes.CDLL(str(path))
        _declare(l)
        v = l.tt_abi_version()
        if v != ABI_VERSION:
            raise TorchTPUError(f"{path} has C ABI version {v}, this package needs {ABI_VERSION}: rebuild it "
                                "(scripts/build-python.sh)")
        _lib = l
        return l


def _declare(l: ctypes.CDLL) -> None:
    u64, i32, i64, vp, cp = ctypes.c_uint64, ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p, ctypes.c_char_p
    perr = ctypes.POINTER(ctypes.c_void_p)
    sig = {
        "tt_abi_version": (i32, []),
        "tt_version": (vp, []),
        "tt_string_free": (None, [vp]),
        "tt_program_load": (u64, [vp, i64, cp, perr]),
        "tt_program_info": (vp, [u64, perr]),
        "tt_program_metrics": (vp, [u64, perr]),
        "tt_devices": (vp, [perr]),
        "tt_stats": (vp, [perr]),
        "tt_program_run": (u64, [u64, i32, ctypes.POINTER(_Tensor), perr]),
        "tt_result_count": (i32, [u64, perr]),
        "tt_result_describe": (i32, [u64, i32, ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int32),
                                     ctypes.POINTER(ctypes.c_int64), perr]),
        "tt_result_copy": (i32, [u64, i32, vp, i64, perr]),
        "tt_result_take": (u64, [u64, i32, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int64), perr]),
        "tt_free": (i32, [u64, perr]),
        "tt_program_run_into": (i32, [u64, i32, ctypes.POINTER(_Tensor), ctypes.POINTER(vp), ctypes.POINTER(i64),
                                      i32, ctypes.POINTER(_Tensor), ctypes.POINTER(vp), ctypes.POINTER(i64), perr]),
        "tt_program_bind": (u64, [u64, i32, ctypes.POINTER(_Tensor), i32, ctypes.POINTER(_Tensor), perr]),
        "tt_bound_run": (i32, [u64, ctypes.POINTER(vp), ctypes.POINTER(i64), ctypes.POINTER(vp), ctypes.POINTER(i64),
                               perr]),
    }
    for name, (res, args) in sig.items():
        f = getattr(l, name)
        f.restype = res
        f.argtypes = args


def _take_string(p: Optional[int]) -> str:
    if not p:
        return ""
    try:
        return ctypes.string_at(p).decode("utf-8", "replace")
    finally:
        lib().tt_string_free(p)


def _raise(err: ctypes.c_void_p, what: str) -> None:
    msg = _take_string(err.value) if err.value else f"{what} failed"
    raise TorchTPUError(msg)


def _json_call(name: str, *args: Any) -> Any:
    err = ctypes.c_void_p()
    p = getattr(lib(), name)(*args, ctypes.byref(err))
    if not p:
        _raise(err, name)
    return json.loads(_take_string(p))


def version() -> dict[str, Any]:
    """The engine's build: ABI version, Go version, VCS revision."""
    return json.loads(_take_string(lib().tt_version()))


def devices() -> list[dict[str, Any]]:
    """Every device the engine knows, with whether it opens here."""
    return _json_call("tt_devices")


def live_handles() -> dict[str, int]:
    """Live engine objects by kind (programs, results, buffers)."""
    return _json_call("tt_stats")


def _optional(name: str, res: Any, args: list) -> Any:
    """A function added to the ABI after a library may have been built:
    declared on first use, with a clear error when the library lacks it."""
    f = getattr(lib(), name, None)
    if f is None:
        raise TorchTPUError(f"{library_path()} has no {name}: rebuild it (scripts/build-python.sh)")
    f.restype, f.argtypes = res, args
    return f


def cpu_profile_start(path: str) -> None:
    """Starts the engine's Go CPU profile into a new file at path."""
    f = _optional("tt_cpu_profile_start", ctypes.c_int32, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)])
    err = ctypes.c_void_p()
    if f(os.fsencode(path), ctypes.byref(err)) != 0:
        _raise(err, "tt_cpu_profile_start")


def cpu_profile_stop() -> None:
    """Stops the engine's CPU profile and finishes its file."""
    f = _optional("tt_cpu_profile_stop", ctypes.c_int32, [ctypes.POINTER(ctypes.c_void_p)])
    err = ctypes.c_void_p()
    if f(ctypes.byref(err)) != 0:
        _raise(err, "tt_cpu_profile_stop")


def free(handle: int) -> None:
    err = ctypes.c_void_p()
    if lib().tt_free(handle, ctypes.byref(err)) != 0:
        _raise(err, "tt_free")


class Program:
    """A program loaded into the engine from .pt2 bytes; freed with the object."""

    def __init__(self, pt2: bytes, options: Optional[dict[str, Any]] = None) -> None:
        self.handle = 0
        err = ctypes.c_void_p()
        opts = json.dumps(options or {}).encode()
        buf = ctypes.create_string_buffer(pt2, len(pt2))
        h = lib().tt_program_load(ctypes.addressof(buf), len(pt2), opts, ctypes.byref(err))
        if not h:
            _raise(err, "tt_program_load")
        self.handle = h
        self._lib = lib()
        self._lock = threading.Lock()

    def info(self) -> dict[str, Any]:
        """Inputs, outputs, op counts and unsupported ops (with node and source line)."""
        return _json_call("tt_program_info", self.handle)

    def metrics(self) -> dict[str, Any]:
        """Compiles, cache hits, recompiles with reasons, run and segment times."""
        return _json_call("tt_program_metrics", self.handle)

    def run(self, inputs: Sequence[torch.Tensor]) -> list[Optional[torch.Tensor]]:
        """Runs the program on CPU tensors (read in place; strided ones are
        gathered by the engine) and returns new CPU tensors (None for a None
        output)."""
        n = len(inputs)
        descs = (_Tensor * n)()
        keep = []  # shape/stride arrays alive for the call
        for i, t in enumerate(inputs):
            if not isinstance(t, torch.Tensor):
                raise TorchTPUError(f"input {i} is a {type(t).__name__}, not a tensor")
            if t.device.type != "cpu":
                raise TorchTPUError(f"input {i} is on {t.device}, torchtpu reads CPU tensors")
            if t.layout != torch.strided:
                raise TorchTPUError(f"input {i} has layout {t.layout}: only dense tensors are supported")
            d = descs[i]
            d.dtype = scalar_type(t.dtype)
            d.ndim = t.dim()
            if t.numel() > 0:
                d.data = t.data_ptr()
                st = t.untyped_storage()
                d.extent = st.nbytes() - t.storage_offset() * t.element_size()
            if t.dim():
                shp = (ctypes.c_int64 * t.dim())(*t.shape)
                d.shape = shp
                keep.append(shp)
                if not t.is_contiguous():
                    strd = (ctypes.c_int64 * t.dim())(*t.stride())
                    d.strides = strd
                    keep.append(strd)
        err = ctypes.c_void_p()
        res = self._lib.tt_program_run(self.handle, n, descs, ctypes.byref(err))
        if not res:
            _raise(err, "tt_program_run")
        try:
            return _collect(self._lib, res)
        finally:
            self._lib.tt_free(res, None)

    def __del__(self) -> None:
        h, self.handle = getattr(self, "handle", 0), 0
        if h and _lib is not None:
            try:
                _lib.tt_free(h, None)
            except Exception:
                pass


def _strides_of(shape: Sequence[int], strides: Sequence[int]) -> Optional[Sequence[int]]:
    """strides, or None when they are row-major for shape."""
    acc = 1
    for d in reversed(range(len(shape))):
        if shape[d] != 1 and strides[d] != acc:
            return strides
        acc *= shape[d]
    return None


def _span_bytes(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> int:
    """The bytes a tensor of this shape and strides addresses."""
    if any(d == 0 for d in shape):
        return 0
    return (1 + sum((d - 1) * s for d, s in zip(shape, strides))) * itemsize


class FastCall:
    """Runs a program whose inputs and outputs keep their dtypes, shapes and
    strides from call to call (a compiled graph with static shapes, which
    dynamo's guards hold) with the least work per call: the descriptors are
    bound once (tt_program_bind); a call sets the data pointers and
    extents, allocates the outputs in their layouts and makes one call into
    the engine (tt_bound_run), which writes the outputs in place. The
    engine still checks every extent, so a tensor that does not match is an
    error, never a read or write out of bounds.

    ``outputs`` gives, per program output, ``(dtype, shape, strides)`` or None
    for an output that is None. With ``check_layout`` (inputs no guard
    holds: a backward's saved tensors and gradients, a split graph's
    parts), a call first compares each input's shape and strides with the
    bound ones and returns None when one differs (the caller then runs the
    program the general way); an extent check alone would let a tensor of
    the same size in another layout through."""

    def __init__(self, program: "Program", inputs: Sequence[torch.Tensor],
                 outputs: Sequence[Optional[tuple[torch.dtype, Sequence[int], Sequence[int]]]],
                 check_layout: bool = False) -> None:
        self._program = program
        self._keep: list[Any] = []  # shape/stride arrays the descriptors point at
        self.n_in, self.n_out = len(inputs), len(outputs)
        in_specs = [(t.dtype, tuple(t.shape), tuple(t.stride())) for t in inputs]
        ins = self._descs(in_specs)
        outs = self._descs(outputs)
        err = ctypes.c_void_p()
        self.handle = program._lib.tt_program_bind(program.handle, self.n_in, ins, self.n_out, outs, ctypes.byref(err))
        if not self.handle:
            _raise(err, "tt_program_bind")
        self._keep.clear()  # the engine keeps its own copies
        self._in_data = (ctypes.c_void_p * max(self.n_in, 1))()
        self._in_ext = (ctypes.c_int64 * max(self.n_in, 1))()
        self._out_data = (ctypes.c_void_p * max(self.n_out, 1))()
        self._out_ext = (ctypes.c_int64 * max(self.n_out, 1))()
        self._specs = [(o[0], tuple(o[1]), tuple(o[2])) if o is not None else None for o in outputs]
        for i, o in enumerate(self._specs):
            if o is not None:
                self._out_ext[i] = _span_bytes(o[1], o[2], o[0].itemsize)
        self._itemsizes = [t.element_size() for t in inputs]
        self._layouts: Optional[list[tuple[tuple[int, ...], tuple[int, ...]]]] = (
            [(shape, strides) for _, shape, strides in in_specs] if check_layout else None)
        if check_layout:
            # A call checks each input's layout against the bound one
            # first, so a tensor that passes addresses exactly these bytes
            # from its data pointer (and its storage holds them): the
            # extents are set once, not read from every storage per call.
            for i, (dt, shape, strides) in enumerate(in_specs):
                self._in_ext[i] = _span_bytes(shape, strides, dt.itemsize)
        self._err = ctypes.c_void_p()
        # The call's arguments, made once: a call converts none of them.
        self._args = (ctypes.c_uint64(self.handle), self._in_data, self._in_ext, self._out_data, self._out_ext,
                      ctypes.byref(self._err))
        # its own function object, with no argtypes: the arguments are
        # ctypes objects already, and converting them costs a microsecond
        self._run = program._lib["tt_bound_run"]
        self._run.restype = ctypes.c_int32
        self._lock = threading.Lock()  # the argument arrays are shared by calls

    def __del__(self) -> None:
        h, self.handle = getattr(self, "handle", 0), 0
        if h and _lib is not None:
            _lib.tt_free(h, None)

    def _descs(self, specs: Sequence[Optional[tuple[torch.dtype, Sequence[int], Sequence[int]]]]) -> Any:
        arr = (_Tensor * max(len(specs), 1))()
        for i, spec in enumerate(specs):
            d = arr[i]
            if spec is None:
                d.dtype = -1
                continue
            dt, shape, strides = spec
            d.dtype = scalar_type(dt)
            d.ndim = len(shape)
            if shape:
                shp = (ctypes.c_int64 * len(shape))(*shape)
                d.shape = shp
                self._keep.append(shp)
                st = _strides_of(shape, strides)
                if st is not None:
                    sa = (ctypes.c_int64 * len(st))(*st)
                    d.strides = sa
                    self._keep.append(sa)
        return arr

    def __call__(self, inputs: Sequence[torch.Tensor]) -> Optional[list[Optional[torch.Tensor]]]:
        n = self.n_in
        if len(inputs) != n:
            raise TorchTPUError(f"the program takes {n} tensors, {len(inputs)} given")
        if self._layouts is not None:
            for t, (shape, strides) in zip(inputs, self._layouts):
                if t.shape != shape or t.stride() != strides:
                    return None
        empty = torch.empty_strided
        outs = [empty(o[1], o[2], dtype=o[0]) if o is not None else None for o in self._specs]
        with self._lock:
            self._in_data[:n] = [t.data_ptr() for t in inputs]
            if self._layouts is None:
                self._in_ext[:n] = [t.untyped_storage().nbytes() - t.storage_offset() * s
                                    for t, s in zip(inputs, self._itemsizes)]
            self._out_data[:self.n_out] = [o.data_ptr() if o is not None else None for o in outs]
            if self._run(*self._args) != 0:
                err = ctypes.c_void_p(self._err.value)
                self._err.value = None
                _raise(err, "tt_bound_run")
        return outs


# Outputs of at least this many bytes are handed over without a copy (the
# engine pins them until the tensor's storage dies); smaller ones are copied,
# which costs less than the bookkeeping.
TAKE_BYTES = 64 << 10


def _numel(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _release(handle: int) -> None:
    if _lib is not None:
        _lib.tt_free(handle, None)


def _take(l: ctypes.CDLL, res: int, i: int, dt: torch.dtype, shape: list[int]) -> torch.Tensor:
    """Output i as a tensor over the engine's memory, which stays pinned
    until the last view of the tensor is gone."""
    err = ctypes.c_void_p()
    data, nbytes = ctypes.c_void_p(), ctypes.c_int64()
    h = l.tt_result_take(res, i, ctypes.byref(data), ctypes.byref(nbytes), ctypes.byref(err))
    if not h:
        _raise(err, "tt_result_take")
    buf = (ctypes.c_char * nbytes.value).from_address(data.value)
    weakref.finalize(buf, _release, h)
    import warnings

    with warnings.catch_warnings():  # frombuffer warns about buffers it cannot resize
        warnings.simplefilter("ignore")
        return torch.frombuffer(buf, dtype=dt).view(shape)


def _collect(l: ctypes.CDLL, res: int) -> list[Optional[torch.Tensor]]:
    err = ctypes.c_void_p()
    n = l.tt_result_count(res, ctypes.byref(err))
    if n < 0:
        _raise(err, "tt_result_count")
    dtypes = (ctypes.c_int32 * max(n, 1))()
    ndims = (ctypes.c_int32 * max(n, 1))()
    shapes = (ctypes.c_int64 * (max(n, 1) * MAX_RANK))()
    if l.tt_result_describe(res, n, dtypes, ndims, shapes, ctypes.byref(err)) != 0:
        _raise(err, "tt_result_describe")
    outs: list[Optional[torch.Tensor]] = []
    for i in range(n):
        if dtypes[i] < 0:
            outs.append(None)
            continue
        shape = [shapes[i * MAX_RANK + j] for j in range(ndims[i])]
        try:
            dt = _DTYPES[dtypes[i]]
        except KeyError:
            raise TorchTPUError(f"output {i} has dtype code {dtypes[i]} that this torch lacks") from None
        nbytes = dt.itemsize * _numel(shape)
        if nbytes >= TAKE_BYTES:
            outs.append(_take(l, res, i, dt, shape))
            continue
        t = torch.empty(shape, dtype=dt)
        if l.tt_result_copy(res, i, t.data_ptr() if nbytes else None, nbytes, ctypes.byref(err)) != 0:
            _raise(err, "tt_result_copy")
        outs.append(t)
    return outs
