"""Builds the torchtpu wheel: the Python package, libtorchtpu, and the tpu
device's C++ extension prebuilt for the torch of the build environment.

    pip wheel --no-build-isolation --no-deps -w dist ./python   # scripts/build-wheel.sh
    pip wheel ./python                                          # the same, in a fresh build env with PyPI's newest torch

What goes in (from the checkout this folder sits in):

- ``torchtpu/lib/libtorchtpu.so``: the Go engine, ``go build -buildmode=c-shared
  ./capi/libtorchtpu`` (Go 1.26; ``$TORCHTPU_SKIP_LIBRARY_BUILD`` keeps the one
  scripts/build-python.sh made).
- ``torchtpu/lib/torchtpu_device.so``: the device extension compiled with g++
  against the build environment's torch (the same commands as a build on
  first use, torchtpu/device/_ext.py), finding torch's libraries through a run
  path relative to itself; ``torchtpu_device.json`` names that torch.
- ``torchtpu/csrc``: the extension's sources, built on first use under a torch
  the wheel was not built for.

The wheel requires ``torch==X.Y.*`` for the torch X.Y it was built against,
and is tagged ``py3-none-manylinux_2_N_<arch>``: the libraries do not use
Python's C API, and N is the newest glibc symbol version they need
(``objdump -T``). An editable install (``pip install --no-build-isolation -e
python``) builds only libtorchtpu; the extension is then built from the
checkout's sources on first use, so edits to csrc are picked up.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def torch_requirement() -> str:
    """``torch==X.Y.*`` for the torch this wheel is built against."""
    try:
        import torch
    except ImportError:
        sys.exit("torchtpu: building the package needs torch in the build environment: the wheel's tpu device "
                 "extension is compiled against it and pins it. Use pip's --no-build-isolation in an environment "
                 "with the torch you target, or let pip's isolated build install one.")
    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    return f"torch=={major}.{minor}.*"


def build_library() -> None:
    """libtorchtpu.so into torchtpu/lib of the source tree (package data)."""
    if os.environ.get("TORCHTPU_SKIP_LIBRARY_BUILD"):
        return
    if not (ROOT / "go.mod").is_file():
        sys.exit(f"torchtpu: {ROOT} is not a torchtpu checkout: the wheel builds libtorchtpu from the Go sources "
                 "around python/ (an sdist does not carry them; build the wheel from a checkout)")
    go = shutil.which("go") or "/usr/local/go/bin/go"
    out = HERE / "torchtpu" / "lib" / "libtorchtpu.so"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name("libtorchtpu.tmp.so")
    print(f"building {out} with {go} build -buildmode=c-shared ./capi/libtorchtpu")
    subprocess.run([go, "build", "-buildmode=c-shared", "-o", str(tmp), "./capi/libtorchtpu"], cwd=ROOT, check=True)
    tmp.with_suffix(".h").unlink(missing_ok=True)
    os.replace(tmp, out)


def _ext_module() -> ModuleType:
    """torchtpu/device/_ext.py, loaded on its own (the package's __init__
    would load the engine): its build() is the one the device uses."""
    spec = importlib.util.spec_from_file_location("_torchtpu_ext", HERE / "torchtpu" / "device" / "_ext.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_extension(lib_dir: Path) -> None:
    """The device extension and its manifest into lib_dir (the build tree).
    Object files are cached in $TORCHTPU_EXT_DIR or ~/.cache/torchtpu/ext by
    the digest of sources, torch and flags, so an unchanged rebuild links
    only."""
    ext = _ext_module()
    cxx = ext.compiler()
    if cxx is None:
        sys.exit("torchtpu: the wheel prebuilds the tpu device extension: a C++ compiler (g++, or $CXX) is needed")
    cache = os.environ.get("TORCHTPU_EXT_DIR") or str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                                                      / "torchtpu" / "ext")
    # site-packages/torchtpu/lib/ -> site-packages/torch/lib; torch's libraries
    # are loaded by `import torch` before the extension anyway.
    built = ext.build(Path(cache), runpath="$ORIGIN/../../torch/lib")
    lib_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(built, lib_dir / ext.PREBUILT.name)
    (lib_dir / ext.MANIFEST.name).write_text(json.dumps(ext.manifest_for_this_torch(cxx), indent=1) + "\n")
    print(f"prebuilt the tpu device extension into {lib_dir / ext.PREBUILT.name}")


def glibc_needed(libs: list[Path]) -> int:
    """The newest GLIBC_2.N symbol version the libraries need: N."""
    n = 0
    for lib in libs:
        out = subprocess.run(["objdump", "-T", str(lib)], capture_output=True, text=True, check=True).stdout
        n = max([n] + [int(m) for m in re.findall(r"\bGLIBC_2\.(\d+)\b", out)])
    return n


class BuildPy(build_py):
    def run(self) -> None:
        build_library()
        super().run()
        if not self.editable_mode:
            build_extension(Path(self.build_lib) / "torchtpu" / "lib")


class BinaryDistribution(Distribution):
    """A distribution with native libraries (in package data, not Python
    extension modules): installed to platlib, in a platform wheel."""

    def has_ext_modules(self) -> bool:
        return True


class BdistWheel(bdist_wheel):
    """A platform wheel for any Python 3: py3-none-manylinux_2_N_<arch>."""

    def get_tag(self) -> tuple[str, str, str]:
        _, _, plat = super().get_tag()
        if sys.platform != "linux":
            return "py3", "none", plat
        if not shutil.which("objdump"):
            print(f"torchtpu: no objdump (binutils) to read the glibc the libraries need: the wheel is tagged {plat}")
            return "py3", "none", plat
        lib_dir = Path(self.get_finalized_command("build_py").build_lib) / "torchtpu" / "lib"
        n = glibc_needed(sorted(lib_dir.glob("*.so")))
        return "py3", "none", f"manylinux_2_{n}_{platform.machine()}"


setup(install_requires=[torch_requirement()], distclass=BinaryDistribution,
      cmdclass={"build_py": BuildPy, "bdist_wheel": BdistWheel})
