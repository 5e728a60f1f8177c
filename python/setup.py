"""Builds libtorchtpu (the Go engine as a C shared library) into the package.

``pip install python/`` and ``pip install -e python/`` run ``go build
-buildmode=c-shared`` from the checkout this folder sits in; the library goes to
torchtpu/lib/. Go 1.26 must be installed. ``scripts/build-python.sh`` does the
same without pip.
"""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def build_library() -> None:
    if os.environ.get("TORCHTPU_SKIP_LIBRARY_BUILD"):
        return
    go = shutil.which("go") or "/usr/local/go/bin/go"
    out = HERE / "torchtpu" / "lib" / "libtorchtpu.so"
    out.parent.mkdir(parents=True, exist_ok=True)
    print(f"building {out} with {go} build -buildmode=c-shared ./capi/libtorchtpu")
    subprocess.run([go, "build", "-buildmode=c-shared", "-o", str(out), "./capi/libtorchtpu"], cwd=ROOT, check=True)
    for h in (out.with_suffix(".h"), Path(str(out) + ".h")):
        h.unlink(missing_ok=True)


class BuildPy(build_py):
    def run(self) -> None:
        build_library()
        super().run()


setup(cmdclass={"build_py": BuildPy})
